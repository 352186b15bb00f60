"""OpenAPI v3 documents, checked the way kubectl 1.32 reads them (validation probe, explain)."""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver.builtin.resources import BUILTIN_RESOURCES
from kubeforge.apiserver.openapi import documents as openapi
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.core.resource import ResourceInfo

SMP = "application/strategic-merge-patch+json"

PODTOIP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "description": "What the PodToIp should track.",
            "properties": {
                "podName": {"type": "string", "description": "The pod to follow."},
                "podAddress": {"type": "string"},
            },
        },
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    },
}


def _podtoip(schema: dict[str, Any] | None = None) -> ServedResource:
    info = ResourceInfo(
        group="example.com",
        version="v1",
        kind="PodToIp",
        plural="podtoips",
        short_names=("ptp",),
        singular="podtoip",
    )
    return ServedResource(
        info=info,
        subresources=("status",),
        schema=schema if schema is not None else PODTOIP_SCHEMA,
        builtin=False,
        crd_name="podtoips.example.com",
    )


def _registry(*served: ServedResource) -> Registry:
    registry = Registry(BUILTIN_RESOURCES)
    if served:
        registry.add_crd("podtoips.example.com", list(served))
    return registry


def _document(registry: Registry, path: str) -> dict[str, Any]:
    found = openapi.OpenApiDocuments(registry).document(path)
    assert found is not None, path
    body, _ = found
    parsed: dict[str, Any] = orjson.loads(body)
    return parsed


def _gv_path(info: ResourceInfo) -> str:
    return f"apis/{info.group}/{info.version}" if info.group else f"api/{info.version}"


def _patch_operations_for(doc: dict[str, Any], gvk: dict[str, str]) -> list[dict[str, Any]]:
    return [
        item["patch"]
        for item in doc["paths"].values()
        if "patch" in item and item["patch"]["x-kubernetes-group-version-kind"] == gvk
    ]


def _kubectl_sees_field_validation(doc: dict[str, Any], gvk: dict[str, str]) -> bool:
    """kubectl's probe: the first PATCH operation for the GVK must list the query parameter."""
    operations = _patch_operations_for(doc, gvk)
    if not operations:
        return False
    return any(
        p["name"] == "fieldValidation" and p["in"] == "query" for p in operations[0]["parameters"]
    )


def _explain_schema(doc: dict[str, Any], info: ResourceInfo) -> dict[str, Any]:
    """kubectl explain's lookup: the GVK from the resource's paths, then the schema by GVK."""
    prefix = "/" + _gv_path(info)
    candidates = [
        f"{prefix}/{info.plural}",
        f"{prefix}/{info.plural}/{{name}}",
        f"{prefix}/namespaces/{{namespace}}/{info.plural}",
        f"{prefix}/namespaces/{{namespace}}/{info.plural}/{{name}}",
    ]
    gvk = None
    for path in candidates:
        for method in ("get", "post", "put", "patch", "delete"):
            operation = doc["paths"].get(path, {}).get(method)
            if operation and "x-kubernetes-group-version-kind" in operation:
                gvk = operation["x-kubernetes-group-version-kind"]
                break
        if gvk:
            break
    assert gvk is not None, "GVR not found in OpenAPI schema"
    for schema in doc["components"]["schemas"].values():
        if gvk in schema.get("x-kubernetes-group-version-kind", []):
            found: dict[str, Any] = schema
            return found
    raise AssertionError(f"GVK {gvk} not found in OpenAPI schema")


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def test_every_patchable_resource_advertises_server_side_field_validation() -> None:
    registry = _registry(_podtoip())
    for served in registry.resources():
        if "patch" not in served.verbs:
            continue  # reviews and token requests are create-only, with no PATCH to probe
        info = served.info
        doc = _document(registry, _gv_path(info))
        gvk = {"group": info.group, "kind": info.kind, "version": info.version}
        assert _kubectl_sees_field_validation(doc, gvk), info


def test_namespaces_get_a_patch_operation_kubectl_can_fall_back_to() -> None:
    doc = _document(Registry(BUILTIN_RESOURCES), "api/v1")
    gvk = {"group": "", "kind": "Namespace", "version": "v1"}
    patch = doc["paths"]["/api/v1/namespaces/{name}"]["patch"]
    assert patch in _patch_operations_for(doc, gvk)
    assert patch["x-kubernetes-action"] == "patch"
    assert patch["operationId"] == "patchCoreV1Namespace"


def test_only_built_in_kinds_offer_strategic_merge_patch() -> None:
    registry = _registry(_podtoip())
    for path in openapi.OpenApiDocuments(registry).index()["paths"]:
        doc = _document(registry, path)
        for item in doc["paths"].values():
            if "patch" in item:
                content = item["patch"]["requestBody"]["content"]
                assert (SMP in content) == (path != "apis/example.com/v1"), path
                assert "application/merge-patch+json" in content
                assert "application/apply-patch+yaml" in content


def test_explain_finds_the_crd_schema_with_its_spec_fields_and_descriptions() -> None:
    served = _podtoip()
    doc = _document(_registry(served), "apis/example.com/v1")
    schema = _explain_schema(doc, served.info)
    spec = schema["properties"]["spec"]
    assert spec["description"] == "What the PodToIp should track."
    assert spec["properties"]["podName"]["description"] == "The pod to follow."
    assert {"apiVersion", "kind", "metadata"} <= set(schema["properties"])
    assert "com.example.v1.PodToIp" in doc["components"]["schemas"]
    assert "com.example.v1.PodToIpList" in doc["components"]["schemas"]


def test_explain_finds_built_in_kinds_too() -> None:
    registry = Registry(BUILTIN_RESOURCES)
    for served in registry.resources():
        doc = _document(registry, _gv_path(served.info))
        schema = _explain_schema(doc, served.info)
        assert schema["type"] == "object"
        assert "metadata" in schema["properties"]


def test_every_reference_resolves_inside_its_document() -> None:
    registry = _registry(_podtoip())
    for path in openapi.OpenApiDocuments(registry).index()["paths"]:
        doc = _document(registry, path)
        names = set(doc["components"]["schemas"])
        for ref in _refs(doc):
            assert ref.startswith("#/components/schemas/"), ref
            assert ref.removeprefix("#/components/schemas/") in names, (path, ref)


def test_namespaced_resources_have_collection_item_status_and_all_namespaces_paths() -> None:
    doc = _document(_registry(_podtoip()), "apis/example.com/v1")
    base = "/apis/example.com/v1"
    assert set(doc["paths"]) == {
        f"{base}/namespaces/{{namespace}}/podtoips",
        f"{base}/namespaces/{{namespace}}/podtoips/{{name}}",
        f"{base}/namespaces/{{namespace}}/podtoips/{{name}}/status",
        f"{base}/podtoips",
    }
    collection = doc["paths"][f"{base}/namespaces/{{namespace}}/podtoips"]
    assert collection["get"]["x-kubernetes-action"] == "list"
    assert collection["post"]["operationId"] == "createExampleComV1NamespacedPodToIp"
    assert collection["delete"]["x-kubernetes-action"] == "deletecollection"


def test_index_points_at_every_group_version_with_a_hash() -> None:
    index = openapi.OpenApiDocuments(_registry(_podtoip())).index()
    assert {"api/v1", "apis/example.com/v1", "apis/apiextensions.k8s.io/v1"} <= set(index["paths"])
    url = index["paths"]["apis/example.com/v1"]["serverRelativeURL"]
    assert url.startswith("/openapi/v3/apis/example.com/v1?hash=")


def test_the_hash_changes_only_when_the_group_versions_resources_change() -> None:
    registry = _registry(_podtoip())
    documents = openapi.OpenApiDocuments(registry)

    def hashes() -> dict[str, str]:
        paths = documents.index()["paths"]
        return {path: entry["serverRelativeURL"].split("hash=")[1] for path, entry in paths.items()}

    before = hashes()
    assert hashes() == before
    changed = {**PODTOIP_SCHEMA, "description": "now described"}
    registry.add_crd("podtoips.example.com", [_podtoip(changed)])
    after = hashes()
    assert after["apis/example.com/v1"] != before["apis/example.com/v1"]
    assert after["api/v1"] == before["api/v1"]


def test_a_removed_crd_has_no_document_any_more() -> None:
    registry = _registry(_podtoip())
    documents = openapi.OpenApiDocuments(registry)
    assert documents.document("apis/example.com/v1") is not None
    registry.remove_crd("podtoips.example.com")
    assert documents.document("apis/example.com/v1") is None
    assert "apis/example.com/v1" not in documents.index()["paths"]


def test_built_in_schema_names_follow_the_real_servers_packages() -> None:
    registry = Registry(BUILTIN_RESOURCES)
    pods = registry.lookup("", "v1", "pods")
    crds = registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    leases = registry.lookup("coordination.k8s.io", "v1", "leases")
    assert pods is not None and crds is not None and leases is not None
    assert openapi.schema_name(pods) == "io.k8s.api.core.v1.Pod"
    assert openapi.schema_name(leases) == "io.k8s.api.coordination.v1.Lease"
    assert openapi.schema_name(crds) == (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
    )
