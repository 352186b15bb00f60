"""pytest plugin (entry point ``pytest11``): fixtures that run the local API server.

* ``kube_apiserver`` — one in-memory server for the whole session, shared by every
  test: use unique namespaces and names.
* ``kube_apiserver_factory`` — ``factory(**LocalApiServer kwargs)`` starts a server
  of the test's own (persistent in a fresh temporary ``data_dir`` unless one is
  given), for tests that restart or kill it; all are stopped after the test.
* ``kube_webhooks`` — ``kube_webhooks(setup)`` serves the webhooks that ``setup(mgr)``
  registers to the test's server (``kubeforge.testing.webhooks``) until the test ends:
  ``kube_rbac_apiserver`` if the test uses it, else ``kube_apiserver``, or ``server=``.
* ``kube_rbac_apiserver`` — one in-memory server per session that enforces RBAC
  (its admin kubeconfig may still do anything).
* ``kube_manager`` — the project's manager (found from pytest's rootdir, the
  directory of its ``PROJECT`` file) running on ``kube_rbac_apiserver`` as its
  ServiceAccount, bound only to ``config/rbac``: a ``ManagerUnderRbac``, so a
  permission the generated roles lack fails the test with the server's 403.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pytest

from kubeforge.testing.server import LocalApiServer

if TYPE_CHECKING:
    from kubeforge.testing.rbac import ManagerUnderRbac

_F = TypeVar("_F", bound=Callable[..., Any])


def _async_fixture(func: _F) -> _F:
    # Async fixtures need pytest-asyncio's decorator in its strict mode; without
    # pytest-asyncio no async test runs anyway.
    try:
        from pytest_asyncio import fixture
    except ImportError:  # pragma: no cover
        return cast(_F, pytest.fixture(func))
    return cast(_F, fixture(func))


__all__ = [
    "kube_apiserver",
    "kube_apiserver_factory",
    "kube_manager",
    "kube_rbac_apiserver",
    "kube_webhooks",
]


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
def kube_webhooks(request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """``kube_webhooks(setup, server=None, **kwargs)`` serves ``setup``'s webhooks to the
    server the test's other fixtures use (see the module doc) until the test ends."""
    # Imported here: the plugin loads in every pytest run and must stay cheap.
    from kubeforge.testing.webhooks import WebhookThread

    threads: list[WebhookThread] = []

    def serve(
        setup: Callable[..., None], *, server: LocalApiServer | None = None, **kwargs: Any
    ) -> Any:
        if server is None:
            # The RBAC server when the test's client is on it: the webhooks must be
            # installed where the test writes.
            rbac = "kube_rbac_apiserver" in request.fixturenames
            name = "kube_rbac_apiserver" if rbac else "kube_apiserver"
            server = cast(LocalApiServer, request.getfixturevalue(name))
        thread = WebhookThread(server.kubeconfig, setup, **kwargs)
        threads.append(thread)
        return thread.start().manager

    yield serve
    failures: list[BaseException] = []
    for thread in reversed(threads):
        try:
            thread.close()
        except Exception as error:  # close every one, then report the first failure
            failures.append(error)
    if failures:
        raise failures[0]


@pytest.fixture(scope="session")
def kube_rbac_apiserver() -> Iterator[LocalApiServer]:
    """A running in-memory server that enforces RBAC, shared by the session."""
    with LocalApiServer(authorization="RBAC") as server:
        yield server


@_async_fixture
async def kube_manager(
    kube_rbac_apiserver: LocalApiServer, request: pytest.FixtureRequest
) -> AsyncIterator[ManagerUnderRbac]:
    """The project's manager under exactly its generated RBAC, until the test ends."""
    # Imported here: loading the plugin must stay cheap for every pytest run.
    from kubeforge.testing.rbac import ManagerUnderRbac

    async with ManagerUnderRbac(kube_rbac_apiserver, request.config.rootpath) as running:
        yield running
