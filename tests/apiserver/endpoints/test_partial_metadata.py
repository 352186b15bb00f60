"""Metadata-only output over raw HTTP: PartialObjectMetadata on get, list, watch and writes."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from kf_http import ROOT_CA, Api, configmap
from kf_http import take as _take

POM = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
POM_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
# What client-go's metadata client sends on a list: protobuf first, then the same as JSON.
CLIENT_GO_LIST = (
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
    f"{POM_LIST},application/json"
)


def _crd(plural: str) -> dict[str, Any]:
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    version = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"plural": plural, "kind": plural[:-1].capitalize()},
            "scope": "Namespaced",
            "versions": [version],
        },
    }


async def _get(api: Api, path: str, accept: str, **params: str) -> Any:
    return await api.request("GET", path, params=params or None, headers={"Accept": accept})


async def _watch(api: Api, path: str, accept: str, **params: str) -> AsyncIterator[Any]:
    query = {"watch": "true", **params}
    headers = {**api.headers(), "Accept": accept}
    async with api.session.get(api.server.url + path, params=query, headers=headers) as response:
        assert response.status == 200, await response.text()
        assert response.content_type == "application/json"
        async for line in response.content:
            if line.strip():
                yield json.loads(line)


def _is_partial(body: Any, version: str = "v1") -> bool:
    return (
        body["kind"] == "PartialObjectMetadata"
        and body["apiVersion"] == f"meta.k8s.io/{version}"
        and set(body) == {"kind", "apiVersion", "metadata"}
    )


async def test_a_get_answers_the_whole_metadata_and_nothing_else(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("one", secret="value"))).body
    reply = await _get(api, f"{path}/one", POM)
    assert reply.status == 200
    assert reply.headers["Content-Type"] == "application/json"
    assert _is_partial(reply.body)
    assert reply.body["metadata"] == created["metadata"]


async def test_v1beta1_is_served_too(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("beta"))
    reply = await _get(api, f"{path}/beta", POM.replace("v=v1", "v=v1beta1"))
    assert reply.status == 200
    assert _is_partial(reply.body, "v1beta1")


async def test_a_list_answers_a_partial_object_metadata_list_with_paging(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    for name in ("a", "b", "c"):
        await api.post(path, configmap(name, big="x" * 1000))
    reply = await _get(api, path, POM_LIST, limit="2")
    assert reply.status == 200
    body = reply.body
    assert (body["kind"], body["apiVersion"]) == ("PartialObjectMetadataList", "meta.k8s.io/v1")
    assert [item["metadata"]["name"] for item in body["items"]] == ["a", "b"]
    assert all(_is_partial(item) for item in body["items"])
    assert body["metadata"]["resourceVersion"].isdigit()
    assert body["metadata"]["remainingItemCount"] == 2  # c, and the namespace's root CA
    rest = await _get(api, path, POM_LIST, limit="2", **{"continue": body["metadata"]["continue"]})
    assert [item["metadata"]["name"] for item in rest.body["items"]] == ["c", ROOT_CA]
    assert "continue" not in rest.body["metadata"]


async def test_an_empty_list_has_an_empty_items_array(api: Api, namespace: str) -> None:
    reply = await _get(api, f"/api/v1/namespaces/{namespace}/secrets", POM_LIST)
    assert reply.status == 200
    assert reply.body["items"] == []


async def test_client_go_s_metadata_header_gets_json_metadata(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("cg"))
    reply = await _get(api, path, CLIENT_GO_LIST)
    assert reply.body["kind"] == "PartialObjectMetadataList"


async def test_the_first_servable_entry_wins_between_table_and_metadata(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("order"))
    assert (await _get(api, path, f"{POM_LIST},{TABLE}")).body[
        "kind"
    ] == "PartialObjectMetadataList"
    assert (await _get(api, path, f"{TABLE},{POM_LIST}")).body["kind"] == "Table"
    plain = await _get(api, path, f"application/json,{POM_LIST}")
    assert plain.body["kind"] == "ConfigMapList"


async def test_an_unknown_conversion_alone_is_406_and_falls_back_to_plain_json_when_listed(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("u", k="v"))
    unknown = "application/json;as=Fancy;g=meta.k8s.io;v=v1"
    refused = await _get(api, f"{path}/u", unknown)
    assert refused.status == 406
    assert refused.body["kind"] == "Status"
    assert refused.reason == "NotAcceptable"
    assert refused.body["message"].startswith("only the following media types are accepted: ")
    other_version = await _get(api, f"{path}/u", POM.replace("v=v1", "v=v2"))
    assert other_version.status == 406
    fallback = await _get(api, f"{path}/u", f"{unknown},application/json")
    assert fallback.status == 200
    assert fallback.body["data"] == {"k": "v"}


async def test_the_single_kind_on_a_list_and_the_list_kind_on_an_object_are_406(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("m"))
    on_list = await _get(api, path, f"{POM},application/json")
    assert on_list.status == 406
    assert on_list.body["message"] == (
        "you requested PartialObjectMetadata, but the requested object is a list "
        "(*core.ConfigMapList)"
    )
    on_object = await _get(api, f"{path}/m", POM_LIST)
    assert on_object.status == 406
    assert on_object.body["message"] == (
        "you requested PartialObjectMetadataList, but the requested object is not a list "
        "(*core.ConfigMap)"
    )


async def test_writes_answer_metadata_when_asked(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = await api.post(path, configmap("w", k="v"), headers={"Accept": POM})
    assert created.status == 201
    assert _is_partial(created.body)
    patched = await api.patch(
        f"{path}/w",
        {"metadata": {"labels": {"seen": "yes"}}},
        "application/merge-patch+json",
        headers={"Accept": POM},
    )
    assert _is_partial(patched.body)
    assert patched.body["metadata"]["labels"] == {"seen": "yes"}
    stored = (await api.get(f"{path}/w")).body
    assert stored["data"] == {"k": "v"}


async def test_custom_resources_and_cluster_scoped_kinds_convert_alike(
    api: Api, namespace: str
) -> None:
    plural = "m" + uuid.uuid4().hex[:8] + "s"
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    assert (await api.post(crds, _crd(plural))).status == 201
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    body = {"apiVersion": "example.com/v1", "kind": plural[:-1].capitalize()}
    reply = await api.post(path, {**body, "metadata": {"name": "w1"}, "spec": {"color": "red"}})
    assert reply.status == 201, reply.body
    listed = await _get(api, path, POM_LIST)
    [item] = listed.body["items"]
    assert _is_partial(item)
    assert item["metadata"]["name"] == "w1"
    on_list = await _get(api, path, POM)
    assert on_list.body["message"].endswith("(*unstructured.UnstructuredList)")
    namespaces = await _get(api, f"/api/v1/namespaces/{namespace}", POM)
    assert _is_partial(namespaces.body)
    assert namespaces.body["metadata"]["name"] == namespace


async def test_a_watch_streams_metadata_events_and_bookmarks_beside_a_plain_watch(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    # The bookmark is the one due 2 s before the timeout (1.32's watch cache sends none at the end).
    params = {"resourceVersion": start, "timeoutSeconds": "4", "allowWatchBookmarks": "true"}

    async def writes() -> None:
        created = (await api.post(path, configmap("w", k="1"))).body
        await api.put(f"{path}/w", {**created, "data": {"k": "2"}})
        await api.delete(f"{path}/w")

    # Both watches see the same events at once: the encoded lines must not be shared.
    metadata_events, plain_events, _ = await asyncio.gather(
        _take(_watch(api, path, POM, **params), 4),
        _take(_watch(api, path, "application/json", **params), 4),
        writes(),
    )
    assert [e["type"] for e in metadata_events] == ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]
    assert all(_is_partial(e["object"]) for e in metadata_events)
    assert [e["object"]["metadata"]["name"] for e in metadata_events[:3]] == ["w", "w", "w"]
    assert [e["object"].get("data") for e in plain_events[:3]] == [
        {"k": "1"},
        {"k": "2"},
        {"k": "2"},
    ]
    assert plain_events[3]["object"]["kind"] == "ConfigMap"


async def test_a_watch_asking_for_the_list_kind_gets_whole_objects(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("whole", k="v"))
    [event] = await _take(_watch(api, path, POM_LIST, timeoutSeconds="2"), 1)
    assert event["object"]["kind"] == "ConfigMap"
    assert event["object"]["data"] == {"k": "v"}
