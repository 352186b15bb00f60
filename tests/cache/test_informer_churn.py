"""Thousands of changes, a forced 410 and a server restart: the cache ends equal to the server.

Run with both initial lists: paged LISTs, and streaming lists (watches with
``sendInitialEvents``), which the local server serves as a 1.32 server does.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from kubeforge.cache import Informer
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.watch import WatcherConfig
from watch.kf_server import configmap, eventually, fresh_namespace


class GatedApi:
    """The real Api, except that new watches wait while ``open`` is clear."""

    def __init__(self, api: Any) -> None:
        self.api = api
        self.info = api.info
        self.open = asyncio.Event()
        self.open.set()
        self.lists = 0
        self.streaming_lists = 0

    async def list(self, **kwargs: Any) -> Any:
        raise AssertionError("the watcher lists lazily when the Api can")

    async def list_lazily(self, **kwargs: Any) -> Any:
        self.lists += not kwargs.get("continue_")  # a list, not one of its later pages
        return await self.api.list_lazily(**kwargs)

    async def watch(self, **kwargs: Any) -> AsyncIterator[Any]:
        await self.open.wait()
        self.streaming_lists += bool(kwargs.get("send_initial_events"))
        async for event in self.api.watch(**kwargs):
            yield event


class Shadow:
    """Rebuilds the collection from handler calls alone; records any call that makes no sense."""

    def __init__(self, informer: Informer[ConfigMap]) -> None:
        self.state: dict[str, str] = {}
        self.missed: list[str] = []
        self.violations: list[str] = []
        informer.add_handler(
            on_add=self._add,
            on_update=self._update,
            on_delete=self._delete,
            on_missed_delete=self._missed,
        )

    def _add(self, obj: ConfigMap) -> None:
        name = obj.metadata.name or ""
        if name in self.state:
            self.violations.append(f"add of known {name}")
        self.state[name] = obj.metadata.resource_version or ""

    def _update(self, old: ConfigMap, new: ConfigMap) -> None:
        name = new.metadata.name or ""
        if self.state.get(name) != old.metadata.resource_version:
            self.violations.append(f"update of {name} from a version never reported")
        self.state[name] = new.metadata.resource_version or ""

    def _delete(self, obj: ConfigMap) -> None:
        if self.state.pop(obj.metadata.name or "", None) is None:
            self.violations.append(f"delete of unknown {obj.metadata.name}")

    def _missed(self, obj: ConfigMap) -> None:
        self.missed.append(obj.metadata.name or "")
        self._delete(obj)


class Churn:
    """Random creates, updates and deletes over one namespace, 32 at a time."""

    def __init__(self, namespace: str, seed: int) -> None:
        self.namespace = namespace
        self.alive: set[str] = set()
        self.deleted: set[str] = set()
        self.counter = 0
        self.random = random.Random(seed)

    async def run(self, client: Client, operations: int) -> None:
        api = client.api(ConfigMap, namespace=self.namespace)
        batch: list[Callable[[], Awaitable[Any]]] = []
        touched: set[str] = set()
        for _ in range(operations):
            roll = self.random.random()
            candidates = sorted(self.alive - touched)
            if roll < 0.4 or not candidates:
                name = f"cm-{self.counter}"
                self.counter += 1
                self.alive.add(name)
                batch.append(lambda n=name: api.create(configmap(n, self.namespace, v="0")))
            elif roll < 0.8:
                name = self.random.choice(candidates)
                body = {"data": {"v": str(self.random.random())}}
                batch.append(lambda n=name, b=body: api.patch(n, b))
            else:
                name = self.random.choice(candidates)
                self.alive.discard(name)
                self.deleted.add(name)
                batch.append(lambda n=name: api.delete(n))
            touched.add(name)
            if len(batch) == 32:  # one change per object per batch: no ordering races
                await asyncio.gather(*(op() for op in batch))
                batch, touched = [], set()
        await asyncio.gather(*(op() for op in batch))


def contents(informer: Informer[ConfigMap]) -> dict[str, str]:
    return {o.metadata.name or "": o.metadata.resource_version or "" for o in informer.store.list()}


async def server_contents(client: Client, namespace: str) -> dict[str, str]:
    page = await client.api(ConfigMap, namespace=namespace).list()
    return {o.metadata.name or "": o.metadata.resource_version or "" for o in page.items}


@pytest.mark.parametrize("initial_list", ["paged", "streaming"])
async def test_the_cache_equals_the_server_after_churn_a_forced_410_and_a_restart(
    kube_apiserver_factory, initial_list
):
    server = kube_apiserver_factory(extra_args=["--watch-history", "200"], simulate_node=False)
    async with Client(load_config(server.kubeconfig)) as client:
        namespace = await fresh_namespace(client, "churn")
        churn = Churn(namespace, seed=7)
        await churn.run(client, 300)
        gated = GatedApi(client.api(ConfigMap, namespace=namespace))
        config = WatcherConfig(initial_list=initial_list)
        informer: Informer[ConfigMap] = Informer(gated, config, name="configmaps")
        shadow = Shadow(informer)
        informer.start()
        try:
            await informer.wait_for_sync(timeout=30)
            await churn.run(client, 1500)  # watched live
            caught_up = await server_contents(client, namespace)
            await eventually(lambda: contents(informer) == caught_up)

            # The watch breaks with the server and may not resume until far more changes
            # than the server's 200-event history have happened: its version is gone.
            gated.open.clear()
            server.kill()
            await asyncio.to_thread(server.restart)
            async with Client(load_config(server.kubeconfig)) as fresh:
                deleted_before = set(churn.deleted)
                await churn.run(fresh, 1500)
                missed_deletes = churn.deleted - deleted_before
                gated.open.set()
                relisted = await server_contents(fresh, namespace)
                await eventually(lambda: contents(informer) == relisted)
                await churn.run(fresh, 500)  # watched live again, after the relist
                expected = await server_contents(fresh, namespace)
            await eventually(lambda: contents(informer) == expected)
            await eventually(lambda: shadow.state == expected)
        finally:
            await informer.stop()
    assert shadow.violations == []
    assert set(expected) == churn.alive
    # Only the relist after 410 can report deletions as missed, and it reports
    # exactly those made while the watch was away (minus objects created meanwhile).
    assert shadow.missed
    assert set(shadow.missed) <= missed_deletes
    # The first sync and the relist after 410 both read the state the chosen way.
    if initial_list == "streaming":
        assert (gated.lists, gated.streaming_lists) == (0, 2)
    else:
        assert (gated.lists, gated.streaming_lists) == (2, 0)
