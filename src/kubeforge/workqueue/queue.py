"""The de-duplicating work queue: ``WorkQueue`` with client-go's dirty/processing semantics.

See ``WorkQueue`` for the entry point; ``DelayingQueue`` and
``RateLimitingQueue`` build on it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.errors import KubeforgeError
from kubeforge.workqueue._instrument import UNFINISHED_WORK_UPDATE_PERIOD, QueueMetrics
from kubeforge.workqueue.metrics import MetricsProvider

__all__ = ["ShutDown", "WorkQueue"]

T = TypeVar("T", bound=Hashable)


class ShutDown(KubeforgeError):
    """``get()`` on a queue that is shut down and has nothing left to hand out."""


class WorkQueue(Generic[T]):
    """A FIFO of hashable keys where a key is never queued twice nor worked on twice at once.

    >>> async def demo() -> list[str]:
    ...     queue: WorkQueue[str] = WorkQueue()
    ...     queue.add("a"); queue.add("b"); queue.add("a")   # the second "a" is merged
    ...     first = await queue.get()
    ...     queue.add("a")                    # "a" is in flight: held back until done("a")
    ...     second = await queue.get()
    ...     queue.done("a")                   # now "a" is queued again
    ...     return [first, second, await queue.get(), str(len(queue))]
    >>> asyncio.run(demo())
    ['a', 'b', 'a', '0']

    *Guarantees*
      - **Fair**: keys are handed out in the order they were added.
      - **Stingy**: adding a key that is already waiting does nothing, so a burst of
        events for one object costs one reconcile.
      - **One at a time**: a key added while a consumer holds it (between ``get`` and
        ``done``) is marked dirty and handed out again only after ``done``, so two
        consumers never hold the same key at once.
      - **Shutdown**: after ``shut_down`` every ``add`` is ignored, keys queued before it
        are still handed out, and ``get`` raises ``ShutDown`` once nothing is left.

    *Assumptions*: every ``get`` is followed by exactly one ``done`` for that key;
    keys are hashable and compare by value (``ObjectKey`` is). All methods are called
    from the event loop's thread; the queue is not thread-safe.

    *Caveats*: ``done`` for a key that is not in flight is ignored. ``len()`` counts
    queued keys only, not dirty keys held back behind an in-flight copy.

    *Raises*: ``ShutDown`` from ``get``.
    """

    def __init__(
        self,
        *,
        name: str = "",
        clock: Clock | None = None,
        metrics: MetricsProvider | None = None,
    ) -> None:
        """``name`` labels the metrics; a queue without a name is not instrumented."""
        self._name = name
        self._clock: Clock = clock if clock is not None else MonotonicClock()
        # Keys waiting to be handed out, in order. Every key here is also in _dirty.
        self._queue: deque[T] = deque()
        # Keys that need processing: queued ones, plus in-flight ones added again meanwhile.
        self._dirty: set[T] = set()
        # Keys handed out by get() and not yet done(). A key here is never in _queue.
        self._processing: set[T] = set()
        # One future per get() waiting for a key; resolved (never given the key) to wake it.
        self._getters: deque[asyncio.Future[None]] = deque()
        # Callers of shut_down_with_drain() waiting for _processing to empty.
        self._drainers: list[asyncio.Future[None]] = []
        self._shutting_down = False
        self._metrics: QueueMetrics[T] | None = QueueMetrics.create(name, self._clock, metrics)
        self._ticker: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def __len__(self) -> int:
        return len(self._queue)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self._name!r}, queued={len(self._queue)}, "
            f"processing={len(self._processing)}, shutting_down={self._shutting_down})"
        )

    def add(self, item: T) -> None:
        """Mark ``item`` for processing; merged with a pending copy, ignored after shutdown."""
        if self._shutting_down or item in self._dirty:
            return
        self._dirty.add(item)
        if self._metrics is not None:
            self._metrics.added(item)
            self._start_ticker()
        if item in self._processing:
            return  # done() re-queues it; queuing it now would let two consumers hold it
        self._queue.append(item)
        if self._getters:
            self._wake_getter()

    async def get(self) -> T:
        """Wait for the next key and mark it in flight; pair every call with ``done``.

        Raises ``ShutDown`` when the queue is shut down and nothing is queued.
        """
        queue = self._queue
        while not queue:
            if self._shutting_down:
                raise ShutDown(f"work queue {self._name!r} is shut down")
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._getters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.cancelled():
                    self._remove_getter(waiter)
                elif queue:
                    # We were woken for a key but cancelled before taking it: pass it on.
                    self._wake_getter()
                raise
        item = queue.popleft()
        self._processing.add(item)
        self._dirty.discard(item)
        if self._metrics is not None:
            self._metrics.got(item)
            self._start_ticker()
        return item

    def done(self, item: T) -> None:
        """Finish the in-flight ``item``; if it was added meanwhile, queue it again now."""
        processing = self._processing
        if item not in processing:
            return
        if self._metrics is not None:
            self._metrics.finished(item)
        processing.remove(item)
        if item in self._dirty:
            self._queue.append(item)
            if self._getters:
                self._wake_getter()
        if not processing and self._drainers:
            self._release_drainers()

    def shut_down(self) -> None:
        """Stop accepting keys and wake every waiting ``get``; returns at once.

        Also releases any ``shut_down_with_drain`` still waiting, as client-go does.
        """
        self._begin_shutdown()
        self._release_drainers()
        self._stop_ticker()

    async def shut_down_with_drain(self) -> None:
        """Shut down, then wait until every handed-out key is ``done``.

        Keys still queued do not hold this up; consumers may keep getting them.
        """
        self._begin_shutdown()
        if self._processing:
            drained: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._drainers.append(drained)
            try:
                await drained
            finally:
                if drained in self._drainers:
                    self._drainers.remove(drained)
        self._stop_ticker()

    def _begin_shutdown(self) -> None:
        self._shutting_down = True
        getters, self._getters = self._getters, deque()
        for waiter in getters:
            if not waiter.done():
                waiter.set_result(None)
        self._on_shut_down()

    def _on_shut_down(self) -> None:
        """Hook for subclasses: stop background work that feeds the queue."""

    def _wake_getter(self) -> None:
        getters = self._getters
        while getters:
            waiter = getters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _remove_getter(self, waiter: asyncio.Future[None]) -> None:
        # Already gone when _wake_getter popped it or a shutdown swapped the deque.
        with contextlib.suppress(ValueError):
            self._getters.remove(waiter)

    def _release_drainers(self) -> None:
        drainers, self._drainers = self._drainers, []
        for drained in drainers:
            if not drained.done():
                drained.set_result(None)

    def _start_ticker(self) -> None:
        """Refresh the in-flight gauges periodically, once a loop is running and work exists."""
        if self._ticker is not None or self._shutting_down:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # add() from synchronous setup code; started by the next add in the loop
        self._ticker = loop.create_task(self._update_unfinished_work())

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    async def _update_unfinished_work(self) -> None:
        metrics = self._metrics
        assert metrics is not None  # started only for instrumented queues
        while True:
            await self._clock.sleep(UNFINISHED_WORK_UPDATE_PERIOD)
            metrics.update_unfinished_work()
