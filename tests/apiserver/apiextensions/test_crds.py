"""CustomResourceDefinitions: served at once, status subresource, generation, deletion."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from kf_http import Api

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def crd(plural: str, group: str = "example.com", *, status: bool = True) -> dict[str, Any]:
    kind = plural[:-1].capitalize()
    version: dict[str, Any] = {
        "name": "v1",
        "served": True,
        "storage": True,
        "schema": {
            "openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            }
        },
        "selectableFields": [{"jsonPath": ".spec.color"}],
    }
    if status:
        version["subresources"] = {"status": {}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"plural": plural, "kind": kind, "shortNames": [_short(plural)]},
            "scope": "Namespaced",
            "versions": [version],
        },
    }


def _short(plural: str) -> str:
    """A short name of its own: the group's plurals, singulars and short names must differ."""
    return "x" + plural[1:-1]


def unique_plural() -> str:
    return "w" + uuid.uuid4().hex[:8] + "s"


async def _install(api: Api, plural: str, **kwargs: Any) -> dict[str, Any]:
    reply = await api.post(CRD_PATH, crd(plural, **kwargs))
    assert reply.status == 201, reply.body
    return reply.body


def widget(plural: str, name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": plural[:-1].capitalize(),
        "metadata": {"name": name},
        "spec": spec,
    }


async def test_a_created_crd_is_established_and_served_at_once(api: Api, namespace: str) -> None:
    plural = unique_plural()
    created = await _install(api, plural)
    conditions = {c["type"]: c["status"] for c in created["status"]["conditions"]}
    assert conditions == {"NamesAccepted": "True", "Established": "True"}
    assert created["status"]["acceptedNames"]["kind"] == plural[:-1].capitalize()
    assert created["status"]["acceptedNames"]["listKind"].endswith("List")
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    listed = await api.get(path)
    assert listed.status == 200
    assert listed.body["items"] == []
    made = await api.post(path, widget(plural, "one", color="red"))
    assert made.status == 201
    assert made.body["metadata"]["generation"] == 1


async def test_crd_name_must_be_plural_dot_group(api: Api) -> None:
    body = crd(unique_plural())
    body["metadata"]["name"] = "wrong.example.com"
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 422
    assert reply.body["details"]["causes"][0]["field"] == "metadata.name"


async def test_crd_without_schema_or_storage_version_is_422(api: Api) -> None:
    body = crd(unique_plural())
    del body["spec"]["versions"][0]["schema"]
    body["spec"]["versions"][0]["storage"] = False
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 422
    fields = {c["field"] for c in reply.body["details"]["causes"]}
    assert "spec.versions[0].schema.openAPIV3Schema" in fields
    assert "spec.versions" in fields


async def test_custom_resources_need_kind_and_a_resource_version_on_put(
    api: Api, namespace: str
) -> None:
    plural = unique_plural()
    await _install(api, plural)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    no_kind = widget(plural, "nk")
    del no_kind["kind"]
    assert (await api.post(path, no_kind)).status == 400
    created = (await api.post(path, widget(plural, "w"))).body
    unconditional = copy.deepcopy(created)
    del unconditional["metadata"]["resourceVersion"]
    reply = await api.put(f"{path}/w", unconditional)
    assert reply.status == 422
    assert "must be specified for an update" in reply.body["message"]


async def test_status_subresource_rules_and_generation(api: Api, namespace: str) -> None:
    plural = unique_plural()
    await _install(api, plural)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    body = widget(plural, "s", size=1)
    body["status"] = {"ready": True}
    created = (await api.post(path, body)).body
    assert "status" not in created  # dropped on create
    with_status = {**created, "status": {"ready": True}}
    status_reply = await api.put(f"{path}/s/status", with_status)
    assert status_reply.status == 200
    assert status_reply.body["status"] == {"ready": True}
    assert status_reply.body["metadata"]["generation"] == 1
    main = {**status_reply.body, "status": {"ready": False}, "spec": {"size": 2}}
    updated = (await api.put(f"{path}/s", main)).body
    assert updated["status"] == {"ready": True}  # the main resource ignores status
    assert updated["metadata"]["generation"] == 2
    labelled = {**updated, "metadata": {**updated["metadata"], "labels": {"a": "b"}}}
    relabelled = (await api.put(f"{path}/s", labelled)).body
    assert relabelled["metadata"]["generation"] == 2  # metadata never bumps generation


async def test_without_status_subresource_the_status_path_is_404(api: Api, namespace: str) -> None:
    plural = unique_plural()
    await _install(api, plural, status=False)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    created = (await api.post(path, widget(plural, "x"))).body
    assert (await api.get(f"{path}/x/status")).status == 404
    reply = await api.put(f"{path}/x", {**created, "status": {"phase": "done"}})
    assert reply.body["status"] == {"phase": "done"}
    assert reply.body["metadata"]["generation"] == 2


async def test_strategic_merge_patch_on_a_custom_resource_is_415(api: Api, namespace: str) -> None:
    plural = unique_plural()
    await _install(api, plural)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    await api.post(path, widget(plural, "p"))
    reply = await api.patch(f"{path}/p", {"spec": {}}, "application/strategic-merge-patch+json")
    assert reply.status == 415
    merged = await api.patch(f"{path}/p", {"spec": {"a": 1}}, "application/merge-patch+json")
    assert merged.status == 200
    assert merged.body["spec"] == {"a": 1}


async def test_selectable_fields_work_in_field_selectors(api: Api, namespace: str) -> None:
    plural = unique_plural()
    await _install(api, plural)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    await api.post(path, widget(plural, "r", color="red"))
    await api.post(path, widget(plural, "b", color="blue"))
    reply = await api.get(path, fieldSelector="spec.color=blue")
    assert [i["metadata"]["name"] for i in reply.body["items"]] == ["b"]
    unsupported = await api.get(path, fieldSelector="spec.size=1")
    assert unsupported.status == 400
    assert unsupported.body["message"] == "field label not supported: spec.size"


async def test_deleting_a_crd_deletes_its_objects_and_stops_serving(
    api: Api, namespace: str
) -> None:
    plural = unique_plural()
    await _install(api, plural)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    await api.post(path, widget(plural, "doomed"))
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    reply = await api.delete(f"{CRD_PATH}/{plural}.example.com")
    assert reply.status == 200
    assert reply.body["metadata"]["deletionTimestamp"]
    assert (await api.get(path)).status == 404
    assert (await api.get(f"{CRD_PATH}/{plural}.example.com")).status == 404
    events = [
        e
        async for e in api.watch(
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            resourceVersion=start,
            fieldSelector=f"metadata.name={plural}.example.com",
            timeoutSeconds="1",
        )
    ]
    assert [e["type"] for e in events] == ["MODIFIED", "DELETED"]


async def test_a_watch_on_custom_resources_gets_deleted_events_when_the_crd_goes(
    api: Api, namespace: str
) -> None:
    plural = unique_plural()
    await _install(api, plural)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    await api.post(path, widget(plural, "a"))
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    await api.delete(f"{CRD_PATH}/{plural}.example.com")
    # Served history still lets a watch started before deletion see the DELETED event.
    await _install(api, plural)
    events = []
    async for event in api.watch(path, resourceVersion=start, timeoutSeconds="2"):
        events.append(event)
        break
    assert events[0]["type"] == "DELETED"
    assert events[0]["object"]["metadata"]["name"] == "a"


async def test_custom_resources_with_finalizers_hold_the_crd_in_terminating(
    api: Api, namespace: str
) -> None:
    plural = unique_plural()
    await _install(api, plural)
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    body = widget(plural, "held")
    body["metadata"]["finalizers"] = ["example.com/hold"]
    await api.post(path, body)
    await api.delete(f"{CRD_PATH}/{plural}.example.com")
    crd_now = (await api.get(f"{CRD_PATH}/{plural}.example.com")).body
    types = {c["type"]: c["status"] for c in crd_now["status"]["conditions"]}
    assert types["Terminating"] == "True"
    refused = await api.post(path, widget(plural, "new"))
    assert refused.status == 405
    held = (await api.get(f"{path}/held")).body
    assert held["metadata"]["deletionTimestamp"]
    release = [{"op": "remove", "path": "/metadata/finalizers"}]
    await api.patch(f"{path}/held", release, "application/json-patch+json")
    assert (await api.get(f"{CRD_PATH}/{plural}.example.com")).status == 404


async def test_the_scale_subresource_reads_and_writes_spec_replicas(
    api: Api, namespace: str
) -> None:
    plural = unique_plural()
    body = crd(plural)
    body["spec"]["versions"][0]["subresources"]["scale"] = {
        "specReplicasPath": ".spec.replicas",
        "statusReplicasPath": ".status.replicas",
        "labelSelectorPath": ".status.selector",
    }
    assert (await api.post(CRD_PATH, body)).status == 201
    path = f"/apis/example.com/v1/namespaces/{namespace}/{plural}"
    created = (await api.post(path, widget(plural, "s", replicas=2))).body
    scale = await api.get(f"{path}/s/scale")
    assert scale.status == 200
    assert scale.body["kind"] == "Scale"
    assert scale.body["apiVersion"] == "autoscaling/v1"
    assert scale.body["spec"] == {"replicas": 2}
    assert scale.body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    scaled = await api.put(f"{path}/s/scale", {**scale.body, "spec": {"replicas": 5}})
    assert scaled.status == 200
    assert scaled.body["spec"] == {"replicas": 5}
    parent = (await api.get(f"{path}/s")).body
    assert parent["spec"]["replicas"] == 5
    assert parent["metadata"]["generation"] == 2
    stale = await api.put(f"{path}/s/scale", {**scale.body, "spec": {"replicas": 1}})
    assert stale.status == 409
    patched = await api.patch(
        f"{path}/s/scale", {"spec": {"replicas": 3}}, "application/merge-patch+json"
    )
    assert patched.body["spec"] == {"replicas": 3}


async def test_crds_in_kubernetes_owned_groups_need_the_approval_annotation(api: Api) -> None:
    plural = unique_plural()
    body = crd(plural, group="things.k8s.io")
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 422
    assert "api-approved.kubernetes.io" in reply.body["message"]
    body["metadata"]["annotations"] = {"api-approved.kubernetes.io": "unapproved, testing"}
    assert (await api.post(CRD_PATH, body)).status == 201
