"""Fixtures for the local API server tests (raw HTTP against a real server process)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest
from kf_http import Api, open_api

from kubeforge.testing import LocalApiServer


@contextlib.asynccontextmanager
async def api_on(server: LocalApiServer) -> AsyncIterator[Api]:
    """An ``Api`` over a session of its own to ``server``."""
    session = await open_api(server)
    async with session:
        yield Api(server, session)


@pytest.fixture
async def api(kube_apiserver: LocalApiServer) -> AsyncIterator[Api]:
    """The shared session server; use ``namespace`` or unique names."""
    async with api_on(kube_apiserver) as client:
        yield client


@pytest.fixture
async def namespace(api: Api) -> str:
    return await api.create_namespace()


@pytest.fixture(scope="session")
def storage_only_server() -> Iterator[LocalApiServer]:
    """A server that runs only the housekeeping controllers (namespaces, garbage
    collection, ServiceAccounts, ClusterRole aggregation), no workload controller: for
    tests of what storage keeps, which no controller then changes."""
    housekeeping = "namespace,garbage-collector,serviceaccount,clusterrole-aggregation"
    with LocalApiServer(controllers=housekeeping) as server:
        yield server


@pytest.fixture
async def storage_api(storage_only_server: LocalApiServer) -> AsyncIterator[Api]:
    async with api_on(storage_only_server) as client:
        yield client


@pytest.fixture(scope="session")
def envtest_server() -> Iterator[LocalApiServer]:
    """A server without the simulated control plane, as envtest runs one: what a test
    writes to an object's status stays, no controller writes it."""
    with LocalApiServer(simulate_node=False) as server:
        yield server


@pytest.fixture
async def envtest_api(envtest_server: LocalApiServer) -> AsyncIterator[Api]:
    async with api_on(envtest_server) as client:
        yield client


@pytest.fixture(scope="module")
def rbac_server() -> Iterator[LocalApiServer]:
    """A server of the module's own that authorizes with RBAC (``admin`` is its superuser)."""
    with LocalApiServer(simulate_node=False, authorization="RBAC") as server:
        yield server


@pytest.fixture
async def admin(rbac_server: LocalApiServer) -> AsyncIterator[Api]:
    async with api_on(rbac_server) as client:
        yield client
