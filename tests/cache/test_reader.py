"""Reading through the cache against the real local API server: CacheReader, CachedClient."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubeforge.cache import (
    CachedClient,
    CacheReader,
    InformerFactory,
    Lister,
    PartialObjectMetadata,
)
from kubeforge.client import Client
from kubeforge.core import errors
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap
from watch.kf_server import configmap, eventually, fresh_namespace, own

pytestmark = pytest.mark.live


@pytest.fixture
async def factory(client: Client) -> AsyncIterator[InformerFactory]:
    factory = InformerFactory(client)
    yield factory
    await factory.stop()


def labelled(name: str, namespace: str, **labels: str) -> ConfigMap:
    meta = ObjectMeta(name=name, namespace=namespace, labels=labels or None)
    return ConfigMap(metadata=meta, data={"node": f"node-{name[-1]}"})


async def test_the_first_read_starts_a_shared_informer_and_later_reads_reuse_it(client, factory):
    namespace = await fresh_namespace(client, "reader-lazy")
    await client.api(ConfigMap, namespace=namespace).create(configmap("a", namespace, k="v"))
    reader = CacheReader(factory, sync_timeout=30)
    assert factory.informers == []
    got = await reader.get(ConfigMap, "a", namespace=namespace)
    assert got.data == {"k": "v"}
    [informer] = factory.informers
    assert informer.running and informer.config.label_selector is None
    await reader.list(ConfigMap, namespace=namespace)
    assert factory.informers == [informer]  # one all-namespaces informer per kind


async def test_a_cache_miss_raises_the_same_not_found_the_server_does(client, factory):
    namespace = await fresh_namespace(client, "reader-miss")
    reader = CacheReader(factory, sync_timeout=30)
    with pytest.raises(errors.NotFound) as from_cache:
        await reader.get(ConfigMap, "nope", namespace=namespace)
    with pytest.raises(errors.NotFound) as from_server:
        await client.api(ConfigMap, namespace=namespace).get("nope")
    cached, served = from_cache.value.status, from_server.value.status
    for field in ("code", "reason", "message", "details"):
        assert cached[field] == served[field]


async def test_list_filters_by_labels_and_indexed_fields(client, factory):
    namespace = await fresh_namespace(client, "reader-fields")
    api = client.api(ConfigMap, namespace=namespace)
    for cm in (
        labelled("a1", namespace, app="web"),
        labelled("b1", namespace),
        labelled("c2", namespace, app="web"),
    ):
        await api.create(cm)
    reader = CacheReader(factory, sync_timeout=30)
    reader.index_field(ConfigMap, "data.node", lambda cm: [(cm.data or {}).get("node", "")])
    with pytest.raises(ValueError, match="already exists"):
        reader.index_field(ConfigMap, "data.node", lambda cm: [])

    def names(objs: list[ConfigMap]) -> list[str]:
        return sorted(o.metadata.name or "" for o in objs)

    assert names(await reader.list(ConfigMap, namespace=namespace, label_selector="app=web")) == [
        "a1",
        "c2",
    ]
    by_node = await reader.list(ConfigMap, namespace=namespace, fields={"data.node": "node-1"})
    assert names(by_node) == ["a1", "b1"]
    both = await reader.list(
        ConfigMap, namespace=namespace, label_selector="app=web", fields={"data.node": "node-1"}
    )
    assert names(both) == ["a1"]
    everywhere = await reader.list(ConfigMap, fields={"data.node": "node-2"})
    assert "c2" in names(everywhere)
    named = await reader.list(
        ConfigMap, fields={"metadata.name": "b1", "metadata.namespace": namespace}
    )
    assert names(named) == ["b1"]
    with pytest.raises(ValueError, match=r"index with name field:data\.missing does not exist"):
        await reader.list(ConfigMap, namespace=namespace, fields={"data.missing": "x"})


async def test_metadata_reads_cache_no_spec_or_data(client, factory):
    namespace = await fresh_namespace(client, "reader-meta")
    await client.api(ConfigMap, namespace=namespace).create(labelled("a1", namespace, app="web"))
    reader = CacheReader(factory, sync_timeout=30)
    [meta] = own(await reader.list_metadata(ConfigMap, namespace=namespace))
    assert isinstance(meta, PartialObjectMetadata)
    assert (meta.api_version, meta.kind) == ("v1", "ConfigMap")
    assert meta.metadata.labels == {"app": "web"}
    assert not hasattr(meta, "data")
    assert meta.unknown_fields_ is None  # data was dropped while decoding, not parked
    one = await reader.metadata(ConfigMap, "a1", namespace=namespace)
    assert one.metadata.uid == meta.metadata.uid
    [informer] = factory.informers  # the full ConfigMap informer was never started
    assert own(informer.store.list(namespace)) == [meta]


async def test_the_cached_client_writes_to_the_server_and_reads_back_from_the_cache(
    client, factory
):
    namespace = await fresh_namespace(client, "cached-client")
    kube = CachedClient(client, factory, sync_timeout=30)
    created = await kube.create(configmap("a", namespace, v="1"))
    assert created.metadata.uid

    async def cached_value() -> str | None:
        try:
            return (await kube.get(ConfigMap, "a", namespace=namespace)).data["v"]
        except errors.NotFound:
            return None

    await eventually_async(cached_value, "1")
    current = await kube.get(ConfigMap, "a", namespace=namespace)
    current.data = {"v": "2"}
    await kube.replace(current)
    current.data = {"v": "3"}  # the resourceVersion read is stale now
    with pytest.raises(errors.Conflict):
        await kube.replace(current)
    await kube.patch(ConfigMap, "a", {"data": {"v": "4"}}, namespace=namespace)
    await eventually_async(cached_value, "4")
    await kube.delete(ConfigMap, "a", namespace=namespace)
    await eventually_async(cached_value, None)
    with pytest.raises(TypeError, match="kind="):
        await kube.create({"metadata": {"name": "x", "namespace": namespace}})


async def test_a_lister_reads_one_store_by_name(client, factory):
    namespace = await fresh_namespace(client, "lister")
    await client.api(ConfigMap, namespace=namespace).create(configmap("a", namespace))
    informer = factory.informer(ConfigMap, namespace=namespace)
    factory.start()
    await informer.wait_for_sync(timeout=30)
    lister = Lister(informer.store, ConfigMap.info)
    await eventually(lambda: len(own(lister.list(namespace))) == 1)
    assert lister.get("a", namespace).metadata.name == "a"
    with pytest.raises(errors.NotFound, match='configmaps "b" not found'):
        lister.get("b", namespace)


async def eventually_async(fetch: Any, expected: Any) -> None:
    got = None
    for _ in range(400):
        got = await fetch()
        if got == expected:
            return
        await asyncio.sleep(0.05)
    assert got == expected
