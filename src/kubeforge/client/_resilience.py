"""When to wait and when to try again: the client-side rate limiter and the retry policy.

``RateLimiter`` is client-go's token bucket (``qps`` tokens a second, up to
``burst`` saved); ``RetryPolicy.delay()`` decides whether a failed attempt is
retried and after how long. Both sleep on an injected ``Clock``.

The retry rules, and why:

- **429** (the server shed the request before doing anything): any verb, after
  ``Retry-After`` when the server gives one (APF always does), else backoff.
- **5xx with Retry-After** (the server says "try later", e.g. still starting): any
  verb, as client-go does.
- **5xx without it**: only reads (GET/HEAD); a write may have been applied, and
  repeating it would turn success into a misleading ``Conflict`` or ``NotFound``.
- **connection failures**: any verb when the request never left (refused, DNS,
  connect timeout); only reads when the connection broke after sending. TLS
  verification failures are never retried: they do not fix themselves.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping

from kubeforge.core.clock import Clock
from kubeforge.core.errors import ApiError

__all__ = ["RateLimiter", "RetryPolicy", "parse_retry_after"]

_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS"})
_RETRY_AFTER_CAP = 60.0  # a server asking for more is treated as asking for a minute


class RateLimiter:
    """Token bucket: ``wait()`` returns at once while tokens last, then paces to ``qps``.

    Waiters reserve their slot before sleeping, so concurrent callers are spread
    out instead of all waking together.
    """

    def __init__(self, qps: float, burst: int, clock: Clock) -> None:
        if qps <= 0:
            raise ValueError(f"qps must be positive, got {qps}")
        self.qps = qps
        self.burst = max(1, burst)
        self._clock = clock
        self._tokens = float(self.burst)
        self._stamp = clock.now()

    async def wait(self) -> None:
        now = self._clock.now()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.qps)
        self._stamp = now
        self._tokens -= 1.0
        if self._tokens < 0:
            await self._clock.sleep(-self._tokens / self.qps)


class RetryPolicy:
    """Backoff with jitter (``base`` doubling up to ``cap``); at most ``max_retries`` retries."""

    def __init__(self, max_retries: int, *, base: float = 0.1, cap: float = 5.0) -> None:
        self.max_retries = max(0, max_retries)
        self.base = base
        self.cap = cap

    def backoff(self, attempt: int) -> float:
        """Delay before retry number ``attempt`` (1-based): full jitter over the doubling step."""
        ceiling = min(self.cap, self.base * 2.0 ** (attempt - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def after_answer(
        self, method: str, error: ApiError, headers: Mapping[str, str], attempt: int
    ) -> float | None:
        """Seconds to wait before retrying a failed answer, or ``None`` to give up."""
        if attempt > self.max_retries:
            return None
        retry_after = parse_retry_after(headers.get("Retry-After"))
        if retry_after is None and error.retry_after_seconds is not None:
            retry_after = float(error.retry_after_seconds)
        code = error.code
        if code == 429 or (code >= 500 and retry_after is not None):
            return retry_after if retry_after is not None else self.backoff(attempt)
        if code in (500, 502, 503, 504) and method in _IDEMPOTENT:
            return self.backoff(attempt)
        return None

    def after_failure(self, method: str, error: BaseException, attempt: int) -> float | None:
        """Seconds to wait before retrying after a connection failure, or ``None``."""
        import aiohttp  # the error is aiohttp's (or a timeout): it is imported already

        if attempt > self.max_retries or isinstance(error, aiohttp.ClientSSLError):
            return None
        never_sent = isinstance(
            error, aiohttp.ClientConnectorError | aiohttp.ConnectionTimeoutError
        )
        broke = isinstance(
            error,
            aiohttp.ServerDisconnectedError | aiohttp.ClientOSError | aiohttp.ClientPayloadError,
        )
        if never_sent or (broke and method in _IDEMPOTENT):
            return self.backoff(attempt)
        return None


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: an integer, or an HTTP date (RFC 9110); capped at a minute."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(int(value))
    except ValueError:
        import email.utils  # only a date needs it, and servers send seconds

        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), _RETRY_AFTER_CAP)
