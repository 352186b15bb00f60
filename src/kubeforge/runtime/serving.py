"""The manager's small HTTP servers (``/metrics``, probes): ``parse_bind_address``, ``HttpServer``.

Bind addresses are spelled as in controller-runtime and kubebuilder's flags:
``"0"`` (or ``""``) disables the server, ``"HOST:PORT"`` binds that host,
``"[::1]:8080"`` an IPv6 host, and ``":PORT"`` leaves the host out.

A missing host means every interface in controller-runtime. kubeforge binds
every interface only inside a cluster (``KUBERNETES_SERVICE_HOST`` is set, as
client-go's in-cluster config detects it), where kubelet probes and Prometheus
reach the pod over its IP. Anywhere else, a run on a laptop or in CI, it binds
``127.0.0.1``: a developer's controller should not expose its metrics to the
network unless asked (``--metrics-bind-address 0.0.0.0:8080``).
"""

from __future__ import annotations

import logging
import os
import ssl
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["HttpServer", "TLSSource", "parse_bind_address"]

log = logging.getLogger("kubeforge.runtime")


def parse_bind_address(
    address: str, *, environ: Mapping[str, str] | None = None
) -> tuple[str, int] | None:
    """``(host, port)`` to bind, or ``None`` when ``address`` disables the server.

    >>> parse_bind_address(":8080", environ={})
    ('127.0.0.1', 8080)
    >>> parse_bind_address(":8080", environ={"KUBERNETES_SERVICE_HOST": "10.0.0.1"})
    ('0.0.0.0', 8080)
    >>> parse_bind_address("[::1]:9090"), parse_bind_address("0")
    (('::1', 9090), None)
    """
    address = address.strip()
    if address in ("", "0"):
        return None
    host, sep, port_text = address.rpartition(":")
    if not sep:
        raise ValueError(f"bind address {address!r} has no port (expected HOST:PORT or :PORT)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"bind address {address!r}: port {port_text!r} is not a number") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"bind address {address!r}: port {port} is out of range")
    if not host:
        env = os.environ if environ is None else environ
        host = "0.0.0.0" if env.get("KUBERNETES_SERVICE_HOST") else "127.0.0.1"
    return host, port


class TLSSource(Protocol):
    """Where an HTTPS server's certificate comes from (``CertWatcher``, ``SelfSignedTLS``)."""

    def server_context(self) -> ssl.SSLContext: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class HttpServer:
    """One aiohttp server on one address, started and stopped by the manager.

    ``start()`` binds at once, so a busy port fails the manager's start with
    ``OSError`` instead of failing later; ``address`` is then the bound
    ``(host, port)`` (useful with port 0). With ``tls`` it serves HTTPS.
    """

    def __init__(
        self,
        name: str,
        routes: Sequence[web.RouteDef],
        host: str,
        port: int,
        *,
        tls: TLSSource | None = None,
    ) -> None:
        self.name = name
        self._routes = routes
        self._host = host
        self._port = port
        self._tls = tls
        self._runner: web.AppRunner | None = None
        self.address: tuple[str, int] | None = None

    @property
    def url(self) -> str:
        """``http://host:port`` of the bound server (``RuntimeError`` before ``start()``)."""
        if self.address is None:
            raise RuntimeError(f"the {self.name} server is not running")
        host, port = self.address
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"

    async def start(self) -> None:
        # Imported here: aiohttp's server side is paid for only by a process that serves.
        from aiohttp import web

        app = web.Application()
        app.add_routes(self._routes)
        # No access log: probes every few seconds would drown the controller's own lines.
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            context = self._tls.server_context() if self._tls is not None else None
            site = web.TCPSite(
                runner, self._host, self._port, ssl_context=context, reuse_address=True
            )
            await site.start()
            if self._tls is not None:
                await self._tls.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        bound = runner.addresses[0] if runner.addresses else (self._host, self._port)
        self.address = (str(bound[0]), int(bound[1]))
        log.info("%s server listening on %s", self.name, self.url)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
            if self._tls is not None:
                await self._tls.stop()
