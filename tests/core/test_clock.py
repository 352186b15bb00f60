"""The clock: ``MonotonicClock`` follows real time; ``FakeClock`` moves only when told."""

from __future__ import annotations

import asyncio

import pytest

from kubeforge.core.clock import Clock, FakeClock, MonotonicClock


async def _yield_to_loop(turns: int = 5) -> None:
    for _ in range(turns):
        await asyncio.sleep(0)


def test_both_clocks_satisfy_the_clock_protocol() -> None:
    assert isinstance(MonotonicClock(), Clock)
    assert isinstance(FakeClock(), Clock)


async def test_monotonic_clock_never_goes_back_and_its_sleep_returns() -> None:
    clock = MonotonicClock()
    before = clock.now()
    await clock.sleep(0)
    await clock.sleep(-1.0)
    await clock.sleep(0.001)
    assert clock.now() >= before


def test_fake_clock_starts_where_told_and_moves_only_on_advance() -> None:
    clock = FakeClock(start=100.0)
    assert clock.now() == 100.0
    clock.advance(2.5)
    assert clock.now() == 102.5


def test_fake_clock_refuses_to_go_back() -> None:
    with pytest.raises(ValueError, match="cannot go back"):
        FakeClock().advance(-0.1)


async def test_advance_wakes_only_sleepers_whose_deadline_passed() -> None:
    clock = FakeClock()
    short = asyncio.create_task(clock.sleep(1.0))
    long = asyncio.create_task(clock.sleep(5.0))
    await clock.wait_for_sleepers(2)
    clock.advance(1.0)
    await _yield_to_loop()
    assert short.done()
    assert not long.done()
    assert clock.sleepers == 1
    clock.advance(4.0)
    await _yield_to_loop()
    assert long.done()
    assert clock.sleepers == 0


async def test_sleepers_wake_in_deadline_order_then_in_the_order_they_slept() -> None:
    clock = FakeClock()
    woke: list[str] = []

    async def sleeper(label: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append(label)

    tasks = [
        asyncio.create_task(sleeper("c", 3.0)),
        asyncio.create_task(sleeper("a1", 1.0)),
        asyncio.create_task(sleeper("b", 2.0)),
        asyncio.create_task(sleeper("a2", 1.0)),
    ]
    await clock.wait_for_sleepers(4)
    clock.advance(10.0)
    await asyncio.gather(*tasks)
    assert woke == ["a1", "a2", "b", "c"]


async def test_woken_sleepers_read_the_advanced_time() -> None:
    clock = FakeClock()

    async def sleep_then_read() -> float:
        await clock.sleep(1.0)
        return clock.now()

    task = asyncio.create_task(sleep_then_read())
    await clock.wait_for_sleepers(1)
    clock.advance(3.0)
    assert await task == 3.0


async def test_a_zero_or_negative_sleep_returns_without_advancing() -> None:
    clock = FakeClock()
    await clock.sleep(0)
    await clock.sleep(-5)
    assert clock.sleepers == 0
    assert clock.now() == 0.0


async def test_a_cancelled_sleep_is_no_longer_counted() -> None:
    clock = FakeClock()
    task = asyncio.create_task(clock.sleep(1.0))
    await clock.wait_for_sleepers(1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert clock.sleepers == 0
    assert clock.next_deadline is None


async def test_next_deadline_is_the_earliest_pending_one() -> None:
    clock = FakeClock(start=10.0)
    tasks = [asyncio.create_task(clock.sleep(s)) for s in (4.0, 2.0)]
    await clock.wait_for_sleepers(2)
    assert clock.next_deadline == 12.0
    clock.advance(5.0)
    await asyncio.gather(*tasks)
    assert clock.next_deadline is None


async def test_wait_for_sleepers_returns_once_enough_tasks_sleep() -> None:
    clock = FakeClock()
    waiter = asyncio.create_task(clock.wait_for_sleepers(2))
    first = asyncio.create_task(clock.sleep(1.0))
    await _yield_to_loop()
    assert not waiter.done()
    second = asyncio.create_task(clock.sleep(1.0))
    await waiter
    clock.advance(1.0)
    await asyncio.gather(first, second)


async def test_advancing_to_a_deadline_computed_in_floating_point_wakes_the_sleeper() -> None:
    clock = FakeClock(start=0.1)
    target = 0.3
    task = asyncio.create_task(clock.sleep(target - clock.now()))
    await clock.wait_for_sleepers(1)
    clock.advance(0.2)  # 0.1 + 0.2 is not exactly 0.3 in binary floating point
    await task
    assert clock.sleepers == 0
