"""Informers against the real local API server: churn, 410 relist, server restart."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubeforge.cache import Informer
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.watch import WatcherConfig
from watch.kf_server import configmap, eventually, fresh_namespace, own

pytestmark = pytest.mark.live


class Shadow:
    """Rebuilds the collection from handler calls alone: name -> resourceVersion."""

    def __init__(self, informer: Informer[ConfigMap]) -> None:
        self.state: dict[str, str] = {}
        self.deleted: list[str] = []
        informer.add_handler(on_add=self._put, on_update=self._update, on_delete=self._delete)

    def _put(self, obj: ConfigMap) -> None:
        self.state[obj.metadata.name or ""] = obj.metadata.resource_version or ""

    def _update(self, old: ConfigMap, new: ConfigMap) -> None:
        assert old.metadata.name in self.state, "update before add"
        self._put(new)

    def _delete(self, obj: ConfigMap) -> None:
        self.deleted.append(obj.metadata.name or "")
        del self.state[obj.metadata.name or ""]


def contents(informer: Informer[ConfigMap]) -> dict[str, str]:
    return {o.metadata.name or "": o.metadata.resource_version or "" for o in informer.store.list()}


async def server_contents(client: Client, namespace: str) -> dict[str, str]:
    page = await client.api(ConfigMap, namespace=namespace).list()
    return {o.metadata.name or "": o.metadata.resource_version or "" for o in page.items}


async def test_an_informer_converges_to_the_server_state_after_churn(kube_apiserver):
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        namespace = await fresh_namespace(client, "informer-churn")
        api = client.api(ConfigMap, namespace=namespace)
        for i in range(12):
            await api.create(configmap(f"pre-{i}", namespace, n=str(i)))
        # A small page size makes the first list take several pages.
        config = WatcherConfig(page_size=5, list_semantic="most_recent")
        informer: Informer[ConfigMap] = Informer(api, config, name="configmaps")
        shadow = Shadow(informer)
        informer.start()
        try:
            await informer.wait_for_sync(timeout=30)
            assert len(own(informer.store.list())) == 12

            async def update(name: str) -> None:
                current = await api.get(name)
                current.data = {"n": "updated"}
                await api.replace(current)

            await asyncio.gather(
                *(api.create(configmap(f"new-{i}", namespace)) for i in range(15)),
                *(update(f"pre-{i}") for i in range(0, 12, 2)),
                *(api.delete(f"pre-{i}") for i in range(1, 12, 4)),
            )
            await api.delete("new-3")
            expected = await server_contents(client, namespace)
            await eventually(lambda: contents(informer) == expected)
            assert shadow.state == expected
            assert sorted(shadow.deleted) == ["new-3", "pre-1", "pre-5", "pre-9"]
        finally:
            await informer.stop()


class GatedApi:
    """The real Api, except that watches wait for ``gate``: the watch 'misses' changes."""

    def __init__(self, api: Any) -> None:
        self.api = api
        self.info = api.info
        self.gate = asyncio.Event()

    async def list(self, **kwargs: Any) -> Any:
        return await self.api.list(**kwargs)

    async def watch(self, **kwargs: Any) -> AsyncIterator[Any]:
        await self.gate.wait()
        async for event in self.api.watch(**kwargs):
            yield event


async def test_a_watch_from_a_compacted_version_relists_and_reports_what_it_missed(
    kube_apiserver_factory,
):
    server = kube_apiserver_factory(extra_args=["--watch-history", "3"], simulate_node=False)
    async with Client(load_config(server.kubeconfig)) as client:
        namespace = await fresh_namespace(client, "informer-gone")
        api = client.api(ConfigMap, namespace=namespace)
        for name in ("keep", "change", "vanish"):
            await api.create(configmap(name, namespace))
        gated = GatedApi(api)
        informer: Informer[ConfigMap] = Informer(gated, name="configmaps")
        shadow = Shadow(informer)
        informer.start()
        try:
            await informer.wait_for_sync(timeout=30)
            # More changes than the server keeps, while the watch is held back.
            changed = await api.get("change")
            changed.data = {"v": "2"}
            await api.replace(changed)
            await api.delete("vanish")
            for i in range(4):
                await api.create(configmap(f"late-{i}", namespace))
            gated.gate.set()  # the watch now asks for the list's version: 410 Gone
            expected = await server_contents(client, namespace)
            await eventually(lambda: contents(informer) == expected)
            assert shadow.state == expected
            assert shadow.deleted == ["vanish"]
        finally:
            await informer.stop()


async def test_an_informer_reconnects_after_the_server_restarts(kube_apiserver_factory):
    server = kube_apiserver_factory(simulate_node=False)
    config = load_config(server.kubeconfig)
    async with Client(config) as client:
        namespace = await fresh_namespace(client, "informer-restart")
        api = client.api(ConfigMap, namespace=namespace)
        await api.create(configmap("before", namespace))
        informer: Informer[ConfigMap] = Informer(api, name="configmaps")
        informer.start()
        try:
            await informer.wait_for_sync(timeout=30)
            server.kill()
            await asyncio.to_thread(server.restart)
            async with Client(load_config(server.kubeconfig)) as fresh:
                await fresh.api(ConfigMap, namespace=namespace).create(
                    configmap("after", namespace)
                )
                expected = await server_contents(fresh, namespace)
            await eventually(lambda: contents(informer) == expected)
            assert set(expected) == {"before", "after"}
        finally:
            await informer.stop()
