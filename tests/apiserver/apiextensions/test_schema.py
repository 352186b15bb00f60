"""Custom resources are pruned, defaulted and validated by their CRD's schema."""

from __future__ import annotations

import uuid
from typing import Any

from kf_http import Api

from kubeforge.apiserver.apiextensions.schema import apply_defaults, prune, validate

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "maxLength": 10, "pattern": "^[a-z]+$"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
                "size": {"type": "string", "enum": ["small", "large"]},
                "port": {"x-kubernetes-int-or-string": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "items": {
                    "type": "array",
                    "maxItems": 2,
                    "items": {"type": "object", "properties": {"a": {"type": "boolean"}}},
                },
            },
        },
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
    },
}


def _cr(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "x.io/v1", "kind": "W", "metadata": {"name": "w"}, "spec": spec}


def test_prune_drops_undeclared_fields_but_keeps_preserved_and_additional_ones() -> None:
    obj = _cr(
        name="a",
        bogus=1,
        labels={"k": "v"},
        free={"anything": {"deep": True}},
        items=[{"a": True, "b": 2}],
    )
    obj["extra"] = "x"
    obj["metadata"]["surprise"] = 1
    dropped = prune(obj, SCHEMA)
    assert sorted(dropped) == ["extra", "metadata.surprise", "spec.bogus", "spec.items[0].b"]
    assert obj["spec"] == {
        "name": "a",
        "labels": {"k": "v"},
        "free": {"anything": {"deep": True}},
        "items": [{"a": True}],
    }
    assert obj["apiVersion"] == "x.io/v1"


def test_defaults_fill_missing_fields_inside_existing_objects() -> None:
    obj = _cr(name="a")
    apply_defaults(obj, SCHEMA)
    assert obj["spec"]["replicas"] == 1
    no_spec: dict[str, Any] = {"metadata": {}}
    apply_defaults(no_spec, SCHEMA)
    assert "spec" not in no_spec  # no default on spec itself: nothing is invented


def test_validation_reports_each_field_with_kube_openapi_wording() -> None:
    obj = _cr(replicas="three", size="medium", port=[1], items=[{}, {}, {}])
    errors = {e.field: e for e in validate(obj, SCHEMA)}
    assert str(errors["spec.name"]) == "spec.name: Required value"
    assert str(errors["spec.replicas"]) == (
        'spec.replicas: Invalid value: "string": '
        'spec.replicas in body must be of type integer: "string"'
    )
    assert str(errors["spec.size"]) == (
        'spec.size: Unsupported value: "medium": supported values: "small", "large"'
    )
    assert errors["spec.port"].cause()["reason"] == "FieldValueTypeInvalid"
    assert errors["spec.items"].cause()["reason"] == "FieldValueTooMany"


def test_bounds_lengths_and_patterns() -> None:
    errors = validate(_cr(name="TooLongName1", replicas=20), SCHEMA)
    messages = sorted(str(e) for e in errors)
    assert (
        "spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10"
        in messages
    )
    assert any("should match '^[a-z]+$'" in m for m in messages)
    assert any(m.startswith("spec.name: Too long") for m in messages)
    assert validate(_cr(name="ok", replicas=3, port="http"), SCHEMA) == []


CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _kind(plural: str) -> str:
    """A kind of its own per CRD: a group's kinds must differ or the names clash."""
    return "Sized" + plural[1:-1]


async def _install(api: Api) -> str:
    plural = "s" + uuid.uuid4().hex[:8] + "s"
    body = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.schema.example.com"},
        "spec": {
            "group": "schema.example.com",
            "names": {"plural": plural, "kind": _kind(plural)},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": SCHEMA},
                }
            ],
        },
    }
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 201, reply.body
    return plural


async def test_the_server_prunes_defaults_and_rejects_invalid_custom_resources(
    api: Api, namespace: str
) -> None:
    plural = await _install(api)
    path = f"/apis/schema.example.com/v1/namespaces/{namespace}/{plural}"
    body = {
        "apiVersion": "schema.example.com/v1",
        "kind": _kind(plural),
        "metadata": {"name": "a"},
        "spec": {"name": "abc", "unknown": True},
    }
    created = await api.post(path, body)
    assert created.status == 201
    assert created.body["spec"] == {"name": "abc", "replicas": 1}
    bad = {**body, "metadata": {"name": "b"}, "spec": {"name": "abc", "replicas": "x"}}
    rejected = await api.post(path, bad)
    assert rejected.status == 422
    assert rejected.body["details"]["kind"] == _kind(plural)
    assert rejected.body["details"]["causes"][0]["field"] == "spec.replicas"


async def test_strict_field_validation_refuses_unknown_fields_with_400(
    api: Api, namespace: str
) -> None:
    plural = await _install(api)
    path = f"/apis/schema.example.com/v1/namespaces/{namespace}/{plural}"
    body = {
        "apiVersion": "schema.example.com/v1",
        "kind": _kind(plural),
        "metadata": {"name": "a"},
        "spec": {"name": "abc", "unknown": True},
    }
    reply = await api.post(path, body, params={"fieldValidation": "Strict"})
    assert reply.status == 400
    assert 'strict decoding error: unknown field "spec.unknown"' in reply.body["message"]
    assert (await api.post(path, body, params={"fieldValidation": "Bogus"})).status == 400
