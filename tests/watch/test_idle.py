"""IdleLimit: one timer per stream bounds each wait for the next item, never the time between."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from kubeforge.watch._idle import IdleLimit


async def _items(gaps: list[float]) -> AsyncIterator[int]:
    """Yields 0, 1, ... after sleeping each gap in turn, then stays silent forever."""
    for n, gap in enumerate(gaps):
        await asyncio.sleep(gap)
        yield n
    await asyncio.Event().wait()


async def test_a_silent_stream_raises_timeout_error_and_the_task_is_not_left_cancelled() -> None:
    limit = IdleLimit(0.05)
    stream = _items([0.0])
    try:
        assert await limit.next(stream) == 0
        with pytest.raises(TimeoutError):
            await limit.next(stream)
    finally:
        limit.close()
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    await asyncio.sleep(0)  # a cancellation left pending would surface here


async def test_items_within_the_limit_each_restart_it() -> None:
    # Four waits of 0.3 s against a 1 s limit: longer than the limit in all, no wait long
    # (wide margins: a loaded machine may stall the loop for a while).
    limit = IdleLimit(1.0)
    stream = _items([0.3] * 4)
    try:
        assert [await limit.next(stream) for _ in range(4)] == [0, 1, 2, 3]
    finally:
        limit.close()


async def test_time_spent_between_waits_does_not_count() -> None:
    limit = IdleLimit(0.05)
    stream = _items([0.0, 0.0])
    try:
        assert await limit.next(stream) == 0
        await asyncio.sleep(0.12)  # the caller is busy with the item, well past the limit
        assert await limit.next(stream) == 1
    finally:
        limit.close()


async def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    limit = IdleLimit(10.0)

    async def wait() -> int:
        try:
            return await limit.next(_items([]))
        finally:
            limit.close()

    task = asyncio.create_task(wait())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_close_drops_the_timer_so_a_finished_stream_is_never_cancelled() -> None:
    limit = IdleLimit(0.02)
    assert await limit.next(_items([0.0])) == 0
    limit.close()
    await asyncio.sleep(0.06)  # past the limit: nothing may fire into this task
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
