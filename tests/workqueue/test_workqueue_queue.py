"""``WorkQueue``: de-duplication, one consumer per key, shutdown and drain, cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from kubeforge.core.refs import ObjectKey
from kubeforge.workqueue import ShutDown, WorkQueue

Settle = Callable[[], Awaitable[None]]


async def test_keys_come_out_in_the_order_they_were_added() -> None:
    queue: WorkQueue[str] = WorkQueue()
    for key in ("a", "b", "c"):
        queue.add(key)
    assert [await queue.get() for _ in range(3)] == ["a", "b", "c"]


async def test_adding_a_key_that_is_already_waiting_merges_it() -> None:
    queue: WorkQueue[ObjectKey] = WorkQueue()
    key = ObjectKey("default", "web-0")
    queue.add(key)
    queue.add(ObjectKey("default", "web-0"))
    assert len(queue) == 1
    assert await queue.get() == key
    assert len(queue) == 0


async def test_a_key_added_while_in_flight_is_held_back_until_done() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add("a")
    assert await queue.get() == "a"
    queue.add("a")
    queue.add("a")
    assert len(queue) == 0  # dirty, but not queued: nobody else may take it yet
    queue.done("a")
    assert len(queue) == 1
    assert await queue.get() == "a"
    queue.done("a")
    assert len(queue) == 0


async def test_done_for_a_key_not_in_flight_changes_nothing() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add("a")
    queue.done("a")
    queue.done("never-added")
    assert len(queue) == 1
    assert await queue.get() == "a"


async def test_a_blocked_get_receives_the_next_added_key(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue()
    getter = asyncio.create_task(queue.get())
    await settle()
    assert not getter.done()
    queue.add("a")
    assert await getter == "a"


async def test_blocked_getters_are_served_first_come_first_served(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue()
    first = asyncio.create_task(queue.get())
    await settle()
    second = asyncio.create_task(queue.get())
    await settle()
    queue.add("a")
    queue.add("b")
    assert (await first, await second) == ("a", "b")


async def test_keys_queued_before_shutdown_are_still_handed_out() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add("a")
    queue.add("b")
    queue.shut_down()
    assert queue.shutting_down
    queue.add("c")  # ignored
    assert await queue.get() == "a"
    assert await queue.get() == "b"
    with pytest.raises(ShutDown):
        await queue.get()


async def test_shutdown_wakes_every_blocked_get_with_shutdown(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue(name="pods")
    getters = [asyncio.create_task(queue.get()) for _ in range(3)]
    await settle()
    queue.shut_down()
    results = await asyncio.gather(*getters, return_exceptions=True)
    assert all(isinstance(result, ShutDown) for result in results)


async def test_an_in_flight_key_added_before_shutdown_is_handed_out_after_done() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add("a")
    await queue.get()
    queue.add("a")
    queue.shut_down()
    queue.done("a")
    assert await queue.get() == "a"


async def test_shut_down_with_drain_waits_for_every_in_flight_key(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue()
    for key in ("a", "b", "c"):
        queue.add(key)
    a = await queue.get()
    b = await queue.get()
    drain = asyncio.create_task(queue.shut_down_with_drain())
    await settle()
    assert not drain.done()
    assert queue.shutting_down
    queue.add("d")
    assert len(queue) == 1  # only "c": adds are ignored while draining
    queue.done(a)
    await settle()
    assert not drain.done()
    c = await queue.get()  # queued keys are still handed out during the drain
    queue.done(b)
    await settle()
    assert not drain.done()
    queue.done(c)
    await drain


async def test_shut_down_with_drain_returns_at_once_when_nothing_is_in_flight() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add("a")
    await queue.shut_down_with_drain()
    assert await queue.get() == "a"


async def test_shut_down_releases_a_waiting_drain(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add("a")
    await queue.get()
    drain = asyncio.create_task(queue.shut_down_with_drain())
    await settle()
    assert not drain.done()
    queue.shut_down()
    await drain


async def test_a_cancelled_get_does_not_consume_a_key(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue()
    cancelled = asyncio.create_task(queue.get())
    await settle()
    cancelled.cancel()
    await settle()
    queue.add("a")
    assert len(queue) == 1
    assert await queue.get() == "a"


async def test_a_get_cancelled_after_being_woken_passes_the_key_on(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue()
    first = asyncio.create_task(queue.get())
    await settle()
    second = asyncio.create_task(queue.get())
    await settle()
    queue.add("a")  # wakes `first`, which is cancelled before it can run
    first.cancel()
    assert await second == "a"
    assert first.cancelled()


async def test_a_woken_get_that_lost_its_key_waits_for_the_next_one(settle: Settle) -> None:
    queue: WorkQueue[str] = WorkQueue()
    blocked = asyncio.create_task(queue.get())
    await settle()
    queue.add("a")
    assert await queue.get() == "a"  # taken synchronously before `blocked` runs
    await settle()
    assert not blocked.done()
    queue.add("b")
    assert await blocked == "b"


async def test_concurrent_workers_never_hold_the_same_key_at_once() -> None:
    queue: WorkQueue[int] = WorkQueue()
    in_flight: set[int] = set()
    handled: list[int] = []
    overlaps: list[int] = []

    async def worker(worker_id: int) -> None:
        while True:
            try:
                key = await queue.get()
            except ShutDown:
                return
            if key in in_flight:
                overlaps.append(key)
            in_flight.add(key)
            for _ in range((key + worker_id) % 4):  # uneven work, in loop turns
                await asyncio.sleep(0)
            handled.append(key)
            in_flight.discard(key)
            queue.done(key)

    workers = [asyncio.create_task(worker(i)) for i in range(4)]
    for round_ in range(50):
        for key in range(8):
            queue.add((key * 7 + round_) % 8)
        await asyncio.sleep(0)
    queue.shut_down()
    await asyncio.gather(*workers)
    assert overlaps == []
    assert set(handled) == set(range(8))


def test_repr_names_the_queue_and_its_counts() -> None:
    queue: WorkQueue[str] = WorkQueue(name="podtoip")
    queue.add("a")
    assert repr(queue) == ("WorkQueue(name='podtoip', queued=1, processing=0, shutting_down=False)")
