"""``DelayingQueue``: a ``WorkQueue`` whose keys can be added after a delay on an injected clock.

See ``DelayingQueue.add_after``. Waiting keys sit in one heap ordered by the
time they become ready; a single timer task sleeps until the earliest of them,
so a million delayed keys cost a million heap entries and one task.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Hashable
from typing import TypeVar

from kubeforge.core.clock import Clock
from kubeforge.workqueue.metrics import MetricsProvider
from kubeforge.workqueue.queue import WorkQueue

__all__ = ["DelayingQueue"]

T = TypeVar("T", bound=Hashable)

# A key due within a nanosecond of now is released now: ``now + delay`` rounding can land
# one ulp after the instant a clock woke us for, and a real clock is never that precise.
_TOLERANCE = 1e-9


class DelayingQueue(WorkQueue[T]):
    """A ``WorkQueue`` plus ``add_after(item, delay)``.

    *Guarantees*: a key added with a delay is ``add``-ed (with the usual merging)
    once the clock reaches its ready time, earliest first and in call order among
    equal times. If the key is already waiting, the earlier of the two ready
    times wins. Waiting is separate from the queue: a key can be queued, or in
    flight, and waiting at the same time.

    *Caveats*: keys still waiting at shutdown are dropped. ``len()`` does not count
    waiting keys. ``add_after`` needs a running event loop when the delay is positive.
    """

    def __init__(
        self,
        *,
        name: str = "",
        clock: Clock | None = None,
        metrics: MetricsProvider | None = None,
    ) -> None:
        super().__init__(name=name, clock=clock, metrics=metrics)
        # Min-heap of (ready_at, seq, item). An entry is live only while _waiting[item]
        # still holds its seq; superseded entries stay in the heap and are skipped.
        self._heap: list[tuple[float, int, T]] = []
        self._waiting: dict[T, tuple[float, int]] = {}
        self._seq = 0
        # The one task sleeping until _timer_at, the earliest live ready time it knew of.
        self._timer: asyncio.Task[None] | None = None
        self._timer_at = 0.0

    @property
    def waiting(self) -> int:
        """How many keys wait for their delay to pass (not counted by ``len()``)."""
        return len(self._waiting)

    def add_after(self, item: T, delay: float) -> None:
        """Add ``item`` once ``delay`` seconds have passed; ``delay <= 0`` adds it now.

        Ignored while shutting down.
        """
        if self._shutting_down:
            return
        if self._metrics is not None:
            self._metrics.retried()
        if delay <= 0:
            self.add(item)
            return
        ready_at = self._clock.now() + delay
        current = self._waiting.get(item)
        if current is not None and current[0] <= ready_at:
            return  # already due earlier or at the same time: the earlier time wins
        self._arm(ready_at)  # first: without a running loop it raises before any state changes
        self._seq += 1
        self._waiting[item] = (ready_at, self._seq)
        heapq.heappush(self._heap, (ready_at, self._seq, item))

    def _arm(self, ready_at: float) -> None:
        """Make sure the timer wakes no later than ``ready_at``."""
        timer = self._timer
        if timer is not None and self._timer_at <= ready_at:
            return
        loop = asyncio.get_running_loop()
        if timer is not None:
            timer.cancel()  # only a key due sooner than the current timer costs a new task
        self._timer_at = ready_at
        self._timer = loop.create_task(self._wait_until(ready_at))

    async def _wait_until(self, ready_at: float) -> None:
        await self._clock.sleep(ready_at - self._clock.now())
        # A cancelled timer never gets here, so this task is still the current timer.
        self._timer = None
        self._release_due()

    def _release_due(self) -> None:
        heap = self._heap
        waiting = self._waiting
        now = self._clock.now() + _TOLERANCE
        while heap and heap[0][0] <= now:
            _, seq, item = heapq.heappop(heap)
            live = waiting.get(item)
            if live is not None and live[1] == seq:
                del waiting[item]
                self.add(item)
        # Drop superseded heads so the next timer sleeps until a key that is really waiting.
        while heap:
            _, seq, item = heap[0]
            live = waiting.get(item)
            if live is not None and live[1] == seq:
                self._arm(heap[0][0])
                return
            heapq.heappop(heap)

    def _on_shut_down(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._heap.clear()
        self._waiting.clear()
