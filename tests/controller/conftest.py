"""Fixtures of the controller tests on the session's local API server: a client, and a
manager whose ``run()`` goes to a background task on ``start()``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubeforge.config import load_config
from kubeforge.runtime import Manager


class Running:
    """A manager whose ``run()`` goes to a background task on ``start()``."""

    def __init__(self, kubeconfig: Any) -> None:
        self.mgr = Manager(load_config(kubeconfig))
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.mgr.run())

    async def stop(self) -> None:
        self.mgr.stop()
        if self.task is not None:
            await self.task


@pytest.fixture
async def running(kube_apiserver: Any) -> AsyncIterator[Running]:
    running = Running(kube_apiserver.kubeconfig)
    yield running
    await running.stop()
