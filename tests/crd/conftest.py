"""Fixtures for the CRD tests: a private local API server with the generated CRDs installed.

Private, not the session's shared server: the ship.example.com kinds here are
shaped by these tests alone, and other suites may install their own Frigate.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.crd import generate_crds, install_crds
from kubeforge.testing import LocalApiServer

from .kf_ships import Carrier, CarrierV1Alpha1, Frigate

COMMAND_TIMEOUT = 60.0  # an upper bound so a hung kubectl fails one test, not the run


@pytest.fixture(scope="module")
def crd_server() -> Iterator[LocalApiServer]:
    """A server with every generated CRD installed and Established."""
    with LocalApiServer() as server:

        async def install() -> None:
            async with Client(load_config(server.kubeconfig)) as client:
                await install_crds(client, generate_crds([Frigate, Carrier, CarrierV1Alpha1]))

        asyncio.run(install())
        yield server


@pytest.fixture
async def client(crd_server: LocalApiServer) -> AsyncIterator[Client]:
    async with Client(load_config(crd_server.kubeconfig)) as client:
        yield client


class Kubectl:
    """The kubectl on PATH against one server, with a private cache directory."""

    def __init__(self, server: LocalApiServer, cache_dir: Path) -> None:
        executable = shutil.which("kubectl")
        assert executable, "kubectl must be on PATH"
        self.base = [executable, f"--kubeconfig={server.kubeconfig}", f"--cache-dir={cache_dir}"]

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.base, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )

    def ok(self, *args: str, stdin: str | None = None) -> str:
        done = self.run(*args, stdin=stdin)
        assert done.returncode == 0, f"kubectl {' '.join(args)} failed:\n{done.stderr}"
        return done.stdout


@pytest.fixture
def kubectl(crd_server: LocalApiServer, tmp_path: Path) -> Kubectl:
    return Kubectl(crd_server, tmp_path / "kubectl-cache")
