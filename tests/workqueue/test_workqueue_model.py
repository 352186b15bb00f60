"""``WorkQueue`` against a reference model of client-go's queue, over random operation sequences.

The model is the specification written as plainly as possible: a list, a dirty
set, a processing set, a shutdown flag, and the blocked ``get`` calls in order.
After every operation the real queue must agree with it on every observable:
which ``get`` returned which key (or ``ShutDown``), which are still blocked,
``len()``, ``shutting_down`` and whether a drain has finished.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from kubeforge.workqueue import ShutDown, WorkQueue

_BLOCKED = object()
_SHUT_DOWN = object()


@dataclass
class _Model:
    queue: list[int] = field(default_factory=list)
    dirty: set[int] = field(default_factory=set)
    processing: set[int] = field(default_factory=set)
    shutting_down: bool = False
    # Outcome of each get() in call order: a key, _BLOCKED or _SHUT_DOWN.
    outcomes: list[object] = field(default_factory=list)
    # Indexes into `outcomes` of the get() calls still blocked, oldest first.
    blocked: list[int] = field(default_factory=list)
    drains: list[bool] = field(default_factory=list)  # finished?

    def add(self, key: int) -> None:
        if self.shutting_down or key in self.dirty:
            return
        self.dirty.add(key)
        if key not in self.processing:
            self.queue.append(key)
        self._serve_blocked()

    def get(self) -> None:
        self.outcomes.append(_BLOCKED)
        self.blocked.append(len(self.outcomes) - 1)
        self._serve_blocked()

    def done(self, key: int) -> None:
        if key not in self.processing:
            return
        self.processing.remove(key)
        if key in self.dirty:
            self.queue.append(key)
        if not self.processing:
            self.drains = [True] * len(self.drains)
        self._serve_blocked()

    def shut_down(self, drain: bool) -> None:
        self.shutting_down = True
        if drain:
            self.drains.append(not self.processing)
        else:
            self.drains = [True] * len(self.drains)
        self._serve_blocked()

    def _serve_blocked(self) -> None:
        while self.blocked and self.queue:
            key = self.queue.pop(0)
            self.dirty.discard(key)
            self.processing.add(key)
            self.outcomes[self.blocked.pop(0)] = key
        if self.shutting_down and not self.queue:
            for index in self.blocked:
                self.outcomes[index] = _SHUT_DOWN
            self.blocked.clear()


_add = st.tuples(st.just("add"), st.integers(0, 4))
_get = st.tuples(st.just("get"), st.just(0))
_done = st.tuples(st.just("done"), st.integers(0, 9))
_shutdown = st.tuples(st.sampled_from(["shut_down", "drain"]), st.just(0))
# Shutdown ends the interesting part of a run, so it comes once, after a long prefix,
# and is followed by more operations (possibly another shutdown call of either kind).
_operations = st.builds(
    lambda before, stop, after: [*before, *stop, *after],
    st.lists(st.one_of(_add, _add, _get, _get, _done), max_size=40),
    st.lists(_shutdown, max_size=1),
    st.lists(st.one_of(_add, _get, _done, _shutdown), max_size=10),
)


async def _settle() -> None:
    for _ in range(8):
        await asyncio.sleep(0)


def _outcome(task: asyncio.Task[int]) -> object:
    if not task.done():
        return _BLOCKED
    error = task.exception()
    if isinstance(error, ShutDown):
        return _SHUT_DOWN
    assert error is None, error
    return task.result()


async def _run(operations: list[tuple[str, int]]) -> None:
    queue: WorkQueue[int] = WorkQueue()
    model = _Model()
    getters: list[asyncio.Task[int]] = []
    drains: list[asyncio.Task[None]] = []
    try:
        for name, argument in operations:
            if name == "add":
                queue.add(argument)
                model.add(argument)
            elif name == "get":
                getters.append(asyncio.create_task(queue.get()))
                model.get()
            elif name == "done":
                # Mostly finish a key in flight; with nothing in flight, try a stray done().
                in_flight = sorted(model.processing)
                key = in_flight[argument % len(in_flight)] if in_flight else argument
                queue.done(key)
                model.done(key)
            elif name == "shut_down":
                queue.shut_down()
                model.shut_down(drain=False)
            else:
                drains.append(asyncio.create_task(queue.shut_down_with_drain()))
                model.shut_down(drain=True)
            await _settle()

            assert [_outcome(task) for task in getters] == model.outcomes
            assert [task.done() for task in drains] == model.drains
            assert len(queue) == len(model.queue)
            assert queue.shutting_down == model.shutting_down
    finally:
        for task in [*getters, *drains]:
            task.cancel()
        await asyncio.gather(*getters, *drains, return_exceptions=True)


@settings(max_examples=300, deadline=None)
@given(_operations)
def test_the_queue_behaves_like_the_client_go_model(operations: list[tuple[str, int]]) -> None:
    asyncio.run(_run(operations))


@dataclass
class _Trace:
    in_flight: set[int] = field(default_factory=set)
    overlaps: list[int] = field(default_factory=list)
    # Per key: loop step of its latest add, and of the latest start of its processing.
    last_add: dict[int, int] = field(default_factory=dict)
    last_start: dict[int, int] = field(default_factory=dict)
    step: int = 0


async def _produce_and_consume(plan: list[tuple[int, int]], workers: int) -> _Trace:
    queue: WorkQueue[int] = WorkQueue()
    trace = _Trace()

    async def worker() -> None:
        while True:
            try:
                key = await queue.get()
            except ShutDown:
                return
            if key in trace.in_flight:
                trace.overlaps.append(key)
            trace.in_flight.add(key)
            trace.step += 1
            trace.last_start[key] = trace.step
            for _ in range(key % 3):
                await asyncio.sleep(0)
            trace.in_flight.discard(key)
            queue.done(key)

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    for key, pause in plan:
        queue.add(key)
        trace.step += 1
        trace.last_add[key] = trace.step
        for _ in range(pause):
            await asyncio.sleep(0)
    await queue.shut_down_with_drain()
    queue.shut_down()
    await asyncio.gather(*tasks)
    return trace


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 2)), min_size=1, max_size=60),
    st.integers(1, 5),
)
def test_concurrent_consumers_never_share_a_key_and_every_add_is_processed_after_it(
    plan: list[tuple[int, int]], workers: int
) -> None:
    trace = asyncio.run(_produce_and_consume(plan, workers))
    assert trace.overlaps == []
    for key, added_at in trace.last_add.items():
        # Level-triggered: the last change to every key is seen by a later processing.
        assert trace.last_start[key] > added_at
