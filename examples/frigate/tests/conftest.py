# Copyright 2026 The kubeforge authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Fixtures: a client of kubeforge's local API server with the project's CRDs installed.

The ``kube_rbac_apiserver`` fixture comes from kubeforge's pytest plugin: a real
API server process that enforces RBAC, shared by the session (``client`` is its
admin; ``kube_manager`` runs the manager there as its ServiceAccount). Every test
gets a namespace of its own.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kubeforge import Client, ObjectMeta, load_config
from kubeforge.crd import install_crds, load_manifests
from kubeforge.models.core_v1 import Namespace
from kubeforge.testing import LocalApiServer

CRD_DIR = Path(__file__).resolve().parents[1] / "config" / "crd" / "bases"
_namespaces = itertools.count()


@pytest.fixture
async def client(kube_rbac_apiserver: LocalApiServer) -> AsyncIterator[Client]:
    async with Client(load_config(kube_rbac_apiserver.kubeconfig)) as client:
        if CRD_DIR.is_dir():
            await install_crds(client, load_manifests(CRD_DIR))
        yield client


@pytest.fixture
async def namespace(client: Client) -> str:
    name = f"test-frigate-{next(_namespaces)}"
    await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=name)))
    return name
