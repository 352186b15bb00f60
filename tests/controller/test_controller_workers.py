"""Controllers against the real local API server: workers, requeues, owns()."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from kubeforge.controller import Builder, Controller
from kubeforge.core.meta import ObjectMeta, OwnerReference
from kubeforge.models.core_v1 import ConfigMap, Secret
from kubeforge.reconcile import Request, Result
from watch.kf_server import ROOT_CA, configmap, eventually, fresh_namespace

pytestmark = pytest.mark.live


async def test_two_workers_reconcile_every_key_and_never_one_key_twice_at_once(client, running):
    namespace = await fresh_namespace(client, "ctrl-workers")
    in_flight: set[Request] = set()
    overlaps: list[Request] = []
    peak = 0
    runs: Counter[str] = Counter()

    async def reconcile(request: Request) -> None:
        nonlocal peak
        if request in in_flight:
            overlaps.append(request)
        in_flight.add(request)
        peak = max(peak, len(in_flight))
        try:
            await asyncio.sleep(0.01)  # hold the key so events for it pile up meanwhile
            runs[request.name] += 1
        finally:
            in_flight.discard(request)

    controller: Controller = (
        Builder(running.mgr)
        .named("workers")
        .for_(ConfigMap, namespace=namespace)
        .with_options(max_concurrent_reconciles=2)
        .complete(reconcile)
    )
    running.start()
    api = client.api(ConfigMap, namespace=namespace)
    names = [f"cm-{i}" for i in range(20)]
    await asyncio.gather(*(api.create(configmap(name, namespace)) for name in names))
    for round_ in range(3):  # bursts of updates to the same keys
        for name in names[:5]:
            await api.patch(name, {"data": {"round": str(round_)}})
    await eventually(lambda: set(runs) - {ROOT_CA} == set(names))
    await eventually(lambda: not in_flight and len(controller.queue) == 0)
    assert overlaps == []
    assert peak == 2


async def test_failures_are_retried_and_requeue_after_runs_again(client, running):
    namespace = await fresh_namespace(client, "ctrl-requeue")
    attempts: Counter[str] = Counter()

    async def reconcile(request: Request) -> Result:
        attempts[request.name] += 1
        if attempts[request.name] == 1:
            raise RuntimeError("transient")
        if attempts[request.name] == 2:
            return Result(requeue_after=0.05)
        if attempts[request.name] == 3:
            return Result(requeue=True)
        return Result()

    Builder(running.mgr).named("requeue").for_(ConfigMap, namespace=namespace).complete(reconcile)
    running.start()
    await client.api(ConfigMap, namespace=namespace).create(configmap("a", namespace))
    await eventually(lambda: attempts["a"] >= 4)
    await asyncio.sleep(0.2)
    assert attempts["a"] == 4  # success: not run again without a new event


async def test_owns_maps_a_dependent_to_its_controlling_owner(client, running):
    namespace = await fresh_namespace(client, "ctrl-owns")
    seen: list[Request] = []

    async def reconcile(request: Request) -> None:
        seen.append(request)

    (
        Builder(running.mgr)
        .named("owns")
        .for_(ConfigMap, namespace=namespace)
        .owns(Secret, namespace=namespace)
        .complete(reconcile)
    )
    running.start()
    owner = await client.api(ConfigMap, namespace=namespace).create(configmap("owner", namespace))
    await eventually(lambda: Request(namespace, "owner") in seen)
    seen.clear()
    ref = OwnerReference(
        api_version="v1",
        kind="ConfigMap",
        name="owner",
        uid=owner.metadata.uid or "",
        controller=True,
    )
    foreign = OwnerReference(api_version="v1", kind="ConfigMap", name="not-controller", uid="x")
    secret = Secret(
        metadata=ObjectMeta(name="dep", namespace=namespace, owner_references=[ref, foreign])
    )
    await client.api(Secret, namespace=namespace).create(secret)
    await eventually(lambda: Request(namespace, "owner") in seen)
    await client.api(Secret, namespace=namespace).patch("dep", {"stringData": {"k": "v"}})
    await eventually(lambda: seen.count(Request(namespace, "owner")) >= 2)
    assert Request(namespace, "not-controller") not in seen
    assert Request(namespace, "dep") not in seen
