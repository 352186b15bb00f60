"""Metadata-only informers against the local server: only metadata crosses the wire."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from kubeforge.cache import OWNER_UID_INDEX, InformerFactory, by_owner_uid, metadata_kind
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.controller import Builder, set_controller_reference
from kubeforge.core.clock import FakeClock
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap, Secret
from kubeforge.reconcile import Request
from kubeforge.runtime import Manager
from kubeforge.testing import LocalApiServer
from kubeforge.watch import Apply, ExponentialBackoff, Init, InitDone, watcher
from watch.kf_fakes import FakeApi, obj
from watch.kf_server import eventually, fresh_namespace

# Written into every object's data: it must never reach a metadata-only informer.
PAYLOAD = "payload-that-must-stay-on-the-server"


class RecordingClient(Client):
    """A real client that also keeps every raw body the server answered (watch lines too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[bytes] = []

    async def exchange(self, *args: Any, **kwargs: Any) -> Any:
        answer = await super().exchange(*args, **kwargs)
        self.received.append(answer.body)
        return answer

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[bytes]:
        async for line in super().stream(*args, **kwargs):
            self.received.append(line)
            yield line


@pytest.fixture
async def recording(kube_apiserver: LocalApiServer) -> AsyncIterator[RecordingClient]:
    async with RecordingClient(load_config(kube_apiserver.kubeconfig)) as client:
        yield client


def _configmap(name: str, namespace: str, value: str) -> ConfigMap:
    return ConfigMap(
        metadata=ObjectMeta(name=name, namespace=namespace, labels={"v": value}),
        data={"payload": PAYLOAD, "v": value},
    )


class _Churn:
    """Random creates, data and label updates and deletes, one change per object per batch."""

    def __init__(self, client: Client, namespace: str, seed: int) -> None:
        self.api = client.api(ConfigMap, namespace=namespace)
        self.namespace = namespace
        self.rng = random.Random(seed)
        self.alive: list[str] = []
        self.counter = 0

    async def run(self, operations: int) -> None:
        api, rng = self.api, self.rng
        for _ in range(operations // 16):
            batch: list[Any] = []
            touched: set[str] = set()
            for _ in range(16):
                free = [name for name in self.alive if name not in touched]
                roll = rng.random()
                if roll < 0.4 or not free:
                    name = f"cm-{self.counter}"
                    self.counter += 1
                    self.alive.append(name)
                    batch.append(api.create(_configmap(name, self.namespace, "0")))
                elif roll < 0.6:
                    name = rng.choice(free)
                    batch.append(api.patch(name, {"data": {"v": str(rng.random())}}))
                elif roll < 0.8:
                    name = rng.choice(free)
                    labels = {"v": str(self.counter)}
                    batch.append(api.patch(name, {"metadata": {"labels": labels}}))
                else:
                    name = rng.choice(free)
                    self.alive.remove(name)
                    batch.append(api.delete(name))
                touched.add(name)
            await asyncio.gather(*batch)


def _state(objects: Any) -> dict[str, tuple[str, dict[str, str] | None]]:
    return {o.metadata.name: (o.metadata.resource_version, o.metadata.labels) for o in objects}


async def test_a_metadata_informer_converges_under_churn_without_receiving_any_data(
    client: Client, recording: RecordingClient
) -> None:
    namespace = await fresh_namespace(client, "metadata-wire")
    churn = _Churn(client, namespace, seed=1)
    await churn.run(320)  # listed at start
    factory = InformerFactory(recording)
    informer = factory.informer(ConfigMap, namespace=namespace, metadata_only=True)
    factory.start()
    try:
        await factory.wait_for_sync(timeout=30)
        await churn.run(1600)  # watched live
        expected = _state((await client.api(ConfigMap, namespace=namespace).list()).items)
        await eventually(lambda: _state(informer.store.list()) == expected)
    finally:
        await factory.stop()
    cached = informer.store.list()
    assert all(type(o) is metadata_kind(ConfigMap.info) for o in cached)
    assert {(o.api_version, o.kind) for o in cached} == {("v1", "ConfigMap")}
    # What the server sent this informer: one list, then watch lines, all metadata.
    bodies = [orjson.loads(raw) for raw in recording.received]
    lists = [body for body in bodies if "type" not in body]
    assert lists and {body["kind"] for body in lists} == {"PartialObjectMetadataList"}
    assert all(set(o) == {"kind", "apiVersion", "metadata"} for b in lists for o in b["items"])
    watched = [body["object"] for body in bodies if "type" in body]
    assert len(watched) >= 1600 // 2  # the live churn reached the informer as events
    assert {o["kind"] for o in watched} == {"PartialObjectMetadata"}
    assert all(set(o) == {"kind", "apiVersion", "metadata"} for o in watched)
    assert not any(PAYLOAD.encode() in raw for raw in recording.received)


async def test_keys_and_owner_indexes_work_on_metadata_objects(
    client: Client, recording: RecordingClient
) -> None:
    namespace = await fresh_namespace(client, "metadata-index")
    configmaps = client.api(ConfigMap, namespace=namespace)
    parent = await configmaps.create(_configmap("parent", namespace, "p"))
    for name in ("child-a", "child-b"):
        child = _configmap(name, namespace, "c")
        set_controller_reference(parent, child)
        await configmaps.create(child)
    factory = InformerFactory(recording)
    store = factory.informer(ConfigMap, namespace=namespace, metadata_only=True).store
    store.add_index(OWNER_UID_INDEX, by_owner_uid)
    factory.start()
    try:
        await factory.wait_for_sync(timeout=30)
        children = store.by_index(OWNER_UID_INDEX, parent.metadata.uid or "")
        assert sorted(c.metadata.name for c in children) == ["child-a", "child-b"]
        found = store.get(f"{namespace}/parent")
        assert found is not None and found.metadata.uid == parent.metadata.uid
    finally:
        await factory.stop()


async def test_the_watcher_takes_partial_object_metadata_for_the_watched_kind() -> None:
    api = FakeApi()
    clock = FakeClock()
    stream = watcher(api, clock=clock, backoff=ExponentialBackoff(clock=clock, jitter=0))
    assert isinstance(await anext(stream), Init)
    assert isinstance(await anext(stream), InitDone)
    pending = asyncio.ensure_future(anext(stream))
    await api.watching()
    api.inject(
        "ADDED", {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", **obj("m")}
    )
    event = await asyncio.wait_for(pending, 5)
    assert isinstance(event, Apply)
    assert event.object["metadata"]["name"] == "m"
    await stream.aclose()


async def test_owns_metadata_only_reconciles_the_owner_of_each_dependent(
    client: Client, kube_apiserver: LocalApiServer
) -> None:
    namespace = await fresh_namespace(client, "metadata-owns")
    seen: list[Request] = []

    async def reconcile(request: Request) -> None:
        seen.append(request)

    mgr = Manager(load_config(kube_apiserver.kubeconfig))
    (
        Builder(mgr)
        .for_(ConfigMap, namespace=namespace)
        .owns(Secret, namespace=namespace, metadata_only=True)
        .complete(reconcile)
    )
    task = asyncio.create_task(mgr.run())
    try:
        owner = await client.api(ConfigMap, namespace=namespace).create(
            _configmap("owner", namespace, "o")
        )
        await eventually(lambda: Request(namespace, "owner") in seen)
        seen.clear()
        dependent = Secret(
            metadata=ObjectMeta(name="dep", namespace=namespace),
            string_data={"password": PAYLOAD},
        )
        set_controller_reference(owner, dependent)
        secrets = client.api(Secret, namespace=namespace)
        await secrets.create(dependent)
        await eventually(lambda: Request(namespace, "owner") in seen)
        seen.clear()
        await secrets.patch("dep", {"metadata": {"labels": {"touched": "yes"}}})
        await eventually(lambda: Request(namespace, "owner") in seen)
        cached = mgr.cache.store(metadata_kind(Secret.info), namespace=namespace).list()
        assert [s.metadata.name for s in cached] == ["dep"]
        assert not hasattr(cached[0], "data")
        assert cached[0].metadata.labels == {"touched": "yes"}
    finally:
        mgr.stop()
        await task
