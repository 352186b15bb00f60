"""Per-queue metric bookkeeping: turns queue transitions into ``MetricsProvider`` calls.

See ``QueueMetrics.create``; it returns ``None`` for an uninstrumented queue so
the hot path pays one ``is None`` test and nothing more.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

from kubeforge.core.clock import Clock
from kubeforge.workqueue.metrics import MetricsProvider, NoopMetricsProvider

__all__ = ["UNFINISHED_WORK_UPDATE_PERIOD", "QueueMetrics"]

T = TypeVar("T", bound=Hashable)

UNFINISHED_WORK_UPDATE_PERIOD = 0.5
"""Seconds between refreshes of the in-flight gauges (client-go's 500 ms)."""


class QueueMetrics(Generic[T]):
    """Timestamps of queued and in-flight items, and the metric objects they feed."""

    __slots__ = (
        "_add_times",
        "_adds",
        "_clock",
        "_depth",
        "_latency",
        "_longest",
        "_retries",
        "_start_times",
        "_unfinished",
        "_work_duration",
    )

    def __init__(self, name: str, clock: Clock, provider: MetricsProvider) -> None:
        self._clock = clock
        self._depth = provider.new_depth_metric(name)
        self._adds = provider.new_adds_metric(name)
        self._latency = provider.new_latency_metric(name)
        self._work_duration = provider.new_work_duration_metric(name)
        self._unfinished = provider.new_unfinished_work_seconds_metric(name)
        self._longest = provider.new_longest_running_processor_seconds_metric(name)
        self._retries = provider.new_retries_metric(name)
        # First add of the current dirty period, per item: queue latency is measured from it.
        self._add_times: dict[T, float] = {}
        # When each in-flight item was handed out: work duration and unfinished work.
        self._start_times: dict[T, float] = {}

    @classmethod
    def create(
        cls, name: str, clock: Clock, provider: MetricsProvider | None
    ) -> QueueMetrics[T] | None:
        """``None`` when the queue is unnamed or has no real provider, as client-go decides."""
        if not name or provider is None or isinstance(provider, NoopMetricsProvider):
            return None
        return cls(name, clock, provider)

    def added(self, item: T) -> None:
        """``item`` became dirty (a de-duplicated add never gets here)."""
        self._adds.inc()
        self._depth.inc()
        if item not in self._add_times:
            self._add_times[item] = self._clock.now()

    def got(self, item: T) -> None:
        """``item`` was handed to a consumer."""
        now = self._clock.now()
        self._depth.dec()
        added_at = self._add_times.pop(item, None)
        if added_at is not None:
            self._latency.observe(now - added_at)
        self._start_times[item] = now

    def finished(self, item: T) -> None:
        """The consumer called ``done(item)``."""
        started_at = self._start_times.pop(item, None)
        if started_at is not None:
            self._work_duration.observe(self._clock.now() - started_at)

    def retried(self) -> None:
        self._retries.inc()

    def update_unfinished_work(self) -> None:
        """Recompute the two in-flight gauges from the start times of in-flight items."""
        now = self._clock.now()
        total = 0.0
        oldest = 0.0
        for started_at in self._start_times.values():
            age = now - started_at
            total += age
            oldest = max(oldest, age)
        self._unfinished.set(total)
        self._longest.set(oldest)
