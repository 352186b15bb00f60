"""Fixtures for the compatibility suite: the real kubectl and the official ``kubernetes`` package.

The suite runs its own ``LocalApiServer`` (not the shared session server) because it
installs ``podtoips.example.com`` with short name ``ptp``, which other suites install
too: a private server keeps both free to shape that CRD as they need.

Every kubectl call gets the server's kubeconfig and a per-test ``--cache-dir``, so
no discovery or OpenAPI cache survives from one test (or one server) to the next.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config

from kubeforge.testing import LocalApiServer

from .kf_kubectl import CRD_MANIFEST, Kubectl

_namespaces = itertools.count()


@pytest.fixture(scope="session")
def compat_server() -> Iterator[LocalApiServer]:
    # A Job's first back-off after a failure is 10 s on a cluster; the suite's failing
    # Jobs need the doubling, not the wait.
    with LocalApiServer(extra_args=("--job-pod-failure-backoff", "0.2")) as server:
        yield server


@pytest.fixture(scope="session")
def crd_installed(compat_server: LocalApiServer, tmp_path_factory: pytest.TempPathFactory) -> str:
    """``podtoips.example.com`` applied with kubectl and Established; returns its name."""
    cache = tmp_path_factory.mktemp("kubectl-cache")
    kubectl = Kubectl(compat_server.kubeconfig, cache, "default")
    kubectl.run("apply", "-f", str(CRD_MANIFEST), namespaced=False)
    kubectl.run(
        "wait",
        "--for=condition=Established",
        "--timeout=30s",
        "crd/podtoips.example.com",
        namespaced=False,
    )
    return "podtoips.example.com"


@pytest.fixture
def namespace(compat_server: LocalApiServer, tmp_path: Path) -> str:
    """A fresh namespace per test, created from a manifest through kubectl."""
    name = f"compat-{next(_namespaces)}"
    manifest = f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n"
    Kubectl(compat_server.kubeconfig, tmp_path / "ns-cache", "default").run(
        "create", "-f", "-", stdin=manifest, namespaced=False
    )
    return name


@pytest.fixture
def kubectl(compat_server: LocalApiServer, namespace: str, tmp_path: Path) -> Kubectl:
    return Kubectl(compat_server.kubeconfig, tmp_path / "kubectl-cache", namespace)


@pytest.fixture
def api_client(compat_server: LocalApiServer) -> Iterator[Any]:
    """An official-client ``ApiClient`` loaded from the server's kubeconfig, unchanged."""
    api = k8s_config.new_client_from_config(config_file=str(compat_server.kubeconfig))
    try:
        yield api
    finally:
        api.close()


@pytest.fixture
def core_v1(api_client: Any) -> Any:
    return k8s_client.CoreV1Api(api_client)
