"""The one source of time in kubeforge: ``Clock``, with ``MonotonicClock`` and ``FakeClock``.

Everything that sleeps, backs off or times out takes a ``Clock`` instead of
calling ``time`` or ``asyncio.sleep`` itself, so tests can move time by hand
(client-go injects its clock the same way). See ``Clock`` for the protocol and
``FakeClock`` for deterministic tests.

>>> clock = FakeClock()
>>> clock.advance(2.5)
>>> clock.now()
2.5
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "FakeClock", "MonotonicClock"]

# Deadlines within a nanosecond of ``now`` count as reached: ``now + (t - now)`` can
# round one ulp past ``t``, and that must not strand a sleeper a test advanced to ``t``.
_TOLERANCE = 1e-9


@runtime_checkable
class Clock(Protocol):
    """Monotonic time in seconds and a way to wait for it to pass."""

    def now(self) -> float:
        """Seconds on a monotonic scale; only differences between readings mean anything."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return once ``seconds`` have passed on this clock; ``<= 0`` only yields to the loop."""
        ...


class MonotonicClock:
    """The real clock: ``time.monotonic()`` and ``asyncio.sleep``."""

    __slots__ = ()

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(seconds, 0.0))

    def __repr__(self) -> str:
        return "MonotonicClock()"


class FakeClock:
    """A clock that moves only when a test calls ``advance``.

    *Guarantees*: ``advance`` wakes every sleeper whose deadline has been
    reached, earliest deadline first (ties in the order they began sleeping).
    Woken sleepers resume on the event loop's next turns, and they all read the
    new ``now()``, as with client-go's fake clock ``Step``.

    *Helpers*: ``sleepers`` counts pending sleeps, ``next_deadline`` is the
    earliest one, and ``await wait_for_sleepers(n)`` returns once ``n`` tasks are
    asleep, which is the point at which advancing time is meaningful.

    *Caveats*: use it from one event loop; a sleep cancelled before its
    deadline is forgotten.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        # Min-heap of (deadline, sequence, future); the sequence breaks ties in sleep order.
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        # Futures of ``wait_for_sleepers`` callers, keyed by how many sleepers they need.
        self._watchers: list[tuple[int, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (self._now + seconds, next(self._seq), future))
        self._notify_watchers()
        try:
            await future
        finally:
            if not future.done():
                # Cancelled while asleep: drop the entry so ``sleepers`` stays exact.
                future.cancel()
                self._heap = [entry for entry in self._heap if entry[2] is not future]
                heapq.heapify(self._heap)

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` and wake every sleeper that is now due."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds} s)")
        self._now += seconds
        heap = self._heap
        while heap and heap[0][0] <= self._now + _TOLERANCE:
            future = heapq.heappop(heap)[2]
            if not future.done():
                future.set_result(None)

    @property
    def sleepers(self) -> int:
        """How many sleeps are pending."""
        return sum(1 for entry in self._heap if not entry[2].done())

    @property
    def next_deadline(self) -> float | None:
        """The earliest pending deadline, or ``None`` when nobody sleeps."""
        pending = [entry[0] for entry in self._heap if not entry[2].done()]
        return min(pending) if pending else None

    async def wait_for_sleepers(self, count: int = 1) -> None:
        """Return once at least ``count`` sleeps are pending (no real time passes)."""
        if self.sleepers >= count:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._watchers.append((count, future))
        try:
            await future
        finally:
            self._watchers = [w for w in self._watchers if w[1] is not future]

    def _notify_watchers(self) -> None:
        if not self._watchers:
            return
        pending = self.sleepers
        for count, future in self._watchers:
            if count <= pending and not future.done():
                future.set_result(None)

    def __repr__(self) -> str:
        return f"FakeClock(now={self._now!r}, sleepers={self.sleepers})"
