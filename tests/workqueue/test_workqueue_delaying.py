"""``DelayingQueue``: keys released by the injected clock, earliest first, earlier time wins."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from kubeforge.core.clock import FakeClock
from kubeforge.workqueue import DelayingQueue, ShutDown

Settle = Callable[[], Awaitable[None]]


async def _drain_now(queue: DelayingQueue[str]) -> list[str]:
    keys = []
    while len(queue):
        key = await queue.get()
        queue.done(key)
        keys.append(key)
    return keys


async def test_a_delayed_key_is_released_when_the_clock_reaches_its_time(
    clock: FakeClock, settle: Settle
) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("a", 1.0)
    assert queue.waiting == 1
    await clock.wait_for_sleepers(1)
    clock.advance(0.999)
    await settle()
    assert len(queue) == 0
    clock.advance(0.001)
    assert await queue.get() == "a"
    assert queue.waiting == 0


async def test_a_zero_or_negative_delay_adds_at_once(clock: FakeClock) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("a", 0)
    queue.add_after("b", -3.0)
    assert len(queue) == 2
    assert queue.waiting == 0
    assert clock.sleepers == 0


async def test_delayed_keys_come_out_by_ready_time_then_call_order(
    clock: FakeClock, settle: Settle
) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("c", 3.0)
    queue.add_after("a", 1.0)
    queue.add_after("b1", 2.0)
    queue.add_after("b2", 2.0)
    await clock.wait_for_sleepers(1)
    clock.advance(10.0)
    await settle()
    assert await _drain_now(queue) == ["a", "b1", "b2", "c"]


async def test_the_earlier_ready_time_wins_for_a_key_already_waiting(
    clock: FakeClock, settle: Settle
) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("a", 5.0)
    queue.add_after("a", 1.0)  # earlier: replaces 5 s
    queue.add_after("a", 10.0)  # later: ignored
    assert queue.waiting == 1
    await clock.wait_for_sleepers(1)
    clock.advance(1.0)
    assert await queue.get() == "a"
    queue.done("a")
    clock.advance(10.0)  # neither the 5 s nor the 10 s request is still pending
    await settle()
    assert len(queue) == 0
    assert queue.waiting == 0


async def test_one_timer_serves_every_waiting_key(clock: FakeClock, settle: Settle) -> None:
    queue: DelayingQueue[int] = DelayingQueue(clock=clock)
    for key in range(1000):
        queue.add_after(key, 5.0 + key / 1000)
    await settle()
    assert clock.sleepers == 1
    queue.add_after(-1, 1.0)  # due sooner: the timer is replaced, not joined
    await settle()
    assert clock.sleepers == 1
    assert clock.next_deadline == 1.0
    clock.advance(7.0)
    await settle()
    assert len(queue) == 1001
    assert clock.sleepers == 0


async def test_keys_released_across_several_advances_arrive_as_their_times_pass(
    clock: FakeClock, settle: Settle
) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("late", 2.0)
    await clock.wait_for_sleepers(1)
    clock.advance(0.5)
    queue.add_after("soon", 0.25)  # due at 0.75, before "late"
    await settle()
    clock.advance(0.25)
    assert await queue.get() == "soon"
    await clock.wait_for_sleepers(1)
    clock.advance(1.25)
    assert await queue.get() == "late"


async def test_waiting_is_separate_from_the_queue(clock: FakeClock, settle: Settle) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add("a")
    queue.add_after("a", 1.0)
    assert (len(queue), queue.waiting) == (1, 1)
    assert await queue.get() == "a"
    await clock.wait_for_sleepers(1)
    clock.advance(1.0)
    await settle()
    assert len(queue) == 0  # released while in flight: held back until done
    queue.done("a")
    assert await queue.get() == "a"


async def test_a_release_merges_with_a_copy_already_queued(
    clock: FakeClock, settle: Settle
) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("a", 1.0)
    queue.add("a")
    await clock.wait_for_sleepers(1)
    clock.advance(1.0)
    await settle()
    assert len(queue) == 1


async def test_shutdown_drops_waiting_keys_and_ignores_new_ones(
    clock: FakeClock, settle: Settle
) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("a", 1.0)
    await clock.wait_for_sleepers(1)
    queue.shut_down()
    await settle()
    assert clock.sleepers == 0
    assert queue.waiting == 0
    queue.add_after("b", 1.0)
    queue.add_after("c", 0)
    assert queue.waiting == 0
    clock.advance(5.0)
    with pytest.raises(ShutDown):
        await queue.get()


async def test_shut_down_with_drain_also_stops_the_timer(clock: FakeClock, settle: Settle) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add("a")
    queue.add_after("b", 1.0)
    key = await queue.get()
    drain = asyncio.create_task(queue.shut_down_with_drain())
    await settle()
    assert clock.sleepers == 0
    assert queue.waiting == 0
    queue.done(key)
    await drain


def test_add_after_outside_an_event_loop_fails_without_losing_state() -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=FakeClock())
    with pytest.raises(RuntimeError):
        queue.add_after("a", 1.0)
    assert queue.waiting == 0
    queue.add_after("b", 0)  # no delay needs no loop
    assert len(queue) == 1
