"""Project-wide test configuration.

The local API server fixtures (``kube_apiserver``, ``kube_apiserver_factory``) come
from the ``kubeforge.testing.plugin`` pytest plugin, which the package registers
through its ``pytest11`` entry point once it is installed (``pip install -e .``); ``client``
is a client of that server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.testing import LocalApiServer


@pytest.fixture
async def client(kube_apiserver: LocalApiServer) -> AsyncIterator[Client]:
    """A client of the session's local API server (folders on a server of their own
    define their own ``client``)."""
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        yield client
