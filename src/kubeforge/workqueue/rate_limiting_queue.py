"""``RateLimitingQueue``: a ``DelayingQueue`` that asks a ``RateLimiter`` how long to delay.

This is the queue a controller owns. See ``RateLimitingQueue.add_rate_limited``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar

from kubeforge.core.clock import Clock
from kubeforge.workqueue.delaying import DelayingQueue
from kubeforge.workqueue.metrics import MetricsProvider
from kubeforge.workqueue.rate_limiters import RateLimiter, default_controller_rate_limiter

__all__ = ["RateLimitingQueue"]

T = TypeVar("T", bound=Hashable)


class RateLimitingQueue(DelayingQueue[T]):
    """A ``DelayingQueue`` with per-key retry backoff.

    A controller's worker calls ``add_rate_limited(key)`` when a reconcile fails
    and ``forget(key)`` when it succeeds, then ``done(key)`` in both cases.

    *Caveats*: ``forget`` only clears the backoff history; it never removes the key
    from the queue or from the waiting heap.
    """

    def __init__(
        self,
        rate_limiter: RateLimiter[T] | None = None,
        *,
        name: str = "",
        clock: Clock | None = None,
        metrics: MetricsProvider | None = None,
    ) -> None:
        """``rate_limiter`` defaults to ``default_controller_rate_limiter()`` on ``clock``."""
        super().__init__(name=name, clock=clock, metrics=metrics)
        self._rate_limiter: RateLimiter[T] = (
            rate_limiter
            if rate_limiter is not None
            else default_controller_rate_limiter(self._clock)
        )

    @property
    def rate_limiter(self) -> RateLimiter[T]:
        return self._rate_limiter

    def add_rate_limited(self, item: T) -> None:
        """Add ``item`` after the delay the rate limiter gives it (one more failure)."""
        # The limiter is consulted even while shutting down, as in client-go; the
        # add itself is then ignored.
        self.add_after(item, self._rate_limiter.when(item))

    def forget(self, item: T) -> None:
        """Reset ``item``'s backoff; it stays queued or waiting if it is."""
        self._rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self._rate_limiter.num_requeues(item)
