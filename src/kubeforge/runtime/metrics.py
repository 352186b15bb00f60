"""Prometheus metrics of one manager, under controller-runtime's names: ``ManagerMetrics``.

Entry point: ``ManagerMetrics()``. Each manager owns one, with its own
``CollectorRegistry``, so two managers in one process never collide. It is the
implementation behind the protocols the lower layers report through:

- the work queue's ``MetricsProvider`` (``workqueue_*``, labels ``name`` and ``controller``);
- the controller's ``ControllerMetricsProvider`` (``controller_runtime_*``);
- the client's ``RequestObserver`` (``rest_client_requests_total``,
  ``rest_client_request_duration_seconds``);
- leader election (``leader_election_master_status``).

``render()`` is the Prometheus text a ``/metrics`` scrape returns. The names,
labels and buckets are those of controller-runtime and client-go, so existing
dashboards and alerts work unchanged.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from kubeforge.controller.controller import RECONCILE_OUTCOMES, ReconcileOutcome
from kubeforge.workqueue import metrics as wq

__all__ = [
    "CONTENT_TYPE",
    "RECONCILE_TIME_BUCKETS",
    "REQUEST_DURATION_BUCKETS",
    "ControllerReconcileMetrics",
    "ManagerMetrics",
]

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
"""The ``Content-Type`` of ``render()``'s output: text format 0.0.4, which every Prometheus
reads (and what controller-runtime's handler sends)."""

RECONCILE_TIME_BUCKETS: tuple[float, ...] = (
    *(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5),
    *(0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5),
    *(5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0),
)
"""``controller_runtime_reconcile_time_seconds`` buckets: controller-runtime's 5 ms to 60 s."""

REQUEST_DURATION_BUCKETS: tuple[float, ...] = (
    *(0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0),
)
"""``rest_client_request_duration_seconds`` buckets: client-go's since Kubernetes 1.24."""


class ControllerReconcileMetrics:
    """The ``controller_runtime_*`` series of one controller (a ``ReconcileMetrics``)."""

    __slots__ = ("_active", "_errors", "_panics", "_terminal", "_time", "_totals", "_workers")

    def __init__(self, metrics: ManagerMetrics, controller: str) -> None:
        self._totals = {
            outcome: metrics.reconcile_total.labels(controller, outcome)
            for outcome in RECONCILE_OUTCOMES
        }
        self._errors = metrics.reconcile_errors.labels(controller)
        self._terminal = metrics.terminal_reconcile_errors.labels(controller)
        self._panics = metrics.reconcile_panics.labels(controller)
        self._time = metrics.reconcile_time.labels(controller)
        self._workers = metrics.max_concurrent_reconciles.labels(controller)
        self._active = metrics.active_workers.labels(controller)

    def started(self, max_concurrent_reconciles: int) -> None:
        # labels() above already created every series at 0 (controller-runtime's
        # initMetrics), so a dashboard sees them before the first reconcile.
        self._workers.set(max_concurrent_reconciles)
        self._active.set(0)

    def active_workers(self, delta: int) -> None:
        self._active.inc(delta)

    def reconciled(self, outcome: ReconcileOutcome, seconds: float) -> None:
        self._totals[outcome].inc()
        self._time.observe(seconds)

    def failed(self, *, terminal: bool, panic: bool) -> None:
        self._errors.inc()
        if terminal:
            self._terminal.inc()
        if panic:
            self._panics.inc()


class ManagerMetrics:
    """Every metric of one manager, in one registry of its own.

    >>> metrics = ManagerMetrics()
    >>> metrics.request_done("GET", "127.0.0.1:6443", 200, 0.01)
    >>> b'rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 1.0' in (
    ...     metrics.render())
    True
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        by_controller = ("controller",)
        self.reconcile_total = Counter(
            "controller_runtime_reconcile_total",
            "Reconciles per controller, by result (success, error, requeue, requeue_after).",
            ("controller", "result"),
            registry=r,
        )
        self.reconcile_errors = Counter(
            "controller_runtime_reconcile_errors_total",
            "Reconciles that raised, per controller.",
            by_controller,
            registry=r,
        )
        self.terminal_reconcile_errors = Counter(
            "controller_runtime_terminal_reconcile_errors_total",
            "Reconciles that raised TerminalError (not retried), per controller.",
            by_controller,
            registry=r,
        )
        self.reconcile_panics = Counter(
            "controller_runtime_reconcile_panics_total",
            "Reconciles that raised an unexpected exception (a bug), per controller.",
            by_controller,
            registry=r,
        )
        self.reconcile_time = Histogram(
            "controller_runtime_reconcile_time_seconds",
            "Seconds each reconcile took, per controller.",
            by_controller,
            buckets=RECONCILE_TIME_BUCKETS,
            registry=r,
        )
        self.max_concurrent_reconciles = Gauge(
            "controller_runtime_max_concurrent_reconciles",
            "Workers of each controller.",
            by_controller,
            registry=r,
        )
        self.active_workers = Gauge(
            "controller_runtime_active_workers",
            "Workers reconciling right now, per controller.",
            by_controller,
            registry=r,
        )
        self._queue = _WorkqueueMetrics(r)
        self.leader_election_master_status = Gauge(
            "leader_election_master_status",
            "1 while this process holds the named leader-election lease, else 0.",
            ("name",),
            registry=r,
        )
        self.rest_client_requests = Counter(
            "rest_client_requests_total",
            "HTTP requests to the API server, by status code, method and host.",
            ("code", "method", "host"),
            registry=r,
        )
        self.rest_client_request_duration = Histogram(
            "rest_client_request_duration_seconds",
            "Seconds until the API server's answer, by verb and host.",
            ("verb", "host"),
            buckets=REQUEST_DURATION_BUCKETS,
            registry=r,
        )
        # Each request's two series, found once: labels() costs more than the update.
        self._request_series: dict[tuple[int | None, str, str], tuple[Counter, Histogram]] = {}

    # --- ControllerMetricsProvider ---------------------------------------------------------

    @property
    def queue_metrics(self) -> wq.MetricsProvider:
        return self._queue

    def reconcile_metrics(self, controller: str) -> ControllerReconcileMetrics:
        return ControllerReconcileMetrics(self, controller)

    # --- RequestObserver -------------------------------------------------------------------

    def request_done(self, method: str, host: str, code: int | None, seconds: float) -> None:
        series = self._request_series.get((code, method, host))
        if series is None:
            # client-go's label for a request that got no answer at all.
            label = str(code) if code is not None else "<error>"
            series = self._request_series[code, method, host] = (
                self.rest_client_requests.labels(label, method, host),
                self.rest_client_request_duration.labels(method, host),
            )
        count, duration = series
        count.inc()
        duration.observe(seconds)

    # --- leader election -------------------------------------------------------------------

    def set_leader(self, lease_name: str, leading: bool) -> None:
        self.leader_election_master_status.labels(lease_name).set(1 if leading else 0)

    def render(self) -> bytes:
        """The registry in Prometheus text format (what ``/metrics`` answers)."""
        return bytes(generate_latest(self.registry))


class _WorkqueueMetrics:
    """The work queue's ``MetricsProvider``: both labels carry the controller's name."""

    def __init__(self, registry: CollectorRegistry) -> None:
        labels = wq.LABELS
        self.depth = Gauge(wq.DEPTH, "Keys waiting in the queue.", labels, registry=registry)
        self.adds = Counter(
            wq.ADDS_TOTAL, "Adds that were not merged away.", labels, registry=registry
        )
        self.latency = Histogram(
            wq.QUEUE_DURATION_SECONDS,
            "Seconds a key waited between its add and the get that handed it out.",
            labels,
            buckets=wq.DURATION_BUCKETS,
            registry=registry,
        )
        self.work_duration = Histogram(
            wq.WORK_DURATION_SECONDS,
            "Seconds between get and done.",
            labels,
            buckets=wq.DURATION_BUCKETS,
            registry=registry,
        )
        self.unfinished = Gauge(
            wq.UNFINISHED_WORK_SECONDS,
            "Summed age of the keys handed out and not done; large values mean stuck workers.",
            labels,
            registry=registry,
        )
        self.longest = Gauge(
            wq.LONGEST_RUNNING_PROCESSOR_SECONDS,
            "Age of the oldest key handed out and not done.",
            labels,
            registry=registry,
        )
        self.retries = Counter(wq.RETRIES_TOTAL, "Rate-limited re-adds.", labels, registry=registry)

    def new_depth_metric(self, name: str) -> wq.GaugeMetric:
        return self.depth.labels(name, name)

    def new_adds_metric(self, name: str) -> wq.CounterMetric:
        return self.adds.labels(name, name)

    def new_latency_metric(self, name: str) -> wq.HistogramMetric:
        return self.latency.labels(name, name)

    def new_work_duration_metric(self, name: str) -> wq.HistogramMetric:
        return self.work_duration.labels(name, name)

    def new_unfinished_work_seconds_metric(self, name: str) -> wq.SettableGaugeMetric:
        return self.unfinished.labels(name, name)

    def new_longest_running_processor_seconds_metric(self, name: str) -> wq.SettableGaugeMetric:
        return self.longest.labels(name, name)

    def new_retries_metric(self, name: str) -> wq.CounterMetric:
        return self.retries.labels(name, name)
