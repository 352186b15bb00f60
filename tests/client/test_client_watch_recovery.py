"""The client under ``kubeforge.watch.watcher`` against real servers: a watch survives the
server restarting mid-stream, and a resume point the server no longer keeps (410) relists."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from typing import Any

from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import ConfigMap, Namespace
from kubeforge.testing import LocalApiServer
from kubeforge.watch import Apply, Event, Init, InitDone, WatcherConfig, watcher


def config_map(name: str, **labels: str) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name=name, labels=labels or None))


async def next_matching(
    events: AsyncGenerator[Event[Any], None], wanted: Callable[[Event[Any]], bool]
) -> Event[Any]:
    async with asyncio.timeout(60):
        while True:
            event = await anext(events)
            if wanted(event):
                return event


def applied(name: str) -> Callable[[Event[Any]], bool]:
    return lambda e: isinstance(e, Apply) and e.object.metadata.name == name


async def test_a_watch_resumes_after_the_server_restarts_mid_stream(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    async with Client(load_config(server.kubeconfig)) as client:
        cms = client.api(ConfigMap, namespace="default")
        events = watcher(cms, WatcherConfig(timeout_seconds=60))
        await next_matching(events, lambda e: isinstance(e, InitDone))
        await cms.create(config_map("before-restart"))
        await next_matching(events, applied("before-restart"))

        server.restart()  # same port, CA, token and data: the stream breaks, nothing is lost
        await cms.create(config_map("after-restart"))
        event = await next_matching(events, applied("after-restart"))
        assert event.object.metadata.namespace == "default"
        await events.aclose()


async def test_a_resume_point_older_than_the_server_keeps_relists(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(
        data_dir=None, extra_args=["--watch-history", "5", "--bookmark-interval", "3600"]
    )
    async with Client(load_config(server.kubeconfig)) as client:
        cms = client.api(ConfigMap, namespace="default")
        await cms.create(config_map("mine", app="watched"))
        events = watcher(cms, WatcherConfig(label_selector="app=watched", timeout_seconds=1))
        await next_matching(events, lambda e: isinstance(e, InitDone))
        # While nobody reads, the server ends the watch and unrelated writes push the
        # watcher's resume point out of the 5 events the server keeps.
        await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name="noise")))
        noise = client.api(ConfigMap, namespace="noise")
        for i in range(10):
            await noise.create(config_map(f"noise-{i}"))
        await asyncio.sleep(1.5)
        await cms.create(config_map("after-gap", app="watched"))
        relisted = await next_matching(events, lambda e: isinstance(e, Init))
        assert isinstance(relisted, Init)
        names = set()
        while not isinstance(event := await anext(events), InitDone):
            names.add(event.object.metadata.name)
        assert names == {"mine", "after-gap"}
        await events.aclose()
