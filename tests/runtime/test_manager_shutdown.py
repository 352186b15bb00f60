"""A Manager against the real local API server: converge, then stop cleanly."""

from __future__ import annotations

import asyncio
import base64

import pytest

from kubeforge.config import load_config
from kubeforge.controller import Builder
from kubeforge.core import errors
from kubeforge.core.clock import FakeClock
from kubeforge.core.meta import ObjectMeta, OwnerReference
from kubeforge.models.core_v1 import ConfigMap, Secret
from kubeforge.reconcile import Request, Result
from kubeforge.runtime import Manager, ManagerOptions
from watch.kf_server import ROOT_CA, configmap, eventually_equal, fresh_namespace, own

pytestmark = pytest.mark.live


def mirror_controller(mgr: Manager, namespace: str) -> None:
    """For every ConfigMap, keep a Secret of the same name holding the same data."""
    configmaps = mgr.cache.store(ConfigMap, namespace=namespace)
    secrets = mgr.cache.store(Secret, namespace=namespace)

    async def reconcile(request: Request) -> Result:
        api = mgr.client.api(Secret, namespace=request.namespace)
        source = configmaps.get(request.key)
        if source is None:
            return Result()
        desired = dict(source.data or {})
        current = secrets.get(request.key)
        if current is None:
            owner = OwnerReference(
                api_version="v1",
                kind="ConfigMap",
                name=request.name,
                uid=source.metadata.uid or "",
                controller=True,
            )
            secret = Secret(
                metadata=ObjectMeta(
                    name=request.name, namespace=request.namespace, owner_references=[owner]
                ),
                string_data=desired,
            )
            try:
                await api.create(secret)
            except errors.AlreadyExists:
                return Result(requeue=True)  # the cache is behind
        elif _decoded(current) != desired:
            await api.patch(request.name, {"stringData": desired})
        return Result()

    (
        Builder(mgr)
        .named("mirror")
        .for_(ConfigMap, namespace=namespace)
        .owns(Secret, namespace=namespace)
        .with_options(max_concurrent_reconciles=2)
        .complete(reconcile)
    )


def _decoded(secret: Secret) -> dict[str, str]:
    return {k: base64.b64decode(v).decode() for k, v in (secret.data or {}).items()}


async def test_a_manager_converges_then_stops_and_closes_everything(kube_apiserver, client):
    namespace = await fresh_namespace(client, "mgr-mirror")
    cms = client.api(ConfigMap, namespace=namespace)
    for i in range(5):
        await cms.create(configmap(f"cm-{i}", namespace, value=str(i)))
    mgr = Manager(load_config(kube_apiserver.kubeconfig))
    mirror_controller(mgr, namespace)
    running = asyncio.create_task(mgr.run())
    secrets = client.api(Secret, namespace=namespace)

    async def mirrored() -> dict[str, dict[str, str]]:
        # kube-root-ca.crt is mirrored too; this test is about its own ConfigMaps
        return {s.metadata.name or "": _decoded(s) for s in own((await secrets.list()).items)}

    expected = {f"cm-{i}": {"value": str(i)} for i in range(5)}
    await eventually_equal(mirrored, expected)
    await cms.patch("cm-2", {"data": {"value": "changed"}})
    expected["cm-2"] = {"value": "changed"}
    await eventually_equal(mirrored, expected)
    assert mgr.started
    mgr.stop()
    await running
    assert not mgr.started
    assert all(not informer.running for informer in mgr.cache.informers)
    assert mgr.client._closed


async def test_shutdown_waits_for_a_running_reconcile_to_finish(kube_apiserver, client):
    namespace = await fresh_namespace(client, "mgr-graceful")
    started, release = asyncio.Event(), asyncio.Event()
    finished: list[Request] = []

    async def reconcile(request: Request) -> None:
        if request.name == ROOT_CA:
            return  # the namespace's own ConfigMap: not the reconcile this test holds up
        started.set()
        await release.wait()
        finished.append(request)

    mgr = Manager(load_config(kube_apiserver.kubeconfig))
    Builder(mgr).for_(ConfigMap, namespace=namespace).complete(reconcile)
    running = asyncio.create_task(mgr.run())
    await client.api(ConfigMap, namespace=namespace).create(configmap("slow", namespace))
    await asyncio.wait_for(started.wait(), 20)
    mgr.stop()
    for _ in range(20):
        await asyncio.sleep(0)
    assert not running.done()  # still waiting for the reconcile
    release.set()
    await running
    assert finished == [Request(namespace, "slow")]


async def test_shutdown_cancels_reconciles_that_outlive_the_grace_period(kube_apiserver, client):
    namespace = await fresh_namespace(client, "mgr-grace")
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def reconcile(request: Request) -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    clock = FakeClock()
    options = ManagerOptions(graceful_shutdown_timeout=10)
    mgr = Manager(load_config(kube_apiserver.kubeconfig), options=options, clock=clock)
    Builder(mgr).for_(ConfigMap, namespace=namespace).complete(reconcile)
    running = asyncio.create_task(mgr.run())
    await client.api(ConfigMap, namespace=namespace).create(configmap("stuck", namespace))
    await asyncio.wait_for(started.wait(), 20)
    stopped_at = clock.now()
    mgr.stop()
    # Step time a second at a time (the work queue's metrics also sleep on this clock,
    # so counting sleepers cannot single out the grace period).
    while not cancelled.is_set():
        await asyncio.sleep(0.01)
        clock.advance(1)
    assert clock.now() - stopped_at >= 10
    await running
