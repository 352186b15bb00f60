"""Watch streams against the real local API server: events, bookmarks, Gone, and broken links."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from kubeforge.client import Client, WatchEvent
from kubeforge.config import load_config
from kubeforge.core.errors import Gone, TransportError
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import ConfigMap, Namespace
from kubeforge.testing import LocalApiServer


def config_map(name: str, data: dict[str, str] | None = None) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name=name), data=data)


async def take(events: AsyncIterator[WatchEvent[Any]], count: int) -> list[WatchEvent[Any]]:
    """The next ``count`` non-bookmark events."""
    taken: list[WatchEvent[Any]] = []
    async for event in events:
        if event.type != "BOOKMARK":
            taken.append(event)
        if len(taken) == count:
            break
    return taken


async def test_a_watch_from_a_list_version_sees_added_modified_and_deleted(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    start = (await cms.list()).resource_version
    await cms.create(config_map("w", {"v": "1"}))
    await cms.patch("w", {"data": {"v": "2"}})
    await cms.delete("w")
    events = await take(cms.watch(resource_version=start, timeout_seconds=30), 3)
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert all(isinstance(e.object, ConfigMap) for e in events)
    assert [e.object.data for e in events[:2]] == [{"v": "1"}, {"v": "2"}]
    versions = [int(e.object.metadata.resource_version) for e in events]
    assert versions == sorted(versions) and int(start) < versions[0]


async def test_a_live_watch_receives_changes_made_after_it_started(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    start = (await cms.list()).resource_version
    events = cms.watch(resource_version=start, timeout_seconds=30)
    first = asyncio.ensure_future(take(events, 2))
    await cms.create(config_map("live"))
    await cms.patch("live", {"data": {"x": "y"}})
    assert [(e.type, e.object.metadata.name) for e in await first] == [
        ("ADDED", "live"),
        ("MODIFIED", "live"),
    ]


async def test_a_dynamic_watch_filters_by_label_and_yields_dicts(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    start = (await cms.list()).resource_version
    await cms.create(ConfigMap(metadata=ObjectMeta(name="skip", labels={"pick": "no"})))
    await cms.create(ConfigMap(metadata=ObjectMeta(name="keep", labels={"pick": "yes"})))
    dynamic = client.dynamic(ConfigMap.info, namespace=namespace)
    [event] = await take(
        dynamic.watch(resource_version=start, label_selector="pick=yes", timeout_seconds=30), 1
    )
    assert event.type == "ADDED"
    assert isinstance(event.object, dict) and event.object["metadata"]["name"] == "keep"


async def test_objects_far_larger_than_a_64_kib_line_arrive_whole(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    start = (await cms.list()).resource_version
    big = "x" * 300_000
    await cms.create(config_map("big", {"blob": big}))
    [event] = await take(cms.watch(resource_version=start, timeout_seconds=30), 1)
    assert event.object.data == {"blob": big}


async def test_the_iteration_ends_when_the_server_ends_the_watch(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    start = (await cms.list()).resource_version
    await cms.create(config_map("before-end"))
    seen = [e async for e in cms.watch(resource_version=start, timeout_seconds=1)]
    assert [e.object.metadata.name for e in seen if e.type == "ADDED"] == ["before-end"]


# --- a server with a short history and frequent bookmarks ---------------------------------------


@pytest.fixture(scope="module")
def short_history_server() -> Iterator[LocalApiServer]:
    with LocalApiServer(extra_args=["--watch-history", "3", "--bookmark-interval", "0.05"]) as srv:
        yield srv


@pytest.fixture
async def short_history_client(short_history_server: LocalApiServer) -> AsyncIterator[Client]:
    async with Client(load_config(short_history_server.kubeconfig)) as client:
        yield client


async def fresh_namespace(client: Client, name: str) -> str:
    await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=name)))
    return name


async def test_a_watch_from_an_expired_version_raises_gone(short_history_client: Client) -> None:
    namespace = await fresh_namespace(short_history_client, "expired")
    cms = short_history_client.api(ConfigMap, namespace=namespace)
    old = (await cms.create(config_map("old"))).metadata.resource_version
    for i in range(5):  # push the first change out of the 3 events the server keeps
        await cms.create(config_map(f"newer-{i}"))
    with pytest.raises(Gone) as info:
        await take(cms.watch(resource_version=old, timeout_seconds=30), 1)
    assert info.value.code == 410
    assert info.value.reason in ("Expired", "Gone")


async def test_bookmarks_carry_the_latest_resource_version(short_history_client: Client) -> None:
    namespace = await fresh_namespace(short_history_client, "bookmarks")
    cms = short_history_client.api(ConfigMap, namespace=namespace)
    created = await cms.create(config_map("b"))
    bookmark = None
    async for event in cms.watch(
        resource_version=created.metadata.resource_version, timeout_seconds=30
    ):
        if event.type == "BOOKMARK":
            bookmark = event.object
            break
    assert bookmark is not None
    assert int(bookmark.metadata.resource_version or 0) >= int(
        created.metadata.resource_version or 0
    )


async def test_a_connection_lost_mid_stream_raises_transport_error(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    async with Client(load_config(server.kubeconfig)) as client:
        cms = client.api(ConfigMap, namespace="default")
        start = (await cms.list()).resource_version
        events = cms.watch(resource_version=start)
        await cms.create(config_map("proof-of-stream"))
        [event] = await take(events, 1)  # the stream is established and delivering
        assert event.object.metadata.name == "proof-of-stream"
        server.kill()
        with pytest.raises(TransportError) as info:
            await take(events, 1)
        assert info.value.__cause__ is not None
