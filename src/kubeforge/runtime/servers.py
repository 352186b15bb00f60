"""The manager's two small servers, built from its options: ``metrics_server`` (``/metrics``,
behind authentication and TLS when ``metrics_secure``) and ``probe_server`` (``/healthz``,
``/readyz``). Either is ``None`` when its bind address turns it off (``"0"``).

aiohttp's server side, and for a secure ``/metrics`` the certificate machinery, are
imported only when a server is built: a manager that serves nothing does not pay for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubeforge.client import Client
from kubeforge.core.clock import Clock
from kubeforge.runtime.health import HealthChecks, probe_routes
from kubeforge.runtime.metrics import CONTENT_TYPE, ManagerMetrics
from kubeforge.runtime.options import ManagerOptions
from kubeforge.runtime.serving import HttpServer, TLSSource, parse_bind_address

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["metrics_server", "probe_server"]


def metrics_server(
    options: ManagerOptions, client: Client, clock: Clock, metrics: ManagerMetrics
) -> HttpServer | None:
    """``/metrics`` at ``options.metrics_bind_address``."""
    bind = parse_bind_address(options.metrics_bind_address)
    if bind is None:
        return None
    from aiohttp import web

    from kubeforge.runtime.metrics_auth import Handler, MetricsAuth, metrics_tls

    async def serve(request: web.Request) -> web.Response:
        return web.Response(body=metrics.render(), headers={"Content-Type": CONTENT_TYPE})

    handler: Handler = serve
    tls: TLSSource | None = None
    if options.metrics_secure:
        handler = MetricsAuth(client, clock).guard(handler)
        tls = metrics_tls(options)
    return HttpServer("metrics", [web.get("/metrics", handler)], *bind, tls=tls)


def probe_server(
    options: ManagerOptions, healthz: HealthChecks, readyz: HealthChecks
) -> HttpServer | None:
    """``/healthz`` and ``/readyz`` at ``options.health_probe_bind_address``."""
    bind = parse_bind_address(options.health_probe_bind_address)
    if bind is None:
        return None
    return HttpServer("health probe", probe_routes(healthz, readyz), *bind)
