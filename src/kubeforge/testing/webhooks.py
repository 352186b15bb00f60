"""Serve a project's webhooks to the local API server, with no cluster and no cert-manager.

Entry points: ``serve_webhooks(kubeconfig, setup)``, an async context manager, and
``WebhookThread``, the same in a background thread (what the ``kube_webhooks``
fixture and plain synchronous tests use). Either one generates a serving
certificate for ``127.0.0.1``, builds a ``Manager`` whose webhook server listens on
a free port with it, lets ``setup(mgr)`` register the webhooks (a project's own
``setup`` that also adds controllers is fine: they run too), starts the webhook
server, points the API server at it (``install_local_webhooks``: the webhook
configurations and each converted CRD's ``spec.conversion``, with the CA as
``caBundle``) and runs the manager. On exit the manager stops and the configurations
are deleted. This is envtest's ``WebhookInstallOptions`` for kubeforge.

Example::

    def test_bad_frigates_are_refused(kube_apiserver, kube_webhooks):
        kube_webhooks(frigate.manager.setup)
        result = subprocess.run(["kubectl", "apply", "-f", "bad.yaml"], ...)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from kubeforge.config import load_config
from kubeforge.runtime import Manager, ManagerOptions
from kubeforge.webhook.local import local_serving, local_webhooks

__all__ = ["WebhookThread", "serve_webhooks"]

Setup = Callable[[Manager], None]
_prefixes = itertools.count()


@asynccontextmanager
async def serve_webhooks(
    kubeconfig: str | Path,
    setup: Setup,
    *,
    name_prefix: str | None = None,
    start_timeout: float = 30.0,
) -> AsyncIterator[Manager]:
    """Run ``setup``'s webhooks (and controllers) against the cluster of ``kubeconfig``."""
    prefix = name_prefix or f"kubeforge-test-{next(_prefixes)}-"
    with local_serving() as (webhook, cert):
        options = ManagerOptions(webhook=webhook)
        config = load_config(str(kubeconfig))
        manager = Manager(config, options=options)
        setup(manager)
        async with local_webhooks(manager.webhook_server, config, cert, name_prefix=prefix):
            running = asyncio.create_task(manager.run(), name="webhook manager")
            try:
                async with asyncio.timeout(start_timeout):
                    while not manager.started:
                        if running.done():
                            running.result()  # raises what made the manager fail
                        await asyncio.sleep(0.02)
                yield manager
            finally:
                manager.stop()
                with contextlib.suppress(Exception):
                    await running


class WebhookThread:
    """``serve_webhooks`` on an event loop of its own, for synchronous tests.

    ``start()`` returns once the webhooks are installed and served (or raises what
    went wrong); ``close()`` stops them, and raises what went wrong meanwhile (say,
    removing the configurations). Also a context manager.
    """

    def __init__(self, kubeconfig: str | Path, setup: Setup, **kwargs: Any) -> None:
        self._args = (kubeconfig, setup)
        self._kwargs = kwargs
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, name="kubeforge webhooks", daemon=True)
        self.manager: Manager | None = None

    def start(self, timeout: float = 60.0) -> WebhookThread:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the webhooks did not start in time")
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        return self

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=60.0)
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def __enter__(self) -> WebhookThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as error:  # reported to start(), which re-raises it
            self._failure = error
        finally:
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with serve_webhooks(*self._args, **self._kwargs) as manager:
            self.manager = manager
            self._ready.set()
            await self._stop.wait()
