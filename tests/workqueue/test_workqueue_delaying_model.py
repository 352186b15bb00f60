"""``DelayingQueue`` against a model: random delayed adds and clock steps, then the output order.

The model keeps, per waiting key, its ready time and the order of the call that
set it; a clock step releases every key now due, by (ready time, call order),
into a plain de-duplicating FIFO. The real queue, driven by a ``FakeClock``,
must hand out exactly the same keys in exactly the same order.
"""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from kubeforge.core.clock import FakeClock
from kubeforge.workqueue import DelayingQueue

# Delays and steps are multiples of 1/4 s, so the model's sums are exact.
_delays = st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.75, 3.0])
_operations = st.lists(
    st.one_of(
        st.tuples(st.just("add_after"), st.integers(0, 5), _delays),
        st.tuples(st.just("add"), st.integers(0, 5), st.just(0.0)),
        st.tuples(st.just("advance"), st.just(0), st.sampled_from([0.25, 0.5, 1.0, 2.0])),
        st.tuples(st.just("drain"), st.just(0), st.just(0.0)),
    ),
    max_size=50,
)


async def _settle() -> None:
    for _ in range(8):
        await asyncio.sleep(0)


async def _run(operations: list[tuple[str, int, float]]) -> tuple[list[int], list[int]]:
    clock = FakeClock()
    queue: DelayingQueue[int] = DelayingQueue(clock=clock)
    now = 0.0
    order = 0
    waiting: dict[int, tuple[float, int]] = {}
    fifo: list[int] = []
    expected: list[int] = []
    actual: list[int] = []

    def model_add(key: int) -> None:
        if key not in fifo:
            fifo.append(key)

    for name, key, amount in operations:
        if name == "add":
            queue.add(key)
            model_add(key)
        elif name == "add_after":
            queue.add_after(key, amount)
            order += 1
            if amount <= 0:
                model_add(key)
            elif key not in waiting or now + amount < waiting[key][0]:
                waiting[key] = (now + amount, order)
        elif name == "advance":
            await _settle()  # the timer must be asleep before time moves
            clock.advance(amount)
            now += amount
            for due in sorted((k for k in waiting if waiting[k][0] <= now), key=waiting.get):
                del waiting[due]
                model_add(due)
        else:
            await _settle()
            while len(queue):
                item = await queue.get()
                queue.done(item)
                actual.append(item)
            expected.extend(fifo)
            fifo.clear()
        await _settle()
        assert len(queue) == len(fifo)
        assert queue.waiting == len(waiting)
    queue.shut_down()
    return expected, actual


@settings(max_examples=200, deadline=None)
@given(_operations)
def test_the_delaying_queue_releases_keys_like_the_model(
    operations: list[tuple[str, int, float]],
) -> None:
    expected, actual = asyncio.run(_run(operations))
    assert actual == expected
