"""``CacheOptions`` against the real local API server: namespaces, selectors, transforms,
and reads outside the cache's scope failing loudly (controller-runtime's cache.Options)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubeforge import Builder, Manager, ManagerOptions, Request, Result
from kubeforge.cache import (
    ByObject,
    CachedClient,
    CacheOptions,
    InformerFactory,
    MultiNamespaceInformer,
    OutsideCacheScope,
)
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap, Namespace
from watch.kf_server import configmap, eventually, fresh_namespace, own

pytestmark = pytest.mark.live


async def three_namespaces(client: Client) -> tuple[str, str, str]:
    a, b, c = [await fresh_namespace(client, "scope") for _ in range(3)]
    for namespace in (a, b, c):
        await client.api(ConfigMap, namespace=namespace).create(configmap("cm", namespace))
    return a, b, c


async def test_default_namespaces_cache_only_those_and_refuse_reads_elsewhere(
    client: Client,
) -> None:
    a, b, c = await three_namespaces(client)
    factory = InformerFactory(client, options=CacheOptions(default_namespaces=[a, b]))
    informer = factory.informer(ConfigMap)
    factory.start()
    try:
        await factory.wait_for_sync(30)
        store = factory.store(ConfigMap)

        assert isinstance(informer, MultiNamespaceInformer)
        # one watch per namespace, never a cluster-wide one
        assert sorted(i.api.namespace for i in factory.informers) == sorted([a, b])  # type: ignore[attr-defined]
        assert sorted(cm.metadata.namespace for cm in own(store.list())) == sorted([a, b])
        assert store.get(f"{a}/cm") is not None
        assert store.get(f"{a}/absent") is None  # in scope: simply not there
        with pytest.raises(OutsideCacheScope) as refused:
            store.get(f"{c}/cm")
        assert str(refused.value).startswith(
            f"unable to get: {c}/cm because of unknown namespace for the cache"
        )
        with pytest.raises(OutsideCacheScope, match=f"unable to list: {c} because of unknown"):
            store.list(c)
        with pytest.raises(OutsideCacheScope):
            factory.informer(ConfigMap, namespace=c)
        # cluster-scoped kinds are not restricted
        assert factory.store(Namespace) is not None
    finally:
        await factory.stop()


async def test_the_cached_client_refuses_a_namespace_outside_the_cache(client: Client) -> None:
    a, _, c = await three_namespaces(client)
    factory = InformerFactory(client, options=CacheOptions(default_namespaces=[a]))
    cached = CachedClient(client, factory, sync_timeout=30)
    try:
        assert (await cached.get(ConfigMap, "cm", namespace=a)).metadata.name == "cm"
        with pytest.raises(OutsideCacheScope, match=f"unable to get: {c}/cm because of unknown"):
            await cached.get(ConfigMap, "cm", namespace=c)
        with pytest.raises(OutsideCacheScope):
            await cached.list(ConfigMap, namespace=c)
    finally:
        await factory.stop()


async def test_selectors_combine_and_transforms_apply_per_kind(client: Client) -> None:
    namespace = await fresh_namespace(client, "select")
    api = client.api(ConfigMap, namespace=namespace)
    shop_web = {"app": "shop", "tier": "web"}
    for name, labels in (
        ("kept", shop_web),
        ("kept-out-by-field", shop_web),
        ("other-app", {"app": "x"}),
        ("other-tier", {"app": "shop", "tier": "db"}),
    ):
        meta = ObjectMeta(name=name, namespace=namespace, labels=labels)
        await api.create(ConfigMap(metadata=meta, data={"big": "x" * 100}))

    def drop_data(cm: ConfigMap) -> ConfigMap:
        cm.data = None
        return cm

    options = CacheOptions(
        default_namespaces=[namespace],
        default_label_selector="app=shop",
        by_object={
            ConfigMap: ByObject(
                field_selector="metadata.name!=kept-out-by-field", transform=drop_data
            )
        },
    )
    factory = InformerFactory(client, options=options)
    store = factory.store(ConfigMap, label_selector="tier=web")  # ANDed with the cache's
    factory.start()
    try:
        await factory.wait_for_sync(30)
        (only,) = store.list()
        assert only.metadata.name == "kept"
        assert only.data is None  # transformed before it was cached
    finally:
        await factory.stop()


async def test_a_manager_restricted_to_namespaces_reconciles_only_there(
    client: Client, kube_apiserver: Any
) -> None:
    a, b, c = await three_namespaces(client)
    seen: set[str] = set()

    async def reconcile(request: Request) -> Result:
        seen.add(request.namespace)
        return Result()

    options = ManagerOptions(cache=CacheOptions(default_namespaces=[a, b]))
    manager = Manager(load_config(kube_apiserver.kubeconfig), options=options)
    Builder(manager).for_(ConfigMap).complete(reconcile)
    running = asyncio.create_task(manager.run())
    try:
        await eventually(lambda: {a, b} <= seen)
        await client.api(ConfigMap, namespace=c).create(configmap("late", c))
        await client.api(ConfigMap, namespace=a).create(configmap("late", a))
        await eventually(lambda: manager.cache.store(ConfigMap).get(f"{a}/late") is not None)
        assert c not in seen
    finally:
        manager.stop()
        await running
