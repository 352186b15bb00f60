"""Every verb, typed and dynamic, against the real local API server; and its failures."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import pytest
from kf_widgets import Widget, WidgetSpec, WidgetStatus

from kubeforge.client import Client
from kubeforge.config import ClientConfig, load_config
from kubeforge.core.errors import (
    AlreadyExists,
    Conflict,
    Invalid,
    NotFound,
    TransportError,
    Unauthorized,
)
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import ConfigMap
from kubeforge.testing import LocalApiServer
from watch.kf_server import own


def config_map(name: str, data: dict[str, str] | None = None, **labels: str) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name=name, labels=labels or None), data=data)


async def test_a_typed_object_goes_through_create_get_replace_and_delete(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    created = await cms.create(config_map("a", {"k": "v"}))
    assert created.metadata.uid and created.metadata.resource_version
    assert created.metadata.namespace == namespace

    fetched = await cms.get("a")
    assert isinstance(fetched, ConfigMap) and fetched.data == {"k": "v"}

    fetched.data = {"k": "changed"}
    replaced = await cms.replace(fetched)
    assert replaced.data == {"k": "changed"}
    assert replaced.metadata.resource_version != created.metadata.resource_version

    assert await cms.delete("a") is None
    with pytest.raises(NotFound):
        await cms.get("a")


async def test_an_api_without_namespace_creates_in_the_objects_own_namespace(
    client: Client, namespace: str
) -> None:
    obj = ConfigMap(metadata=ObjectMeta(name="own", namespace=namespace), data={})
    created = await client.api(ConfigMap).create(obj)
    assert created.metadata.namespace == namespace


async def test_a_namespaced_create_without_any_namespace_is_refused_before_sending(
    client: Client,
) -> None:
    with pytest.raises(ValueError, match="is namespaced"):
        await client.api(ConfigMap).create(config_map("nowhere"))


async def test_replacing_with_a_stale_resource_version_is_a_conflict(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    stale = await cms.create(config_map("c", {"v": "1"}))
    await cms.patch("c", {"data": {"v": "2"}})
    stale.data = {"v": "3"}
    with pytest.raises(Conflict) as info:
        await cms.replace(stale)
    assert not isinstance(info.value, AlreadyExists)
    assert info.value.status["reason"] == "Conflict"
    assert "the object has been modified" in info.value.message


async def test_creating_a_taken_name_is_already_exists(client: Client, namespace: str) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    await cms.create(config_map("dup"))
    with pytest.raises(AlreadyExists) as info:
        await cms.create(config_map("dup"))
    assert info.value.code == 409
    assert info.value.details["name"] == "dup"


async def test_a_missing_object_is_not_found_with_the_servers_message(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    with pytest.raises(NotFound) as info:
        await cms.get("ghost")
    assert info.value.message == 'configmaps "ghost" not found'
    with pytest.raises(NotFound):
        await cms.delete("ghost")


async def test_merge_json_and_strategic_patches_each_apply(client: Client, namespace: str) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    await cms.create(config_map("p", {"a": "1"}))
    merged = await cms.patch("p", {"data": {"b": "2"}})
    assert merged.data == {"a": "1", "b": "2"}
    patched = await cms.patch(
        "p", [{"op": "replace", "path": "/data/a", "value": "x"}], patch_type="json"
    )
    assert patched.data == {"a": "x", "b": "2"}
    strategic = await cms.patch("p", {"metadata": {"labels": {"s": "y"}}}, patch_type="strategic")
    assert strategic.metadata.labels == {"s": "y"}


async def test_a_failed_json_patch_test_is_reported_by_the_server(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    await cms.create(config_map("t", {"a": "1"}))
    with pytest.raises(Invalid):
        await cms.patch("t", [{"op": "test", "path": "/data/a", "value": "2"}], patch_type="json")


async def test_replace_status_changes_only_the_status(
    client: Client, namespace: str, widget_crd: None
) -> None:
    widgets = client.api(Widget, namespace=namespace)
    created = await widgets.create(
        Widget(metadata=ObjectMeta(name="w"), spec=WidgetSpec(size=1, color="red"))
    )
    created.status = WidgetStatus(phase="Ready")
    created.spec.size = 99  # ignored by the status subresource
    updated = await widgets.replace_status(created)
    assert updated.status == WidgetStatus(phase="Ready")
    assert updated.spec.size == 1


async def test_delete_passes_the_propagation_policy_to_the_server(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    held = config_map("held")
    held.metadata.finalizers = ["test.kubeforge.io/hold"]  # keeps it visible after the delete
    await cms.create(held)
    await cms.delete("held", grace_period_seconds=0, propagation_policy="Foreground")
    marked = await cms.get("held")
    assert marked.metadata.deletion_timestamp is not None
    assert "foregroundDeletion" in (marked.metadata.finalizers or [])


async def test_lists_filter_by_label_and_field_selectors(client: Client, namespace: str) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    for name, tier in (("web-1", "web"), ("web-2", "web"), ("db-1", "db")):
        await cms.create(config_map(name, tier=tier))
    web = await cms.list(label_selector="tier=web")
    assert sorted(i.metadata.name or "" for i in web.items) == ["web-1", "web-2"]
    assert web.resource_version
    one = await cms.list(field_selector="metadata.name=db-1")
    assert [i.metadata.name for i in one.items] == ["db-1"]


async def test_pages_follow_the_continue_token_to_the_end(client: Client, namespace: str) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    for i in range(5):
        await cms.create(config_map(f"page-{i}", batch="b"))
    names: list[str] = []
    pages = 0
    page = await cms.list(label_selector="batch=b", limit=2)
    while True:
        pages += 1
        names += [i.metadata.name or "" for i in page.items]
        if page.continue_ is None:
            break
        page = await cms.list(label_selector="batch=b", limit=2, continue_=page.continue_)
    assert sorted(names) == [f"page-{i}" for i in range(5)]
    assert pages == 3


async def test_an_api_without_namespace_lists_across_namespaces(
    client: Client, namespace: str
) -> None:
    other = f"{namespace}-b"
    await client.request(
        "POST", "/api/v1/namespaces", body={"metadata": {"name": other}, "kind": "Namespace"}
    )
    marker = namespace  # a label value unique to this test
    for ns in (namespace, other):
        await client.api(ConfigMap, namespace=ns).create(config_map("x", mark=marker))
    everywhere = await client.api(ConfigMap).list(label_selector=f"mark={marker}")
    assert sorted(i.metadata.namespace or "" for i in everywhere.items) == [namespace, other]


async def test_the_dynamic_face_does_every_verb_with_dicts(client: Client, namespace: str) -> None:
    cms = client.dynamic(ConfigMap.info, namespace=namespace)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}, "data": {"k": "1"}}
    created = await cms.create(body)
    assert created["metadata"]["uid"]
    fetched = await cms.get("d")
    fetched["data"]["k"] = "2"
    assert (await cms.replace(fetched))["data"] == {"k": "2"}
    assert (await cms.patch("d", {"data": {"j": "3"}}))["data"] == {"k": "2", "j": "3"}
    page = await cms.list()
    assert [(i["kind"], i["apiVersion"], i["metadata"]["name"]) for i in own(page.items)] == [
        ("ConfigMap", "v1", "d")
    ]
    await cms.delete("d")
    with pytest.raises(NotFound):
        await cms.get("d")


async def test_a_wrong_token_is_unauthorized(kube_apiserver: LocalApiServer) -> None:
    config = dataclasses.replace(load_config(kube_apiserver.kubeconfig), token="wrong")
    async with Client(config) as client:
        with pytest.raises(Unauthorized) as info:
            await client.api(ConfigMap, namespace="default").list()
    assert info.value.code == 401


async def test_a_rotated_token_file_is_used_from_the_next_request_on(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(kube_apiserver.token)
    config = dataclasses.replace(
        load_config(kube_apiserver.kubeconfig), token=None, token_file=token_file
    )
    async with Client(config) as client:
        cms = client.api(ConfigMap, namespace="default")
        await cms.list()
        token_file.write_text("rotated-to-a-token-the-server-does-not-know")
        with pytest.raises(Unauthorized):
            await cms.list()


async def test_an_untrusted_server_certificate_is_a_transport_error(
    kube_apiserver: LocalApiServer,
) -> None:
    config = dataclasses.replace(load_config(kube_apiserver.kubeconfig), ca_data=None)
    async with Client(config) as client:
        with pytest.raises(TransportError, match="certificate"):
            await client.request("GET", "/version")


async def test_a_refused_connection_is_a_transport_error_naming_the_request() -> None:
    with socket.socket() as sock:  # a port that was just free and is now closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with Client(ClientConfig(server=f"http://127.0.0.1:{port}")) as client:
        with pytest.raises(TransportError, match=f"GET http://127.0.0.1:{port}/version") as info:
            await client.request("GET", "/version")
    assert info.value.__cause__ is not None


async def test_raw_requests_return_decoded_json(client: Client) -> None:
    version = await client.request("GET", "/version")
    assert version["major"] == "1"
    assert await client.request("GET", "/readyz") == "ok"
