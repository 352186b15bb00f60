"""A forced watch-history expiry (410 Gone) mid-churn: the informers relist and converge.

The server keeps only ten events of history (``--watch-history 10``). The
PodToIp manager reaches it through a TCP proxy; mid-churn the proxy cuts every
connection and refuses new ones while the churn writes far more than ten
changes straight to the server. When the path heals, the manager's watches can
only resume from versions the server no longer has: each gets 410, relists, and
the controller converges on what it missed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubeforge.cli._targets import load_module
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.crd import install_crds, load_manifests
from kubeforge.models.core_v1 import Namespace, Pod
from kubeforge.runtime import Manager
from reliability.kf_faults import PODTOIP, Ledger, TcpProxy, churn, eventually, podtoip_problems

NAMESPACE = "expiry"
HISTORY = 10


async def test_watches_that_fall_out_of_the_history_relist_and_the_controller_converges(
    kube_apiserver_factory: Callable[..., Any],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="kubeforge.watch")
    server = kube_apiserver_factory(extra_args=("--watch-history", str(HISTORY)))
    podtoip = load_module(str(PODTOIP))
    proxy = TcpProxy(server.port)
    await proxy.start()
    manager = Manager(load_config(proxy.kubeconfig(server.kubeconfig, tmp_path / "proxied")))
    podtoip.setup(manager)
    ledger = Ledger()
    async with Client(load_config(server.kubeconfig)) as client:
        await install_crds(client, load_manifests(podtoip.CRD_PATH))
        await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=NAMESPACE)))
        running = asyncio.create_task(manager.run())
        try:
            await churn(client, NAMESPACE, ledger, operations=20, seed=11)
            await eventually(lambda: podtoip_problems(client, podtoip, NAMESPACE), "converged")
            expired_before = len(_relists_after_410(caplog))

            proxy.cut()
            await churn(client, NAMESPACE, ledger, operations=4 * HISTORY, seed=12, first=100)
            proxy.heal()
            await churn(client, NAMESPACE, ledger, operations=20, seed=13, first=200)

            await eventually(
                lambda: podtoip_problems(client, podtoip, NAMESPACE), "converged after the 410"
            )
            assert not running.done()
        finally:
            manager.stop()
            await running
            await proxy.close()
        assert ledger.failed == 0  # the churn went straight to the server, never cut
        assert ledger.lost_writes((await client.api(Pod, namespace=NAMESPACE).list()).items) == []

    relisted = _relists_after_410(caplog)
    assert len(relisted) > expired_before, caplog.text[-3000:]
    assert any("Pod" in message or "pods" in message for message in relisted), relisted


def _relists_after_410(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The watcher's log lines saying a watch or list got 410 and it relists."""
    messages = [record.getMessage() for record in caplog.records]
    return [m for m in messages if "too old resource version" in m and "relisting" in m]
