"""Server-side apply and managedFields over raw HTTP: create on apply, ownership, conflicts,
force, removal of fields a manager stops applying, list types from CRD markers, /status apply,
and the Update entries every other write records."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from kf_http import Api, configmap, pod

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

_SPEC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer"},
        "color": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "owners": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "ports": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
            },
        },
    },
}


@pytest.fixture
async def gadgets(api: Api) -> str:
    """A CRD whose lists carry every list-type marker; returns its plural."""
    plural = "g" + uuid.uuid4().hex[:8] + "s"
    body = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.ssa.example.com"},
        "spec": {
            "group": "ssa.example.com",
            "names": {"plural": plural, "kind": _kind(plural)},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": _SPEC_SCHEMA,
                                "status": {
                                    "type": "object",
                                    "properties": {"ready": {"type": "boolean"}},
                                },
                            },
                        }
                    },
                }
            ],
        },
    }
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 201, reply.body
    return plural


def _kind(plural: str) -> str:
    """A kind of its own per CRD: a group's kinds must differ or the names clash."""
    return "Gadget" + plural[1:-1]


def gadget(plural: str, name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "ssa.example.com/v1",
        "kind": _kind(plural),
        "metadata": {"name": name},
        "spec": spec,
    }


async def apply(api: Api, path: str, body: Any, manager: str, **params: str) -> Any:
    return await api.patch(path, body, APPLY, params={"fieldManager": manager, **params})


def entries(obj: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (e["manager"], e["operation"] + (f"/{e['subresource']}" if e.get("subresource") else "")): e
        for e in obj["metadata"].get("managedFields") or []
    }


async def test_apply_creates_a_missing_object_with_201_and_an_apply_entry(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/fresh"
    reply = await apply(api, path, configmap("fresh", a="1"), "alice")
    assert reply.status == 201, reply.body
    (entry,) = reply.body["metadata"]["managedFields"]
    assert entry["manager"] == "alice"
    assert entry["operation"] == "Apply"
    assert entry["apiVersion"] == "v1"
    assert entry["fieldsType"] == "FieldsV1"
    assert entry["fieldsV1"] == {"f:data": {"f:a": {}}}
    assert entry["time"].endswith("Z")
    again = await apply(api, path, configmap("fresh", a="1"), "alice")
    assert again.status == 200


async def test_a_yaml_body_is_accepted_and_manager_is_required(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/yaml"
    manifest = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\ndata:\n  k: v\n"
    reply = await api.request(
        "PATCH", path, raw=manifest, content_type=APPLY, params={"fieldManager": "y"}
    )
    assert reply.status == 201
    assert reply.body["data"] == {"k": "v"}
    missing = await api.request("PATCH", path, raw=manifest, content_type=APPLY)
    assert missing.status == 422
    assert missing.body["message"] == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for '
        "apply patch"
    )
    assert missing.body["details"]["causes"] == [
        {
            "reason": "FieldValueRequired",
            "message": "Required value: is required for apply patch",
            "field": "fieldManager",
        }
    ]


async def test_force_on_a_non_apply_patch_is_422(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("forced"))
    reply = await api.patch(f"{path}/forced", {}, MERGE, params={"force": "true"})
    assert reply.status == 422
    assert reply.body["message"].startswith('PatchOptions.meta.k8s.io "" is invalid: force:')


async def test_bad_apply_bodies_are_400(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/bad"
    wrong_version = {**configmap("bad"), "apiVersion": "v2"}
    reply = await apply(api, path, wrong_version, "m")
    assert reply.status == 400
    assert reply.body["message"] == (
        "Incorrect version specified in apply patch. Specified patch version: v2, expected: v1"
    )
    with_fields = configmap("bad")
    with_fields["metadata"]["managedFields"] = [{"manager": "x"}]
    reply = await apply(api, path, with_fields, "m")
    assert reply.status == 400
    assert reply.body["message"] == "metadata.managedFields must be nil"
    renamed = await apply(api, path, configmap("other"), "m")
    assert renamed.status == 400
    not_yaml = await api.request(
        "PATCH", path, raw=b"{a: [", content_type=APPLY, params={"fieldManager": "m"}
    )
    assert not_yaml.status == 400
    assert not_yaml.body["message"].startswith("error decoding YAML:")


async def test_undeclared_fields_fail_like_the_real_server_with_a_500(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods/typo"
    body = pod("typo")
    body["spec"]["containerz"] = []
    reply = await apply(api, path, body, "m")
    assert reply.status == 500
    assert "reason" not in reply.body
    assert reply.body["message"] == (
        f"failed to create typed patch object ({namespace}/typo; /v1, Kind=Pod): "
        ".spec.containerz: field not declared in schema"
    )


async def test_a_conflict_is_409_with_field_manager_conflict_causes_and_force_takes_over(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/shared"
    await apply(api, path, configmap("shared", a="1", b="2"), "alice")
    reply = await apply(api, path, configmap("shared", a="9", b="8"), "bob")
    assert reply.status == 409
    assert reply.reason == "Conflict"
    assert reply.body["message"] == (
        'Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\n- .data.b'
    )
    assert reply.body["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "alice"', "field": ".data.a"},
        {"reason": "FieldManagerConflict", "message": 'conflict with "alice"', "field": ".data.b"},
    ]
    same_value = await apply(api, path, configmap("shared", a="1"), "bob")
    assert same_value.status == 200  # same value: shared ownership, no conflict
    forced = await apply(api, path, configmap("shared", a="9"), "bob", force="true")
    assert forced.status == 200
    owners = entries(forced.body)
    assert owners[("alice", "Apply")]["fieldsV1"] == {"f:data": {"f:b": {}}}
    assert owners[("bob", "Apply")]["fieldsV1"] == {"f:data": {"f:a": {}}}


async def test_conflicts_with_an_updater_name_its_api_version(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("upd", a="1"), params={"fieldManager": "editor"})
    reply = await apply(api, f"{path}/upd", configmap("upd", a="2"), "applier")
    assert reply.status == 409
    assert reply.body["message"] == (
        'Apply failed with 1 conflict: conflict with "editor" using v1: .data.a'
    )


async def test_fields_a_manager_stops_applying_are_removed_unless_someone_else_owns_them(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/prune"
    await apply(api, path, configmap("prune", a="1", b="2", c="3"), "alice")
    await apply(api, path, configmap("prune", c="3"), "bob")  # bob co-owns c
    reply = await apply(api, path, configmap("prune", a="1"), "alice")
    assert reply.body["data"] == {"a": "1", "c": "3"}
    owners = entries(reply.body)
    assert owners[("alice", "Apply")]["fieldsV1"] == {"f:data": {"f:a": {}}}
    assert owners[("bob", "Apply")]["fieldsV1"] == {"f:data": {"f:c": {}}}
    emptied = await apply(api, path, {"apiVersion": "v1", "kind": "ConfigMap"}, "alice")
    assert emptied.body["data"] == {"c": "3"}
    assert ("alice", "Apply") not in entries(emptied.body)


async def test_an_unchanged_apply_keeps_the_resource_version_and_sends_no_event(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    first = await apply(api, f"{path}/same", configmap("same", a="1"), "alice")
    rv = first.body["metadata"]["resourceVersion"]
    again = await apply(api, f"{path}/same", configmap("same", a="1"), "alice")
    assert again.body["metadata"]["resourceVersion"] == rv
    assert again.body["metadata"]["managedFields"] == first.body["metadata"]["managedFields"]
    changed = await apply(api, f"{path}/same", configmap("same", a="2"), "alice")
    events = []
    async for event in api.watch(path, resourceVersion=rv, timeoutSeconds="1"):
        events.append((event["type"], event["object"]["metadata"]["resourceVersion"]))
    assert events == [("MODIFIED", changed.body["metadata"]["resourceVersion"])]


async def test_dry_run_apply_answers_without_storing(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/dry"
    reply = await apply(api, path, configmap("dry", a="1"), "alice", dryRun="All")
    assert reply.status == 201
    assert reply.body["metadata"]["managedFields"][0]["manager"] == "alice"
    assert (await api.get(path)).status == 404


async def test_every_write_records_an_update_entry_for_its_manager(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = await api.post(path, configmap("w", a="1"), params={"fieldManager": "maker"})
    assert entries(created.body)[("maker", "Update")]["fieldsV1"] == {
        "f:data": {".": {}, "f:a": {}}
    }
    body = {**created.body, "data": {"a": "1", "b": "2"}}
    updated = await api.put(f"{path}/w", body, headers={"User-Agent": "myctl/1.2 (linux)"})
    assert entries(updated.body)[("myctl", "Update")]["fieldsV1"] == {"f:data": {"f:b": {}}}
    patched = await api.patch(f"{path}/w", {"data": {"a": "x"}}, MERGE)
    # without fieldManager: aiohttp's User-Agent up to its first "/"
    assert entries(patched.body)[("Python", "Update")]["fieldsV1"] == {"f:data": {"f:a": {}}}
    assert entries(patched.body)[("maker", "Update")]["fieldsV1"] == {"f:data": {}}


async def test_managed_fields_can_be_reset_and_tracking_resumes_with_an_apply(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("r", a="1"), params={"fieldManager": "m"})).body
    cleared = await api.patch(
        f"{path}/r", {"metadata": {"managedFields": [{}]}}, MERGE, params={"fieldManager": "m"}
    )
    assert "managedFields" not in cleared.body["metadata"]
    assert created["metadata"]["resourceVersion"] != cleared.body["metadata"]["resourceVersion"]
    untracked = await api.patch(f"{path}/r", {"data": {"b": "2"}}, MERGE)
    assert "managedFields" not in untracked.body["metadata"]
    applied = await apply(api, f"{path}/r", configmap("r", a="3"), "applier")
    assert applied.status == 409  # the existing fields belong to before-first-apply
    assert '"before-first-apply" using v1' in applied.body["message"]


async def test_keyed_set_and_atomic_lists_of_a_custom_resource_merge_by_their_markers(
    api: Api, namespace: str, gadgets: str
) -> None:
    path = f"/apis/ssa.example.com/v1/namespaces/{namespace}/{gadgets}/g"
    first = gadget(gadgets, "g", tags=["a"], owners=["x"], ports=[{"name": "http", "port": 80}])
    assert (await apply(api, path, first, "alice")).status == 201
    second = gadget(gadgets, "g", tags=["b"], owners=["y"], ports=[{"name": "grpc", "port": 90}])
    conflict = await apply(api, path, second, "bob")
    assert conflict.status == 409  # tags is atomic: replacing alice's list conflicts
    assert conflict.body["details"]["causes"][0]["field"] == ".spec.tags"
    second["spec"].pop("tags")
    reply = await apply(api, path, second, "bob")
    assert reply.status == 200, reply.body
    spec = reply.body["spec"]
    assert spec["tags"] == ["a"]
    assert spec["owners"] == ["x", "y"]
    assert spec["ports"] == [{"name": "http", "port": 80}, {"name": "grpc", "port": 90}]
    assert entries(reply.body)[("bob", "Apply")]["fieldsV1"] == {
        "f:spec": {
            "f:owners": {'v:"y"': {}},
            "f:ports": {'k:{"name":"grpc"}': {".": {}, "f:name": {}, "f:port": {}}},
        }
    }


async def test_status_is_applied_through_its_subresource_with_its_own_entry(
    api: Api, namespace: str, gadgets: str
) -> None:
    path = f"/apis/ssa.example.com/v1/namespaces/{namespace}/{gadgets}/s"
    main = gadget(gadgets, "s", replicas=1)
    main["status"] = {"ready": True}
    created = await apply(api, path, main, "owner")
    assert "status" not in created.body  # dropped on create: status has its own subresource
    status = {**gadget(gadgets, "s"), "status": {"ready": True}}
    status.pop("spec")
    reply = await apply(api, f"{path}/status", status, "controller")
    assert reply.status == 200, reply.body
    assert reply.body["status"] == {"ready": True}
    assert reply.body["metadata"]["generation"] == 1
    entry = entries(reply.body)[("controller", "Apply/status")]
    assert entry["fieldsV1"] == {"f:status": {"f:ready": {}}}
    status["metadata"]["name"] = "nothing"
    missing = await apply(api, f"{path[:-1]}nothing/status", status, "controller")
    assert missing.status == 404


async def test_apply_bumps_generation_only_on_spec_changes(
    api: Api, namespace: str, gadgets: str
) -> None:
    path = f"/apis/ssa.example.com/v1/namespaces/{namespace}/{gadgets}/gen"
    created = await apply(api, path, gadget(gadgets, "gen", replicas=1), "m")
    assert created.body["metadata"]["generation"] == 1
    labelled = gadget(gadgets, "gen", replicas=1)
    labelled["metadata"]["labels"] = {"a": "b"}
    assert (await apply(api, path, labelled, "m")).body["metadata"]["generation"] == 1
    labelled["spec"]["replicas"] = 2
    assert (await apply(api, path, labelled, "m")).body["metadata"]["generation"] == 2


async def test_a_resource_version_in_an_apply_is_a_precondition(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/locked"
    await apply(api, path, configmap("locked", a="1"), "m")
    stale = configmap("locked", a="2")
    stale["metadata"]["resourceVersion"] = "1"
    reply = await apply(api, path, stale, "m")
    assert reply.status == 409
    assert reply.reason == "Conflict"


async def test_concurrent_appliers_of_disjoint_fields_never_conflict(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/many"
    await apply(api, path, {"apiVersion": "v1", "kind": "ConfigMap"}, "base")
    replies = await asyncio.gather(
        *(apply(api, path, configmap("many", **{f"k{i}": str(i)}), f"m{i}") for i in range(5))
    )
    assert [r.status for r in replies] == [200] * 5
    final = (await api.get(path)).body
    assert final["data"] == {f"k{i}": str(i) for i in range(5)}
    assert {e["manager"] for e in final["metadata"]["managedFields"]} == {f"m{i}" for i in range(5)}


def deployment(name: str, *containers: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": c, "image": f"{c}:1"} for c in containers]},
            },
        },
    }


async def test_containers_merge_by_name_and_leave_when_their_only_applier_drops_them(
    api: Api, namespace: str
) -> None:
    path = f"/apis/apps/v1/namespaces/{namespace}/deployments/web"
    created = await apply(api, path, deployment("web", "app", "sidecar"), "team")
    assert created.status == 201, created.body
    extra = deployment("web", "mesh")
    del extra["spec"]["selector"]
    assert (await apply(api, path, extra, "injector")).status == 200
    reply = await apply(api, path, deployment("web", "app"), "team")
    assert reply.status == 200, reply.body
    containers = reply.body["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["app", "mesh"]
    assert containers[0]["imagePullPolicy"] == "IfNotPresent"  # server defaults stay


async def test_a_field_manager_longer_than_128_bytes_is_422(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    reply = await api.post(path, configmap("long"), params={"fieldManager": "m" * 129})
    assert reply.status == 422
    assert reply.body["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more '
        "than 128 bytes"
    )
