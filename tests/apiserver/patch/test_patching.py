"""Patch logic against published vectors, and PATCH over HTTP with each content type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kf_http import Api, configmap

from kubeforge.apiserver.patch.formats import (
    PatchApplyError,
    PatchDecodeError,
    apply_json_patch,
    apply_merge_patch,
    apply_strategic_merge_patch,
)
from kubeforge.apiserver.smd.value import json_equal

VECTORS = Path(__file__).parent / "vectors"


def _json_patch_cases() -> list[Any]:
    cases = []
    for file in ("json-patch-tests.json", "json-patch-spec-tests.json"):
        for i, record in enumerate(json.loads((VECTORS / file).read_text())):
            if "patch" in record and not record.get("disabled"):
                cases.append(pytest.param(record, id=f"{file}#{i}"))
    return cases


@pytest.mark.parametrize("record", _json_patch_cases())
def test_json_patch_matches_the_published_vectors(record: dict[str, Any]) -> None:
    if "error" in record:
        with pytest.raises((PatchApplyError, PatchDecodeError)):
            apply_json_patch(record["doc"], record["patch"])
    else:
        result = apply_json_patch(record["doc"], record["patch"])
        if "expected" in record:
            assert json_equal(result, record["expected"])


@pytest.mark.parametrize(
    "record", json.loads((VECTORS / "merge-patch-rfc7396.json").read_text())["tests"]
)
def test_merge_patch_matches_rfc_7396(record: dict[str, Any]) -> None:
    assert apply_merge_patch(record["target"], record["patch"]) == record["expected"]


def test_json_patch_test_of_a_missing_member_against_null_succeeds_like_the_apiserver() -> None:
    doc = {"metadata": {"name": "x"}}
    patch = [{"op": "test", "path": "/metadata/finalizers", "value": None}]
    assert apply_json_patch(doc, patch) == doc


def test_json_patch_never_mutates_its_input() -> None:
    doc = {"a": {"b": [1, 2]}}
    apply_json_patch(doc, [{"op": "add", "path": "/a/b/-", "value": 3}])
    assert doc == {"a": {"b": [1, 2]}}


def test_json_patch_with_more_than_10000_operations_is_refused() -> None:
    patch = [{"op": "test", "path": "", "value": {}}] * 10001
    with pytest.raises(PatchApplyError):
        apply_json_patch({}, patch)


def test_strategic_merge_merges_containers_by_name_and_finalizers_as_a_set() -> None:
    live = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"finalizers": ["a", "b"]},
        "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]},
    }
    patch = {
        "metadata": {"finalizers": ["c"]},
        "spec": {"containers": [{"name": "a", "image": "z"}, {"name": "c", "image": "w"}]},
    }
    merged = apply_strategic_merge_patch(live, patch)
    # As the real server orders them: the patch's items in the patch's order, each server-only
    # item kept before the first patch item that followed it live; new items go first.
    assert merged["metadata"]["finalizers"] == ["c", "a", "b"]
    assert merged["spec"]["containers"] == [
        {"name": "a", "image": "z"},
        {"name": "c", "image": "w"},
        {"name": "b", "image": "y"},
    ]


def test_strategic_merge_directives_delete_and_replace() -> None:
    live = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"labels": {"x": "1", "y": "2"}},
        "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
    }
    deleted = apply_strategic_merge_patch(
        live, {"spec": {"containers": [{"name": "a", "$patch": "delete"}]}}
    )
    assert deleted["spec"]["containers"] == [{"name": "b"}]
    replaced = apply_strategic_merge_patch(
        live, {"metadata": {"labels": {"$patch": "replace", "z": "3"}}}
    )
    assert replaced["metadata"]["labels"] == {"z": "3"}
    removed = apply_strategic_merge_patch(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"finalizers": ["a", "b"]}},
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}},
    )
    assert removed["metadata"]["finalizers"] == ["b"]


async def test_merge_patch_over_http_changes_data_and_bumps_the_resource_version(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("m", a="1", b="2"))).body
    reply = await api.patch(
        f"{path}/m", {"data": {"a": None, "c": "3"}}, "application/merge-patch+json"
    )
    assert reply.status == 200
    assert reply.body["data"] == {"b": "2", "c": "3"}
    assert reply.body["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]


async def test_a_resource_version_inside_a_patch_is_an_optimistic_lock(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("lock"))
    stale = {"metadata": {"resourceVersion": "1"}, "data": {"x": "y"}}
    reply = await api.patch(f"{path}/lock", stale, "application/merge-patch+json")
    assert reply.status == 409
    assert reply.reason == "Conflict"


async def test_a_failing_json_patch_is_patch_gos_generic_422(api: Api, namespace: str) -> None:
    # patch.go: NewGenericServerResponse(422, ...) -- reason Invalid, a generic message,
    # the json-patch library's text as the one UnexpectedServerResponse cause.
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("jp", a="1"))
    failing = [{"op": "test", "path": "/data/a", "value": "2"}]
    reply = await api.patch(f"{path}/jp", failing, "application/json-patch+json")
    assert reply.status == 422 and reply.reason == "Invalid"
    assert reply.body["message"] == "the server rejected our request due to an error in our request"
    assert reply.body["details"] == {
        "causes": [
            {
                "reason": "UnexpectedServerResponse",
                "message": "testing value /data/a failed: test failed",
            }
        ]
    }
    not_a_list = await api.patch(f"{path}/jp", {"op": "add"}, "application/json-patch+json")
    assert not_a_list.status == 400


async def test_strategic_merge_patch_works_on_builtins(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("smp", a="1"))
    reply = await api.patch(
        f"{path}/smp", {"data": {"b": "2"}}, "application/strategic-merge-patch+json"
    )
    assert reply.status == 200
    assert reply.body["data"] == {"a": "1", "b": "2"}


async def test_a_no_op_patch_keeps_the_resource_version(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("noop", a="1"))).body
    reply = await api.patch(f"{path}/noop", {"data": {"a": "1"}}, "application/merge-patch+json")
    assert reply.body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


async def test_patch_of_a_missing_object_is_404_and_unknown_patch_types_are_415(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    missing = await api.patch(f"{path}/nope", {}, "application/merge-patch+json")
    assert missing.status == 404
    await api.post(path, configmap("t415"))
    reply = await api.patch(f"{path}/t415", {}, "text/plain")
    assert reply.status == 415
    assert reply.reason == "UnsupportedMediaType"


async def test_server_side_apply_patches_are_accepted_for_builtins(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("ssa"))
    reply = await api.patch(
        f"{path}/ssa",
        configmap("ssa", a="1"),
        "application/apply-patch+yaml",
        params={"fieldManager": "me"},
    )
    assert reply.status == 200
    assert reply.body["data"] == {"a": "1"}
    unknown = await api.patch(f"{path}/ssa", {}, "application/x-yaml")
    assert unknown.status == 415
    assert "application/apply-patch+yaml" in unknown.body["message"]
