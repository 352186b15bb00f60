"""The HTTPS server that admission and conversion webhooks are served from: ``WebhookServer``.

Entry point: ``WebhookServer(WebhookServerOptions(...))``; ``register(path, handler)``
adds a webhook, ``start()``/``stop()`` run it (the manager does both: it starts the
server before the caches, since a conversion webhook may be needed to list its own
kind, and stops it after everything else). It follows controller-runtime's
``webhook.DefaultServer``:

- port 9443 unless told otherwise; ``tls.crt``/``tls.key`` from ``cert_dir``
  (default ``<tmp>/k8s-webhook-server/serving-certs``), reloaded when they change
  (``CertWatcher``); TLS 1.2 or newer;
- one path per webhook (a second registration of a path is an error), each counted
  under controller-runtime's ``controller_runtime_webhook_*`` metrics;
- ``started_check`` for ``/readyz``: healthy once serving and a TLS handshake with
  the port succeeds;
- a graceful stop: the listener closes at once, requests in flight get
  ``shutdown_timeout`` seconds (controller-runtime gives one minute) to finish.

A missing host means every interface in controller-runtime; like the manager's other
servers (``runtime.serving``) this one binds every interface only inside a cluster
and ``127.0.0.1`` elsewhere, unless a host is given.

Example::

    server = WebhookServer(WebhookServerOptions(port=9443, cert_dir="/certs"))
    server.register("/validate-ship-example-com-v1-frigate", AdmissionWebhook(check))
    await server.start()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from prometheus_client import CollectorRegistry

from kubeforge.webhook.certwatcher import CertWatcher
from kubeforge.webhook.conversion import CONVERT_PATH, ConversionWebhook
from kubeforge.webhook.metrics import WebhookMetrics
from kubeforge.webhook.options import (
    DEFAULT_CERT_DIR,
    DEFAULT_PORT,
    CertificateMissing,
    WebhookServerOptions,
)

__all__ = [
    "DEFAULT_CERT_DIR",
    "DEFAULT_PORT",
    "CertificateMissing",
    "WebhookServer",
    "WebhookServerOptions",
]

log = logging.getLogger("kubeforge.webhook")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class WebhookServer:
    """Serves registered webhook handlers over HTTPS; see the module doc."""

    def __init__(
        self,
        options: WebhookServerOptions | None = None,
        *,
        registry: CollectorRegistry | None = None,
    ) -> None:
        self.options = options or WebhookServerOptions()
        self.metrics = WebhookMetrics(registry)
        self._handlers: dict[str, Handler] = {}
        self._runner: web.AppRunner | None = None
        self._watcher: CertWatcher | None = None
        self._started = False
        self._conversion: ConversionWebhook | None = None
        self.declarations: list[object] = []
        """What registered the handlers (``TypeWebhooks``), for manifests and local installs."""
        self.port: int | None = None
        """The bound port once started."""

    @property
    def paths(self) -> list[str]:
        return sorted(self._handlers)

    @property
    def started(self) -> bool:
        return self._started

    @property
    def cert_watcher(self) -> CertWatcher | None:
        return self._watcher

    @property
    def host(self) -> str:
        if self.options.host:
            return self.options.host
        return "0.0.0.0" if os.environ.get("KUBERNETES_SERVICE_HOST") else "127.0.0.1"

    def register(self, path: str, handler: Handler) -> None:
        """Serve ``handler`` at ``path`` (also after ``start()``; a path once only)."""
        if not path.startswith("/"):
            raise ValueError(f"webhook path {path!r} must start with /")
        if path in self._handlers:
            raise ValueError(f"can't register duplicate path: {path}")
        self._handlers[path] = self.metrics.instrument(path, handler)
        log.info("webhook server: registering webhook %s", path)

    def conversion_webhook(self) -> ConversionWebhook:
        """The ``/convert`` handler, registered on first use; add a kind's ``Conversion`` to it."""
        if self._conversion is None:
            self._conversion = ConversionWebhook(on_panic=self.on_panic)
            self.register(CONVERT_PATH, self._conversion)
        return self._conversion

    def on_panic(self) -> None:
        """Count a handler that raised (``controller_runtime_webhook_panics_total``)."""
        self.metrics.panics.inc()

    async def start(self) -> None:
        """Read the certificate, bind, and serve; ``CertificateMissing``, ``OSError`` or
        ``SSLError`` if that fails."""
        if self._runner is not None:
            return
        directory = Path(self.options.cert_dir)
        for name in (self.options.cert_name, self.options.key_name):
            if not (directory / name).is_file():
                raise CertificateMissing(
                    f"the webhook server has no {directory / name}: serving webhooks needs "
                    f"{self.options.cert_name} and {self.options.key_name} in {directory}"
                )
        watcher = CertWatcher(
            directory / self.options.cert_name,
            directory / self.options.key_name,
            interval=self.options.cert_poll_interval,
            registry=self.metrics.registry,
        )
        context = watcher.server_context()
        app = web.Application(client_max_size=8 * 1024 * 1024)
        app.router.add_route("POST", "/{path:.*}", self._dispatch)
        runner = web.AppRunner(
            app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=self.options.shutdown_timeout,
        )
        await runner.setup()
        try:
            site = web.TCPSite(
                runner,
                self.host,
                self.options.port,
                ssl_context=context,
                reuse_address=True,
            )
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        await watcher.start()
        self._runner, self._watcher = runner, watcher
        self.port = int(runner.addresses[0][1]) if runner.addresses else self.options.port
        self._started = True
        log.info("webhook server: serving on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        """Close the listener, let requests in flight finish, stop watching the certificate."""
        runner, self._runner = self._runner, None
        watcher, self._watcher = self._watcher, None
        self._started = False
        if runner is not None:
            log.info(
                "webhook server: shutting down, waiting up to %ss for requests in flight",
                self.options.shutdown_timeout,
            )
            await runner.cleanup()
        if watcher is not None:
            await watcher.stop()

    async def started_check(self) -> None:
        """A ``/readyz`` check: raises until the server is up and completes a TLS handshake."""
        if not self._started or self.port is None:
            raise RuntimeError("webhook server has not been started yet")
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        try:
            _, writer = await asyncio.wait_for(
                asyncio.open_connection(host, self.port, ssl=context), timeout=10.0
            )
        except (OSError, TimeoutError, ssl.SSLError) as error:
            raise RuntimeError(f"webhook server is not reachable: {error}") from error
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await writer.wait_closed()

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        handler = self._handlers.get(request.path)
        if handler is None:
            raise web.HTTPNotFound(text="404 page not found\n")
        return await handler(request)
