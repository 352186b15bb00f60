"""What a workqueue reports, as protocols: ``MetricsProvider`` and the metric objects it makes.

The queue only calls these protocols; the Prometheus implementation lives in
the runtime layer, so this layer never imports a metrics library (client-go's
``MetricsProvider`` inversion). See ``MetricsProvider`` for the entry point.

The names controller-runtime registers are exported as constants so the
runtime layer registers exactly those (``workqueue_depth``, ...), each with the
labels ``name`` and ``controller``, and with ``DURATION_BUCKETS`` for the two
histograms. Existing dashboards then work unchanged.
"""

from __future__ import annotations

from typing import Protocol

__all__ = [
    "ADDS_TOTAL",
    "DEPTH",
    "DURATION_BUCKETS",
    "LABELS",
    "LONGEST_RUNNING_PROCESSOR_SECONDS",
    "QUEUE_DURATION_SECONDS",
    "RETRIES_TOTAL",
    "UNFINISHED_WORK_SECONDS",
    "WORK_DURATION_SECONDS",
    "CounterMetric",
    "GaugeMetric",
    "HistogramMetric",
    "MetricsProvider",
    "NoopMetricsProvider",
    "SettableGaugeMetric",
]

DEPTH = "workqueue_depth"
"""Gauge: items waiting to be handed out (every item that is dirty)."""
ADDS_TOTAL = "workqueue_adds_total"
"""Counter: adds that were not de-duplicated away."""
QUEUE_DURATION_SECONDS = "workqueue_queue_duration_seconds"
"""Histogram: seconds from the first add of a dirty period to the ``get`` that hands it out."""
WORK_DURATION_SECONDS = "workqueue_work_duration_seconds"
"""Histogram: seconds from ``get`` to ``done``."""
UNFINISHED_WORK_SECONDS = "workqueue_unfinished_work_seconds"
"""Gauge: summed age of every item handed out and not yet done."""
LONGEST_RUNNING_PROCESSOR_SECONDS = "workqueue_longest_running_processor_seconds"
"""Gauge: age of the oldest item handed out and not yet done."""
RETRIES_TOTAL = "workqueue_retries_total"
"""Counter: ``add_after`` calls (so every ``add_rate_limited``), as client-go counts them."""

LABELS = ("name", "controller")
"""controller-runtime sets both labels to the controller's name."""

DURATION_BUCKETS: tuple[float, ...] = tuple(1e-8 * 10.0**i for i in range(12))
"""``ExponentialBuckets(10e-9, 10, 12)`` as controller-runtime uses: 10 ns up to 1000 s."""


class GaugeMetric(Protocol):
    """A gauge moved by one (``workqueue_depth``)."""

    def inc(self) -> None: ...
    def dec(self) -> None: ...


class SettableGaugeMetric(Protocol):
    """A gauge set to a computed value (unfinished work, longest running processor)."""

    def set(self, value: float) -> None: ...


class CounterMetric(Protocol):
    """A counter that only goes up (adds, retries)."""

    def inc(self) -> None: ...


class HistogramMetric(Protocol):
    """A distribution of durations in seconds (queue latency, work duration)."""

    def observe(self, value: float) -> None: ...


class MetricsProvider(Protocol):
    """Makes the metric objects of one named queue; called once per queue at construction.

    A queue with an empty ``name`` is never instrumented, as in client-go.
    """

    def new_depth_metric(self, name: str) -> GaugeMetric: ...
    def new_adds_metric(self, name: str) -> CounterMetric: ...
    def new_latency_metric(self, name: str) -> HistogramMetric: ...
    def new_work_duration_metric(self, name: str) -> HistogramMetric: ...
    def new_unfinished_work_seconds_metric(self, name: str) -> SettableGaugeMetric: ...
    def new_longest_running_processor_seconds_metric(self, name: str) -> SettableGaugeMetric: ...
    def new_retries_metric(self, name: str) -> CounterMetric: ...


class _NoopMetric:
    """Accepts every metric call and records nothing."""

    __slots__ = ()

    def inc(self) -> None:
        pass

    def dec(self) -> None:
        pass

    def set(self, value: float) -> None:
        pass

    def observe(self, value: float) -> None:
        pass


_NOOP = _NoopMetric()


class NoopMetricsProvider:
    """The default provider: queues built with it skip metric bookkeeping entirely."""

    __slots__ = ()

    def new_depth_metric(self, name: str) -> GaugeMetric:
        return _NOOP

    def new_adds_metric(self, name: str) -> CounterMetric:
        return _NOOP

    def new_latency_metric(self, name: str) -> HistogramMetric:
        return _NOOP

    def new_work_duration_metric(self, name: str) -> HistogramMetric:
        return _NOOP

    def new_unfinished_work_seconds_metric(self, name: str) -> SettableGaugeMetric:
        return _NOOP

    def new_longest_running_processor_seconds_metric(self, name: str) -> SettableGaugeMetric:
        return _NOOP

    def new_retries_metric(self, name: str) -> CounterMetric:
        return _NOOP
