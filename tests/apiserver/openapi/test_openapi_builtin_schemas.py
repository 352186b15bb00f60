"""The real Kubernetes 1.32 schemas of built-in kinds in ``/openapi/v3`` and ``/openapi/v2``."""

from __future__ import annotations

import gzip
from typing import Any

import orjson
from kf_http import Api

from kubeforge.apiserver.builtin.resources import BUILTIN_RESOURCES
from kubeforge.apiserver.openapi import generate
from kubeforge.apiserver.openapi.documents import OpenApiDocuments
from kubeforge.apiserver.registry.served import Registry

V3_REF = "#/components/schemas/"
META = "io.k8s.apimachinery.pkg.apis.meta.v1."


async def _json(api: Api, path: str) -> dict[str, Any]:
    headers = {**api.headers(), "Accept": "application/json"}
    async with api.session.get(api.server.url + path, headers=headers) as response:
        assert response.status == 200, path
        document: dict[str, Any] = orjson.loads(await response.read())
        return document


async def _v3(api: Api, path: str) -> dict[str, Any]:
    index = await _json(api, "/openapi/v3")
    return await _json(api, index["paths"][path]["serverRelativeURL"])


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _property(schemas: dict[str, Any], name: str, field: str) -> dict[str, Any]:
    found: dict[str, Any] = schemas[name]["properties"][field]
    return found


def test_the_committed_schema_file_is_generated_from_the_pinned_definitions() -> None:
    committed = gzip.decompress(generate.OUTPUT.read_bytes())
    assert committed == generate.render(), "run python -m kubeforge.apiserver.openapi.generate"
    assert generate.main(["--check"]) == 0


def test_the_json_schema_form_is_turned_into_the_published_v3_form() -> None:
    converted = generate.convert(
        {
            "type": ["object", "null"],
            "properties": {
                "apiVersion": {"type": ["string", "null"], "enum": ["apps/v1"]},
                "spec": {"$ref": "#/$defs/io.k8s.api.apps.v1.DeploymentSpec", "description": "d"},
                "items": {"type": "array", "items": {"$ref": "#/$defs/io.k8s.api.core.v1.Pod"}},
            },
        }
    )
    assert converted == {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "spec": {
                "allOf": [{"$ref": V3_REF + "io.k8s.api.apps.v1.DeploymentSpec"}],
                "description": "d",
            },
            "items": {"type": "array", "items": {"$ref": V3_REF + "io.k8s.api.core.v1.Pod"}},
        },
    }


async def test_every_reference_of_every_v3_document_resolves_inside_that_document(api: Api) -> None:
    index = await _json(api, "/openapi/v3")
    assert "api/v1" in index["paths"] and "apis/batch/v1" in index["paths"]
    for path, entry in index["paths"].items():
        document = await _json(api, entry["serverRelativeURL"])
        names = set(document["components"]["schemas"])
        for ref in _refs(document):
            assert ref.startswith(V3_REF), (path, ref)
            assert ref.removeprefix(V3_REF) in names, (path, ref)


async def test_pods_are_described_with_every_field_and_merge_key_of_kubernetes(api: Api) -> None:
    schemas = (await _v3(api, "api/v1"))["components"]["schemas"]
    pod = schemas["io.k8s.api.core.v1.Pod"]
    assert pod["description"].startswith("Pod is a collection of containers")
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["spec"]["allOf"] == [{"$ref": V3_REF + "io.k8s.api.core.v1.PodSpec"}]
    containers = _property(schemas, "io.k8s.api.core.v1.PodSpec", "containers")
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["x-kubernetes-list-type"] == "map"
    assert containers["x-kubernetes-list-map-keys"] == ["name"]
    ports = _property(schemas, "io.k8s.api.core.v1.Container", "ports")
    assert ports["x-kubernetes-list-map-keys"] == ["containerPort", "protocol"]
    port = schemas["io.k8s.api.core.v1.ContainerPort"]
    assert port["required"] == ["containerPort"]
    container_port = port["properties"]["containerPort"]
    assert (container_port["type"], container_port["format"]) == ("integer", "int32")
    assert _property(schemas, META + "ObjectMeta", "finalizers")["x-kubernetes-list-type"] == "set"


async def test_int_or_string_and_quantity_are_published_as_one_of(api: Api) -> None:
    schemas = (await _v3(api, "apis/apps/v1"))["components"]["schemas"]
    int_or_string = schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
    assert int_or_string["format"] == "int-or-string"
    assert int_or_string["oneOf"] == [{"type": "integer"}, {"type": "string"}]
    quantity = schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]
    assert quantity["oneOf"] == [{"type": "string"}, {"type": "number"}]
    assert not any("null" in str(schema.get("type")) for schema in schemas.values())


async def test_kinds_new_to_the_server_have_their_real_fields(api: Api) -> None:
    schemas = (await _v3(api, "apis/batch/v1"))["components"]["schemas"]
    job_spec = schemas["io.k8s.api.batch.v1.JobSpec"]
    assert job_spec["required"] == ["template"]
    assert {"backoffLimit", "completions", "parallelism", "template"} <= set(job_spec["properties"])
    assert "io.k8s.api.batch.v1.CronJobList" in schemas
    assert "io.k8s.api.core.v1.PodSpec" in schemas


async def test_api_service_is_named_after_the_aggregator_package(api: Api) -> None:
    schemas = (await _v3(api, "apis/apiregistration.k8s.io/v1"))["components"]["schemas"]
    name = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"
    assert schemas[name]["x-kubernetes-group-version-kind"] == [
        {"group": "apiregistration.k8s.io", "kind": "APIService", "version": "v1"}
    ]
    assert "groupPriorityMinimum" in schemas[name + "Spec"]["properties"]


async def test_v2_definitions_are_the_real_schemas_with_v2_references(api: Api) -> None:
    definitions = (await _json(api, "/openapi/v2"))["definitions"]
    spec = definitions["io.k8s.api.apps.v1.DeploymentSpec"]
    assert (
        spec["properties"]["template"]["$ref"] == "#/definitions/io.k8s.api.core.v1.PodTemplateSpec"
    )
    assert spec["properties"]["template"]["description"].startswith("Template describes the pods")
    strategy = definitions["io.k8s.api.apps.v1.DeploymentStrategy"]
    assert strategy["properties"]["rollingUpdate"]["$ref"].endswith(".RollingUpdateDeployment")
    env = definitions["io.k8s.api.core.v1.Container"]["properties"]["env"]
    assert env["x-kubernetes-patch-merge-key"] == "name"
    assert env["items"] == {"$ref": "#/definitions/io.k8s.api.core.v1.EnvVar"}
    for name, definition in definitions.items():
        assert "oneOf" not in definition, name


def test_building_every_v3_document_is_cached_per_group_version() -> None:
    documents = OpenApiDocuments(Registry(BUILTIN_RESOURCES))
    first = {path: body for path, body, _ in documents.documents()}
    again = {path: body for path, body, _ in documents.documents()}
    assert all(again[path] is body for path, body in first.items())
    # api/v1 carries every core type its kinds use, and nothing of other groups' kinds.
    core = orjson.loads(first["api/v1"])["components"]["schemas"]
    assert "io.k8s.api.core.v1.EphemeralContainer" in core
    assert "io.k8s.api.apps.v1.Deployment" not in core
