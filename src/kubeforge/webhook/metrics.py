"""The webhook server's Prometheus metrics, under controller-runtime's names: ``WebhookMetrics``.

Entry point: ``WebhookMetrics(registry)``; ``WebhookServer`` wraps every path it
serves with ``instrument(path, handler)``. The series are those of
controller-runtime's ``pkg/webhook/internal/metrics`` (label ``webhook`` is the
path), so dashboards built for Go operators read a kubeforge manager unchanged:

- ``controller_runtime_webhook_requests_total{webhook,code}``: HTTP answers by status
  code (``200`` and ``500`` exist from registration on, at 0);
- ``controller_runtime_webhook_latency_seconds{webhook}``: time to answer;
- ``controller_runtime_webhook_requests_in_flight{webhook}``: requests being served;
- ``controller_runtime_webhook_panics_total``: handlers that raised (controller-runtime
  counts recovered panics here).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

__all__ = ["LATENCY_BUCKETS", "WebhookMetrics"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

LATENCY_BUCKETS: tuple[float, ...] = tuple(1e-8 * 10**i for i in range(12))
"""controller-runtime's ``prometheus.ExponentialBuckets(10e-9, 10, 12)``: 10 ns to 1000 s."""


class WebhookMetrics:
    """The ``controller_runtime_webhook_*`` series in one registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.latency = Histogram(
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            ["webhook"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.requests = Counter(
            "controller_runtime_webhook_requests",
            "Total number of admission requests by HTTP status code.",
            ["webhook", "code"],
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served.",
            ["webhook"],
            registry=self.registry,
        )
        self.panics = Counter(
            "controller_runtime_webhook_panics",
            "Total number of webhook panics",
            registry=self.registry,
        )

    def instrument(self, path: str, handler: Handler) -> Handler:
        """``handler`` counted, timed and tracked in flight under ``webhook=path``."""
        latency = self.latency.labels(path)
        in_flight = self.in_flight.labels(path)
        for code in ("200", "500"):
            self.requests.labels(path, code)

        async def instrumented(request: web.Request) -> web.StreamResponse:
            start = time.perf_counter()
            in_flight.inc()
            code = 500
            try:
                response = await handler(request)
                code = response.status
                return response
            finally:
                in_flight.dec()
                self.requests.labels(path, str(code)).inc()
                latency.observe(time.perf_counter() - start)

        return instrumented
