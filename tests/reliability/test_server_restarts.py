"""PodToIp (``kubeforge run examples/podtoip``) under churn while its API server restarts.

The server keeps its data on disk and is restarted twice mid-churn: first with
SIGTERM (a clean shutdown), then with SIGKILL (no chance to flush). The
controller runs as its own process throughout; afterwards it must have
reconnected and converged to exactly what the pods call for, and every write the
server acknowledged to the churn must still be there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubeforge.cli._targets import load_module
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.crd import install_crds, load_manifests
from kubeforge.models.core_v1 import Namespace, Pod
from reliability.kf_faults import (
    PODTOIP,
    KubeforgeRun,
    Ledger,
    churn,
    eventually,
    make_pod,
    podtoip_problems,
)

NAMESPACE = "restarts"
SEED_PODS, PHASE = 20, 40  # churn: one phase before, one across each restart


async def test_podtoip_converges_and_no_acknowledged_write_is_lost_across_sigterm_and_sigkill(
    kube_apiserver_factory: Callable[..., Any], tmp_path: Path
) -> None:
    server = kube_apiserver_factory()
    podtoip = load_module(str(PODTOIP))
    ledger = Ledger()
    async with Client(load_config(server.kubeconfig)) as client:
        await install_crds(client, load_manifests(podtoip.CRD_PATH))
        await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=NAMESPACE)))
        pods = client.api(Pod, namespace=NAMESPACE)
        for i in range(SEED_PODS):
            await pods.create(make_pod(f"seed-{i}", NAMESPACE))
            ledger.created.add(f"seed-{i}")
        controller = KubeforgeRun(PODTOIP, server.kubeconfig, tmp_path / "controller.log")
        try:
            await eventually(
                lambda: podtoip_problems(client, podtoip, NAMESPACE), "first convergence"
            )

            await churn(client, NAMESPACE, ledger, operations=PHASE, seed=1)

            async def restart(how: str) -> None:
                await asyncio.sleep(0.2)  # let the churn get going first
                await asyncio.to_thread(server.stop if how == "SIGTERM" else server.kill)
                await asyncio.sleep(0.3)  # the churn keeps trying while the server is away
                await asyncio.to_thread(server.start)

            for phase, how in enumerate(("SIGTERM", "SIGKILL"), start=1):
                restarting = asyncio.create_task(restart(how))
                await churn(
                    client, NAMESPACE, ledger, operations=PHASE, seed=phase + 1,
                    first=phase * PHASE,
                )  # fmt: skip
                await restarting
                assert server.running

            await eventually(
                lambda: podtoip_problems(client, podtoip, NAMESPACE),
                "convergence after the restarts",
                timeout=90,
            )
            assert controller.running(), controller.output()[-3000:]
        finally:
            code = controller.stop()
        assert code == 0, controller.output()[-3000:]

        listed = (await pods.list()).items
        assert ledger.lost_writes(listed) == []
        assert ledger.acknowledged > PHASE  # the churn mostly got through
        ptps = (await client.api(podtoip.PodToIp, namespace=NAMESPACE).list()).items
        live = [p for p in listed if not p.metadata.deletion_timestamp]
        assert sorted(p.metadata.name or "" for p in ptps) == sorted(
            p.metadata.name or "" for p in live
        )
