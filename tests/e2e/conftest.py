"""Fixtures for running the PodToIp example against the local API server."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kubeforge.cli._targets import load_module
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.crd import install_crds, load_manifests
from kubeforge.models.core_v1 import Container, Namespace, Pod, PodSpec
from kubeforge.runtime import Manager

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "podtoip"
_namespaces = itertools.count()


@pytest.fixture(scope="session")
def podtoip() -> ModuleType:
    return load_module(str(EXAMPLE))


@pytest.fixture
async def client(kube_apiserver: Any, podtoip: ModuleType) -> AsyncIterator[Client]:
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        await install_crds(client, load_manifests(podtoip.CRD_PATH))
        yield client


@pytest.fixture
async def namespace(client: Client) -> str:
    name = f"e2e-podtoip-{next(_namespaces)}"
    await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=name)))
    return name


class RunningManager:
    """Starts and stops PodToIp managers in this process, as a restartable unit."""

    def __init__(self, kubeconfig: Path, podtoip: ModuleType) -> None:
        self._kubeconfig = kubeconfig
        self._podtoip = podtoip
        self._manager: Manager | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._manager = Manager(load_config(self._kubeconfig))
        self._podtoip.setup(self._manager)
        self._task = asyncio.create_task(self._manager.run())

    async def stop(self) -> None:
        if self._manager is not None and self._task is not None:
            self._manager.stop()
            await self._task
        self._manager = self._task = None


@pytest.fixture
async def controller(kube_apiserver: Any, podtoip: ModuleType) -> AsyncIterator[RunningManager]:
    running = RunningManager(kube_apiserver.kubeconfig, podtoip)
    await running.start()
    yield running
    await running.stop()


def make_pod(name: str, namespace: str) -> Pod:
    return Pod(
        metadata=ObjectMeta(name=name, namespace=namespace),
        spec=PodSpec(containers=[Container(name="app", image="nginx:1.27")]),
    )


async def eventually(check: Callable[[], Awaitable[list[str]]], timeout: float = 20.0) -> None:
    """Poll ``check`` until it reports no problems; fail with the last problems otherwise."""
    problems: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            while problems := await check():
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"not converged after {timeout}s: {problems}")
