"""Rate limiters: how long a key waits before its next retry.

See ``default_controller_rate_limiter()`` for what controllers use: the larger
of a per-key exponential backoff (5 ms doubling to 1000 s) and a global token
bucket (10 per second, bursts of 100), as client-go and controller-runtime do.

>>> limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter()
>>> [limiter.when("a") for _ in range(4)], limiter.num_requeues("a")
([0.005, 0.01, 0.02, 0.04], 4)
>>> limiter.forget("a"); limiter.when("a")
0.005
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar

from kubeforge.core.clock import Clock, MonotonicClock

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "WithMaxWaitRateLimiter",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
]

T = TypeVar("T", bound=Hashable)
T_contra = TypeVar("T_contra", bound=Hashable, contravariant=True)


class RateLimiter(Protocol[T_contra]):
    """Decides each retry's delay; the queue calls it from one event loop thread."""

    def when(self, item: T_contra) -> float:
        """Seconds to wait before ``item`` is retried; counts as one more failure."""
        ...

    def forget(self, item: T_contra) -> None:
        """``item`` succeeded: clear its failure history (it stays wherever it is queued)."""
        ...

    def num_requeues(self, item: T_contra) -> int:
        """How many failures ``item`` has had since it was last forgotten."""
        ...


class ItemExponentialFailureRateLimiter(Generic[T]):
    """``base * 2**failures``, capped at ``max_delay``: 5 ms, 10 ms, 20 ms, ... by default."""

    __slots__ = ("_base", "_failures", "_max_delay")

    def __init__(self, base: float = 0.005, max_delay: float = 1000.0) -> None:
        if base < 0 or max_delay < 0:
            raise ValueError("delays must not be negative")
        self._base = base
        self._max_delay = max_delay
        self._failures: dict[T, int] = {}

    def when(self, item: T) -> float:
        exponent = self._failures.get(item, 0)
        self._failures[item] = exponent + 1
        try:
            backoff = math.ldexp(self._base, exponent)
        except OverflowError:
            return self._max_delay  # thousands of failures: the cap has long applied
        return min(backoff, self._max_delay)

    def forget(self, item: T) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: T) -> int:
        return self._failures.get(item, 0)


class ItemFastSlowRateLimiter(Generic[T]):
    """``fast`` for the first ``max_fast_attempts`` failures of a key, ``slow`` after."""

    __slots__ = ("_failures", "_fast", "_max_fast_attempts", "_slow")

    def __init__(self, fast: float, slow: float, max_fast_attempts: int) -> None:
        self._fast = fast
        self._slow = slow
        self._max_fast_attempts = max_fast_attempts
        self._failures: dict[T, int] = {}

    def when(self, item: T) -> float:
        failures = self._failures.get(item, 0) + 1
        self._failures[item] = failures
        return self._fast if failures <= self._max_fast_attempts else self._slow

    def forget(self, item: T) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: T) -> int:
        return self._failures.get(item, 0)


class BucketRateLimiter:
    """One token bucket for all keys: ``burst`` at once, then ``qps`` per second.

    Every ``when`` takes a token, going into debt when none is left, so the delays
    it returns space retries ``1 / qps`` apart (golang.org/x/time/rate's
    ``Reserve().Delay()``). The bucket starts full. It keeps no per-key state:
    ``num_requeues`` is always 0 and ``forget`` does nothing.
    """

    __slots__ = ("_burst", "_clock", "_last", "_qps", "_tokens")

    def __init__(self, qps: float = 10.0, burst: int = 100, clock: Clock | None = None) -> None:
        if qps <= 0:
            raise ValueError(f"qps must be positive, got {qps}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst}")
        self._qps = qps
        self._burst = burst
        self._clock: Clock = clock if clock is not None else MonotonicClock()
        self._tokens = float(burst)
        self._last = self._clock.now()

    def when(self, item: Hashable) -> float:
        if math.isinf(self._qps):
            return 0.0
        now = self._clock.now()
        # Refill for the time since the last reservation, never beyond a full bucket.
        elapsed = max(now - self._last, 0.0)
        tokens = min(float(self._burst), self._tokens + elapsed * self._qps) - 1.0
        self._tokens = tokens
        self._last = now
        return 0.0 if tokens >= 0 else -tokens / self._qps

    def forget(self, item: Hashable) -> None:
        pass

    def num_requeues(self, item: Hashable) -> int:
        return 0


class MaxOfRateLimiter(Generic[T]):
    """The longest delay of several limiters; every one of them sees every call."""

    __slots__ = ("_limiters",)

    def __init__(self, *limiters: RateLimiter[T]) -> None:
        if not limiters:
            raise ValueError("MaxOfRateLimiter needs at least one limiter")
        self._limiters = limiters

    def when(self, item: T) -> float:
        # Ask all of them (no short-circuit): each one counts this failure.
        return max([limiter.when(item) for limiter in self._limiters])

    def forget(self, item: T) -> None:
        for limiter in self._limiters:
            limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return max(limiter.num_requeues(item) for limiter in self._limiters)


class WithMaxWaitRateLimiter(Generic[T]):
    """Another limiter's delay, never longer than ``max_wait``."""

    __slots__ = ("_limiter", "_max_wait")

    def __init__(self, limiter: RateLimiter[T], max_wait: float) -> None:
        self._limiter = limiter
        self._max_wait = max_wait

    def when(self, item: T) -> float:
        return min(self._limiter.when(item), self._max_wait)

    def forget(self, item: T) -> None:
        self._limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self._limiter.num_requeues(item)


def default_controller_rate_limiter(clock: Clock | None = None) -> RateLimiter[Hashable]:
    """Max of exponential (5 ms doubling, capped at 1000 s) and a 10 qps bucket of 100.

    The same limiter client-go's ``DefaultControllerRateLimiter`` and
    controller-runtime's controllers use; ``clock`` drives the bucket.
    """
    return MaxOfRateLimiter[Hashable](
        ItemExponentialFailureRateLimiter(0.005, 1000.0),
        BucketRateLimiter(qps=10.0, burst=100, clock=clock),
    )


def default_item_based_rate_limiter() -> RateLimiter[Hashable]:
    """Per-key exponential backoff only: 1 ms doubling, capped at 1000 s (client-go's)."""
    return ItemExponentialFailureRateLimiter[Hashable](0.001, 1000.0)
