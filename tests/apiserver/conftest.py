"""Fixtures for the local API server tests (raw HTTP against a real server process)."""

from __future__ import annotations

from collections.abc import AsyncIterator

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
