"""Defaults added to a CRD's schema show on objects stored before, on every read
(get, list, watch), as kube-apiserver applies them when it decodes from storage."""

from __future__ import annotations

import uuid
from typing import Any

from kf_http import Api

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _schema(with_default: bool) -> dict[str, Any]:
    color: dict[str, Any] = {"type": "string"}
    if with_default:
        color["default"] = "blue"
    return {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {"size": {"type": "integer"}, "color": color},
            }
        },
    }


async def test_an_object_stored_before_a_default_was_added_shows_it_on_get_list_and_watch(
    api: Api, namespace: str
) -> None:
    plural = "d" + uuid.uuid4().hex[:8] + "s"
    group = "readdefaults.example.com"
    kind = "Painted" + plural[1:-1]
    crd_name = f"{plural}.{group}"
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name},
        "spec": {
            "group": group,
            "names": {"plural": plural, "kind": kind},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": _schema(with_default=False)},
                }
            ],
        },
    }
    assert (await api.post(CRD_PATH, crd)).status == 201
    path = f"/apis/{group}/v1/namespaces/{namespace}/{plural}"
    before = (await api.get(path)).body["metadata"]["resourceVersion"]
    body = {"apiVersion": f"{group}/v1", "kind": kind, "metadata": {"name": "old"}}
    created = await api.post(path, {**body, "spec": {"size": 1}})
    assert created.status == 201
    assert created.body["spec"] == {"size": 1}
    stored_rv = created.body["metadata"]["resourceVersion"]

    # A watch before the change: its ADDED line must not be replayed after it.
    async for event in api.watch(path, resourceVersion=before, timeoutSeconds="5"):
        assert event["object"]["spec"] == {"size": 1}
        break

    current = (await api.get(f"{CRD_PATH}/{crd_name}")).body
    current["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = _schema(with_default=True)
    assert (await api.put(f"{CRD_PATH}/{crd_name}", current)).status == 200

    got = (await api.get(f"{path}/old")).body
    assert got["spec"] == {"size": 1, "color": "blue"}
    assert got["metadata"]["resourceVersion"] == stored_rv  # read, never rewritten
    listed = (await api.get(path)).body["items"]
    assert [item["spec"] for item in listed] == [{"size": 1, "color": "blue"}]
    async for event in api.watch(path, resourceVersion=before, timeoutSeconds="5"):
        assert event["type"] == "ADDED"
        assert event["object"]["spec"] == {"size": 1, "color": "blue"}
        break

    # A client that never sent the field gets it back, and an explicit value wins.
    fresh = await api.post(path, {**body, "metadata": {"name": "new"}, "spec": {"color": "red"}})
    assert fresh.body["spec"] == {"color": "red"}

    # Writing back what was read changes nothing: the stored object is compared as read.
    put = await api.put(f"{path}/old", got)
    assert put.status == 200
    assert put.body["metadata"]["resourceVersion"] == stored_rv
    # Nor does a write that leaves the defaulted field out (it is defaulted the same way).
    without = {**got, "spec": {"size": 1}}
    put = await api.put(f"{path}/old", without)
    assert put.body["metadata"]["resourceVersion"] == stored_rv
    assert put.body["metadata"].get("generation") == got["metadata"].get("generation")
