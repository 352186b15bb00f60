"""``/openapi/v2`` over HTTP: Swagger 2.0 JSON, gnostic protobuf, caching, CRDs coming and going."""

from __future__ import annotations

import re
import uuid
from typing import Any

import orjson
import pytest
from kf_http import Api

from kubeforge.apiserver.openapi import gnostic

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
# Values gnostic carries as YAML text, a one-of or map entries: a false, 0, "" or [] survives.
_KEPT = frozenset({"default", "example", "enum", "additionalProperties", "security"})


async def _fetch(api: Api, accept: str, etag: str | None = None) -> tuple[int, Any, bytes]:
    headers = {**api.headers(), "Accept": accept}
    if etag is not None:
        headers["If-None-Match"] = etag
    async with api.session.get(api.server.url + "/openapi/v2", headers=headers) as response:
        return response.status, response.headers, await response.read()


async def _json_document(api: Api) -> dict[str, Any]:
    status, headers, body = await _fetch(api, "application/json")
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    document: dict[str, Any] = orjson.loads(body)
    return document


def _refs(node: Any) -> set[str]:
    return set(re.findall(r'"\$ref":"([^"]+)"', orjson.dumps(node).decode()))


def _without_proto3_defaults(node: Any, key: str = "") -> Any:
    """What survives proto3: a false, 0, "" or [] scalar field is the same as no field."""
    if key == "additionalProperties" and isinstance(node, dict):
        return _without_proto3_defaults(node)  # a schema: its own scalars are proto3 fields
    if key in _KEPT or key.startswith("x-"):
        return node
    if isinstance(node, dict):
        return {
            k: _without_proto3_defaults(v, k)
            for k, v in node.items()
            if k in _KEPT or k.startswith("x-") or v not in (False, 0, "", [])
            or isinstance(v, dict)
        }  # fmt: skip
    if isinstance(node, list):
        return [_without_proto3_defaults(item) for item in node]
    return node


def _gadget_crd(plural: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"type": "integer", "minimum": 0},
                    "port": {"x-kubernetes-int-or-string": True},
                    "note": {"type": "string", "nullable": True},
                    "extra": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                        "properties": {"kept": {"type": "string"}},
                    },
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
            }
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.v2.example.com"},
        "spec": {
            "group": "v2.example.com",
            "names": {"plural": plural, "kind": "Gadget" + plural[1:5].capitalize()},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


async def test_the_json_form_is_swagger_2_with_built_in_kinds_and_their_gvks(api: Api) -> None:
    document = await _json_document(api)
    assert document["swagger"] == "2.0"
    definitions = document["definitions"]
    pod = definitions["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["metadata"]["$ref"] == "#/definitions/" + META + "ObjectMeta"
    assert definitions[META + "ObjectMeta"]["properties"]["name"]["type"] == "string"
    deployment = definitions["io.k8s.api.apps.v1.Deployment"]
    assert deployment["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}
    ]
    for ref in _refs(document):
        assert ref.removeprefix("#/definitions/") in definitions, ref


async def test_built_in_definitions_carry_the_strategic_merge_keys_kubectl_patches_with(
    api: Api,
) -> None:
    definitions = (await _json_document(api))["definitions"]
    containers = definitions["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["items"] == {"$ref": "#/definitions/io.k8s.api.core.v1.Container"}
    finalizers = definitions[META + "ObjectMeta"]["properties"]["finalizers"]
    assert finalizers["x-kubernetes-patch-strategy"] == "merge"
    strategy = definitions["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"]
    assert strategy["x-kubernetes-patch-strategy"] == "retainKeys"


async def test_paths_keep_their_operations_actions_and_gvks(api: Api) -> None:
    paths = (await _json_document(api))["paths"]
    item = paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]
    patch = item["patch"]
    assert patch["x-kubernetes-action"] == "patch"
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": "",
        "kind": "ConfigMap",
        "version": "v1",
    }
    assert "application/merge-patch+json" in patch["consumes"]
    names = [(p["name"], p["in"]) for p in patch["parameters"]]
    assert ("body", "body") in names and ("fieldValidation", "query") in names
    ok = patch["responses"]["200"]["schema"]
    assert ok == {"$ref": "#/definitions/io.k8s.api.core.v1.ConfigMap"}
    assert {p["name"] for p in item["parameters"]} == {"name", "namespace", "pretty"}
    listing = paths["/api/v1/namespaces/{namespace}/configmaps"]["get"]
    assert listing["x-kubernetes-action"] == "list"


async def test_etags_answer_not_modified_for_each_form(api: Api) -> None:
    status, json_headers, _ = await _fetch(api, "application/json")
    assert status == 200
    status, proto_headers, _ = await _fetch(api, PROTOBUF)
    assert status == 200
    assert json_headers["ETag"] != proto_headers["ETag"]
    status, _, body = await _fetch(api, "application/json", json_headers["ETag"])
    assert (status, body) == (304, b"")
    status, _, body = await _fetch(api, PROTOBUF, proto_headers["ETag"])
    assert (status, body) == (304, b"")
    status, _, _ = await _fetch(api, PROTOBUF, json_headers["ETag"])
    assert status == 200


async def test_the_protobuf_form_decodes_to_the_json_forms_content(api: Api) -> None:
    plural = "g" + uuid.uuid4().hex[:8] + "s"
    assert (await api.post(CRD_PATH, _gadget_crd(plural))).status == 201
    try:
        status, headers, raw = await _fetch(api, PROTOBUF)
        assert status == 200
        assert (
            headers["Content-Type"] == "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
        )
        document = await _json_document(api)
        assert gnostic.decode(raw) == _without_proto3_defaults(document)
    finally:
        await api.delete(f"{CRD_PATH}/{plural}.v2.example.com")


async def test_a_crd_created_after_a_fetch_appears_with_a_v2_ready_schema(api: Api) -> None:
    status, before, _ = await _fetch(api, PROTOBUF)
    assert status == 200
    plural = "g" + uuid.uuid4().hex[:8] + "s"
    created = await api.post(CRD_PATH, _gadget_crd(plural))
    assert created.status == 201, created.body
    kind = created.body["spec"]["names"]["kind"]
    name = f"com.example.v2.v1.{kind}"

    status, _, _ = await _fetch(api, PROTOBUF, before["ETag"])
    assert status == 200
    document = await _json_document(api)
    gadget = document["definitions"][name]
    assert gadget["x-kubernetes-group-version-kind"] == [
        {"group": "v2.example.com", "kind": kind, "version": "v1"}
    ]
    spec = gadget["properties"]["spec"]
    assert spec["properties"]["size"] == {"type": "integer", "minimum": 0}
    assert spec["properties"]["port"] == {"x-kubernetes-int-or-string": True}
    assert spec["properties"]["note"] == {}  # nullable: untyped, as the real server has it
    assert "properties" not in spec["properties"]["extra"]  # unknown fields are allowed
    assert spec["properties"]["tags"]["items"] == {"type": "string"}
    assert gadget["properties"]["metadata"]["$ref"] == "#/definitions/" + META + "ObjectMeta"
    collection = f"/apis/v2.example.com/v1/namespaces/{{namespace}}/{plural}"
    assert document["paths"][collection]["post"]["x-kubernetes-action"] == "post"

    await api.delete(f"{CRD_PATH}/{plural}.v2.example.com")
    assert name not in (await _json_document(api))["definitions"]


@pytest.mark.parametrize("accept", ["*/*", "application/json, */*", ""])
async def test_json_is_the_default_form(api: Api, accept: str) -> None:
    status, headers, body = await _fetch(api, accept)
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert orjson.loads(body)["swagger"] == "2.0"


async def test_an_unservable_media_type_is_not_acceptable(api: Api) -> None:
    status, _, body = await _fetch(api, "text/html")
    assert status == 406
    assert orjson.loads(body)["reason"] == "NotAcceptable"


def test_gnostic_encoding_keeps_what_proto3_can_carry() -> None:
    document = {
        "swagger": "2.0",
        "paths": {"/x": {"get": {"responses": {"200": {"description": "OK"}}}}, "x-top": 1},
        "definitions": {
            "A": {
                "type": ["string", "null"],
                "minimum": -2.5,
                "maxLength": -1,
                "additionalProperties": False,
                "properties": {"x-named-like-an-extension": {"type": "string"}},
                "items": {"$ref": "#/definitions/B"},
                "x-kubernetes-group-version-kind": [{"group": "", "kind": "A", "version": "v1"}],
            },
            "B": {"type": "object", "properties": {}},
        },
    }
    assert gnostic.decode(gnostic.encode(document)) == document


def test_gnostic_decoding_refuses_truncated_bytes() -> None:
    raw = gnostic.encode({"swagger": "2.0", "info": {"title": "Kubernetes"}})
    with pytest.raises(gnostic.GnosticError):
        gnostic.decode(raw[:-3])
