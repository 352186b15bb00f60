"""``client.metadata(kind)``: metadata-only verbs, with only metadata on the wire."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from kf_widgets import Widget, WidgetSpec

from kubeforge.client import Client, PartialObjectMetadata, metadata_kind
from kubeforge.client.metadata import metadata_codec
from kubeforge.config import load_config
from kubeforge.core.errors import Gone, NotFound
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import ConfigMap, Secret
from kubeforge.testing import LocalApiServer
from watch.kf_server import own


class RecordingClient(Client):
    """A real client that also keeps every body the server answered (watch lines included)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[Any] = []

    async def exchange(self, *args: Any, **kwargs: Any) -> Any:
        answer = await super().exchange(*args, **kwargs)
        if answer.body:
            self.received.append(orjson.loads(answer.body))
        return answer

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[bytes]:
        async for line in super().stream(*args, **kwargs):
            self.received.append(orjson.loads(line))
            yield line


@pytest.fixture
async def recording(kube_apiserver: LocalApiServer) -> AsyncIterator[RecordingClient]:
    async with RecordingClient(load_config(kube_apiserver.kubeconfig)) as client:
        yield client


def config_map(name: str, **labels: str) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name=name, labels=labels or None), data={"k": "v" * 100})


async def test_get_returns_the_kinds_metadata_class_and_the_server_sent_only_metadata(
    client: Client, recording: RecordingClient, namespace: str
) -> None:
    created = await client.api(ConfigMap, namespace=namespace).create(config_map("one", app="web"))
    meta = await recording.metadata(ConfigMap, namespace=namespace).get("one")
    assert type(meta) is metadata_kind(ConfigMap.info)
    assert isinstance(meta, PartialObjectMetadata)
    assert (meta.api_version, meta.kind) == ("v1", "ConfigMap")
    assert meta.metadata.uid == created.metadata.uid
    assert meta.metadata.labels == {"app": "web"}
    [sent] = recording.received
    assert (sent["kind"], sent["apiVersion"]) == ("PartialObjectMetadata", "meta.k8s.io/v1")
    assert "data" not in sent


async def test_a_missing_object_is_not_found(client: Client, namespace: str) -> None:
    with pytest.raises(NotFound):
        await client.metadata(ConfigMap, namespace=namespace).get("absent")


async def test_list_pages_hold_metadata_only(
    client: Client, recording: RecordingClient, namespace: str
) -> None:
    configmaps = client.api(ConfigMap, namespace=namespace)
    for name in ("a", "b", "c"):
        await configmaps.create(config_map(name))
    metas = recording.metadata(ConfigMap, namespace=namespace)
    listed = [meta async for meta in metas.iterate(page_size=2)]
    names = [meta.metadata.name for meta in own(listed)]
    assert names == ["a", "b", "c"]
    page = await metas.list(limit=2)
    assert page.resource_version and page.continue_
    assert all(item.kind == "ConfigMap" for item in page.items)
    assert {body["kind"] for body in recording.received} == {"PartialObjectMetadataList"}
    assert all("data" not in item for body in recording.received for item in body["items"])


async def test_watch_events_and_bookmarks_carry_metadata_only(
    client: Client, recording: RecordingClient, namespace: str
) -> None:
    configmaps = client.api(ConfigMap, namespace=namespace)
    metas = recording.metadata(ConfigMap, namespace=namespace)
    start = (await metas.list()).resource_version
    recording.received.clear()
    await configmaps.create(config_map("w"))
    events = []
    # The bookmark is the one due 2 s before the timeout, sent as something changed since
    # the watch began (here the writes made once it is open); 1.32 sends none at the end.
    async for event in metas.watch(resource_version=start, timeout_seconds=3):
        events.append(event)
        if event.type == "ADDED":
            await configmaps.patch("w", {"data": {"k": "changed"}})
            await configmaps.delete("w")
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]
    assert all(type(e.object) is metadata_kind(ConfigMap.info) for e in events)
    assert [e.object.kind for e in events] == ["ConfigMap"] * 4
    lines = recording.received
    assert [line["object"]["kind"] for line in lines] == ["PartialObjectMetadata"] * 4
    assert all(set(line["object"]) == {"kind", "apiVersion", "metadata"} for line in lines)


def test_an_error_event_is_still_raised_as_gone() -> None:
    codec = metadata_codec(metadata_kind(ConfigMap.info))
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "code": 410,
        "reason": "Expired",
    }
    with pytest.raises(Gone):
        codec.decode_event(orjson.dumps({"type": "ERROR", "object": status}))


async def test_a_metadata_kind_class_given_to_api_gets_the_metadata_verbs(
    recording: RecordingClient, namespace: str
) -> None:
    await recording.api(Secret, namespace=namespace).create(
        Secret(metadata=ObjectMeta(name="s"), string_data={"password": "hunter2"})
    )
    recording.received.clear()
    secrets = recording.api(metadata_kind(Secret.info), namespace=namespace)
    [meta] = (await secrets.list()).items
    assert meta.metadata.name == "s"
    assert "hunter2" not in orjson.dumps(recording.received).decode()
    assert all("data" not in item for item in recording.received[0]["items"])


@pytest.mark.usefixtures("widget_crd")
async def test_custom_resources_by_resource_info(
    client: Client, recording: RecordingClient, namespace: str
) -> None:
    widgets = client.api(Widget, namespace=namespace)
    await widgets.create(Widget(metadata=ObjectMeta(name="w1"), spec=WidgetSpec(size=3)))
    meta = await recording.metadata(Widget.info, namespace=namespace).get("w1")
    assert (meta.api_version, meta.kind) == (Widget.info.api_version, "Widget")
    assert "spec" not in recording.received[0]


async def test_a_patch_answers_metadata_and_keeps_the_rest_on_the_server(
    client: Client, recording: RecordingClient, namespace: str
) -> None:
    configmaps = client.api(ConfigMap, namespace=namespace)
    await configmaps.create(config_map("p"))
    metas = recording.metadata(ConfigMap, namespace=namespace)
    patched = await metas.patch("p", {"metadata": {"labels": {"seen": "yes"}}})
    assert patched.metadata.labels == {"seen": "yes"}
    assert "data" not in recording.received[0]
    assert (await configmaps.get("p")).data == {"k": "v" * 100}


async def test_metadata_reads_run_concurrently_with_plain_ones(
    client: Client, namespace: str
) -> None:
    configmaps = client.api(ConfigMap, namespace=namespace)
    await configmaps.create(config_map("c"))
    full, meta = await asyncio.gather(
        configmaps.get("c"), client.metadata(ConfigMap, namespace=namespace).get("c")
    )
    assert full.data == {"k": "v" * 100}
    assert meta.metadata.resource_version == full.metadata.resource_version


def test_a_whole_object_from_a_server_without_the_conversion_decodes_to_metadata() -> None:
    codec = metadata_codec(metadata_kind(ConfigMap.info))
    whole = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"v"}}'
    meta = codec.decode(whole)
    assert (meta.kind, meta.metadata.name) == ("ConfigMap", "x")
    assert meta.unknown_fields_ is None


def test_only_the_meta_k8s_io_kind_is_rewritten() -> None:
    codec = metadata_codec(metadata_kind(ConfigMap.info))
    beta = b'{"apiVersion":"meta.k8s.io/v1beta1","kind":"PartialObjectMetadata","metadata":{}}'
    assert codec.decode(beta).kind == "ConfigMap"
    other = b'{"type":"ADDED","object":{"apiVersion":"v1","kind":"Secret","metadata":{}}}'
    assert codec.decode_event(other).object.kind == "Secret"
