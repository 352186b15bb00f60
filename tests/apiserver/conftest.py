"""Fixtures for the local API server tests (raw HTTP against a real server process)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from kf_http import Api, open_api

from kubeforge.testing import LocalApiServer


@pytest.fixture
async def api(kube_apiserver: LocalApiServer) -> AsyncIterator[Api]:
    """The shared session server; use ``namespace`` or unique names."""
    session = await open_api(kube_apiserver)
    async with session:
        yield Api(kube_apiserver, session)


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
    session = await open_api(storage_only_server)
    async with session:
        yield Api(storage_only_server, session)


@pytest.fixture(scope="module")
def rbac_server() -> Iterator[LocalApiServer]:
    """A server of the module's own that authorizes with RBAC (``admin`` is its superuser)."""
    with LocalApiServer(simulate_node=False, authorization="RBAC") as server:
        yield server


@pytest.fixture
async def admin(rbac_server: LocalApiServer) -> AsyncIterator[Api]:
    session = await open_api(rbac_server)
    async with session:
        yield Api(rbac_server, session)
