"""How long to wait before retrying a failed list or watch. See ``ExponentialBackoff``.

The default mirrors client-go's reflector (``NewExponentialBackoffManager(800ms,
30s, 2min, 2.0, 1.0)``) and kube-rs's ``DefaultBackoff``: 0.8 s doubling up to
30 s, each delay stretched by up to +100 % random jitter, and back to 0.8 s once
two minutes pass without a failure. Time comes from an injected ``Clock``.
"""

from __future__ import annotations

import random
from typing import Protocol

from kubeforge.core.clock import Clock, MonotonicClock

__all__ = ["Backoff", "ExponentialBackoff"]


class Backoff(Protocol):
    """Hands out the delay before the next retry; one call per failure."""

    def next_delay(self) -> float:
        """Seconds to wait before retrying after the failure that just happened."""
        ...

    def reset(self) -> None:
        """Forget past failures: the next delay is the initial one again."""
        ...


class ExponentialBackoff:
    """Exponential backoff with jitter that resets after a quiet period.

    **Guarantees**: the n-th consecutive delay (without jitter) is
    ``min(initial * factor**(n-1), maximum)``; jitter only lengthens a delay,
    by at most ``jitter`` times itself; if ``reset_after`` seconds passed since
    the previous failure, the sequence starts again from ``initial``.
    """

    def __init__(
        self,
        *,
        initial: float = 0.8,
        maximum: float = 30.0,
        factor: float = 2.0,
        jitter: float = 1.0,
        reset_after: float = 120.0,
        clock: Clock | None = None,
    ) -> None:
        if initial <= 0 or maximum < initial or factor < 1 or jitter < 0:
            raise ValueError("backoff needs 0 < initial <= maximum, factor >= 1, jitter >= 0")
        self.initial = initial
        self.maximum = maximum
        self.factor = factor
        self.jitter = jitter
        self.reset_after = reset_after
        self._clock = clock or MonotonicClock()
        self._next = initial
        self._last_failure: float | None = None

    def next_delay(self) -> float:
        now = self._clock.now()
        # A long healthy stretch since the last failure means this one starts a new
        # episode: client-go's resetDuration, kube-rs's ResetTimerBackoff.
        if self._last_failure is not None and now - self._last_failure >= self.reset_after:
            self._next = self.initial
        self._last_failure = now
        delay = self._next
        self._next = min(self._next * self.factor, self.maximum)
        # Jitter is added on top of the cap, as wait.Backoff.Step does, so many
        # watchers failing together spread their retries out.
        return delay + delay * self.jitter * random.random()

    def reset(self) -> None:
        self._next = self.initial
        self._last_failure = None
