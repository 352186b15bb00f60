"""pytest plugin (entry point ``pytest11``): fixtures that run the local API server.

* ``kube_apiserver`` — one in-memory server for the whole session, shared by every
  test: use unique namespaces and names.
* ``kube_apiserver_factory`` — ``factory(**LocalApiServer kwargs)`` starts a server
  of the test's own (persistent in a fresh temporary ``data_dir`` unless one is
  given), for tests that restart or kill it; all are stopped after the test.
* ``kube_webhooks`` — ``kube_webhooks(setup)`` serves the webhooks that ``setup(mgr)``
  registers to the session's server (``kubeforge.testing.webhooks``) until the test ends.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubeforge.testing.server import LocalApiServer

__all__ = ["kube_apiserver", "kube_apiserver_factory", "kube_webhooks"]


@pytest.fixture(scope="session")
def kube_apiserver() -> Iterator[LocalApiServer]:
    """A running in-memory server with the simulated node, shared by the session."""
    with LocalApiServer() as server:
        yield server


@pytest.fixture
def kube_apiserver_factory(tmp_path: Path) -> Iterator[Callable[..., LocalApiServer]]:
    """Start servers a test owns; each is closed when the test ends."""
    servers: list[LocalApiServer] = []
    counter = itertools.count()

    def factory(**kwargs: Any) -> LocalApiServer:
        kwargs.setdefault("data_dir", tmp_path / f"apiserver-{next(counter)}")
        server = LocalApiServer(**kwargs)
        servers.append(server)
        server.start()
        return server

    yield factory
    for server in servers:
        server.close()


@pytest.fixture
def kube_webhooks(kube_apiserver: LocalApiServer) -> Iterator[Callable[..., Any]]:
    """``kube_webhooks(setup, **kwargs)`` serves ``setup``'s webhooks to ``kube_apiserver``."""
    # Imported here: the plugin loads in every pytest run and must stay cheap.
    from kubeforge.testing.webhooks import WebhookThread

    threads: list[WebhookThread] = []

    def serve(setup: Callable[..., None], **kwargs: Any) -> Any:
        thread = WebhookThread(kube_apiserver.kubeconfig, setup, **kwargs)
        threads.append(thread)
        return thread.start().manager

    yield serve
    for thread in reversed(threads):
        thread.close()
