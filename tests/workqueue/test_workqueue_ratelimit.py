"""Rate limiters and ``RateLimitingQueue``: client-go's delay sequences on a fake clock."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable

import pytest

from kubeforge.core.clock import FakeClock
from kubeforge.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimitingQueue,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
)

Settle = Callable[[], Awaitable[None]]


def test_exponential_backoff_doubles_from_the_base_per_key() -> None:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter()
    assert [limiter.when("a") for _ in range(5)] == [0.005, 0.01, 0.02, 0.04, 0.08]
    assert limiter.when("b") == 0.005  # keys back off independently
    assert limiter.num_requeues("a") == 5
    assert limiter.num_requeues("b") == 1
    assert limiter.num_requeues("never") == 0


def test_exponential_backoff_stops_at_the_cap() -> None:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter()
    delays = [limiter.when("a") for _ in range(20)]
    assert delays[17] == pytest.approx(655.36)  # 5 ms * 2**17
    assert delays[18:] == [1000.0, 1000.0]


def test_exponential_backoff_survives_thousands_of_failures() -> None:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter(1.0, 60.0)
    for _ in range(3000):
        delay = limiter.when("a")
    assert delay == 60.0


def test_forget_restarts_the_backoff_of_that_key_only() -> None:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter()
    for _ in range(3):
        limiter.when("a")
        limiter.when("b")
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0
    assert limiter.when("a") == 0.005
    assert limiter.when("b") == 0.04


def test_the_item_based_default_starts_at_one_millisecond() -> None:
    limiter = default_item_based_rate_limiter()
    assert [limiter.when("a") for _ in range(3)] == [0.001, 0.002, 0.004]


def test_bucket_allows_a_burst_then_spaces_retries_by_one_over_qps(clock: FakeClock) -> None:
    limiter = BucketRateLimiter(qps=10.0, burst=100, clock=clock)
    assert [limiter.when(i) for i in range(100)] == [0.0] * 100
    assert [limiter.when(i) for i in range(3)] == pytest.approx([0.1, 0.2, 0.3])
    assert limiter.num_requeues(0) == 0


def test_bucket_refills_at_qps_but_never_beyond_the_burst(clock: FakeClock) -> None:
    limiter = BucketRateLimiter(qps=10.0, burst=100, clock=clock)
    for i in range(101):
        limiter.when(i)  # one token in debt
    clock.advance(1.0)  # +10 tokens: 9 left after paying the debt
    assert [limiter.when(i) for i in range(10)] == pytest.approx([0.0] * 9 + [0.1])
    clock.advance(3600.0)
    assert [limiter.when(i) for i in range(101)][-2:] == pytest.approx([0.0, 0.1])


def test_bucket_rejects_a_rate_or_burst_it_cannot_honour() -> None:
    with pytest.raises(ValueError, match="qps"):
        BucketRateLimiter(qps=0)
    with pytest.raises(ValueError, match="burst"):
        BucketRateLimiter(burst=0)


def test_an_infinite_rate_never_delays(clock: FakeClock) -> None:
    limiter = BucketRateLimiter(qps=float("inf"), burst=1, clock=clock)
    assert [limiter.when(i) for i in range(5)] == [0.0] * 5


def test_fast_slow_uses_the_fast_delay_for_the_first_attempts() -> None:
    limiter: ItemFastSlowRateLimiter[str] = ItemFastSlowRateLimiter(0.1, 10.0, 3)
    assert [limiter.when("a") for _ in range(5)] == [0.1, 0.1, 0.1, 10.0, 10.0]
    assert limiter.num_requeues("a") == 5
    limiter.forget("a")
    assert limiter.when("a") == 0.1


def test_max_of_takes_the_longest_delay_and_every_limiter_counts(clock: FakeClock) -> None:
    slow: ItemFastSlowRateLimiter[str] = ItemFastSlowRateLimiter(0.0, 3.0, 2)
    exponential: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter(1.0)
    limiter = MaxOfRateLimiter(slow, exponential)
    assert [limiter.when("a") for _ in range(4)] == [1.0, 2.0, 4.0, 8.0]
    assert limiter.num_requeues("a") == 4
    limiter.forget("a")
    assert (slow.num_requeues("a"), exponential.num_requeues("a")) == (0, 0)


def test_max_of_needs_a_limiter() -> None:
    with pytest.raises(ValueError, match="at least one"):
        MaxOfRateLimiter[str]()


def test_with_max_wait_caps_another_limiter() -> None:
    inner: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter(1.0)
    limiter = WithMaxWaitRateLimiter(inner, 3.0)
    assert [limiter.when("a") for _ in range(4)] == [1.0, 2.0, 3.0, 3.0]
    assert limiter.num_requeues("a") == 4
    limiter.forget("a")
    assert inner.num_requeues("a") == 0


def test_the_controller_default_is_exponential_until_the_bucket_runs_dry(
    clock: FakeClock,
) -> None:
    limiter = default_controller_rate_limiter(clock)
    assert [limiter.when("a") for _ in range(3)] == [0.005, 0.01, 0.02]
    assert [limiter.when(i) for i in range(97)] == [0.005] * 97
    assert limiter.when("b") == pytest.approx(0.1)  # 101st call: the bucket's delay wins
    assert limiter.num_requeues("a") == 3
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0


async def test_add_rate_limited_waits_for_the_limiters_delay(
    clock: FakeClock, settle: Settle
) -> None:
    queue: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
    queue.add_rate_limited("a")
    assert queue.num_requeues("a") == 1
    await clock.wait_for_sleepers(1)
    clock.advance(0.004)
    await settle()
    assert len(queue) == 0
    clock.advance(0.001)
    assert await queue.get() == "a"
    queue.add_rate_limited("a")  # second failure: 10 ms, held until done anyway
    queue.done("a")
    await clock.wait_for_sleepers(1)
    assert clock.next_deadline == pytest.approx(0.015)


async def test_the_default_limiter_runs_on_the_queues_clock(
    clock: FakeClock, settle: Settle
) -> None:
    queue: RateLimitingQueue[int] = RateLimitingQueue(clock=clock)
    for key in range(101):
        queue.add_rate_limited(key)
    await clock.wait_for_sleepers(1)
    clock.advance(0.005)
    await settle()
    assert (len(queue), queue.waiting) == (100, 1)
    clock.advance(0.095)
    await settle()
    assert len(queue) == 101


async def test_forget_resets_backoff_but_leaves_the_key_queued(clock: FakeClock) -> None:
    limiter: ItemExponentialFailureRateLimiter[Hashable] = ItemExponentialFailureRateLimiter()
    queue: RateLimitingQueue[str] = RateLimitingQueue(limiter, clock=clock)
    assert queue.rate_limiter is limiter
    queue.add_rate_limited("a")
    queue.add("a")
    queue.forget("a")
    assert queue.num_requeues("a") == 0
    assert (len(queue), queue.waiting) == (1, 1)
