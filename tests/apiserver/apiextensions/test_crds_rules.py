"""CRDs in full: CEL rules (with oldSelf), list types, validation of the CRD itself,
several versions with one storage version, and field paths in every 422 cause."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from kf_http import Api

from kubeforge.apiserver.apiextensions.schema import validate

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

_SPEC: dict[str, Any] = {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.minimum <= self.maximum", "message": "minimum must not exceed maximum"},
        {
            "rule": "self.maximum < 100",
            # a bounded message: `'maximum ' + string(self.maximum)` is refused by the cost
            # estimate (an int's string has no size bound), as on a 1.32 server
            "messageExpression": "self.maximum >= 1000 ? 'maximum is far too large' "
            ": 'maximum is too large'",
        },
    ],
    "properties": {
        "minimum": {"type": "integer", "default": 0},
        "maximum": {"type": "integer", "default": 10},
        "tier": {
            "type": "string",
            "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "tier is immutable"},
                {
                    "rule": "self.lowerAscii() == self",
                    "reason": "FieldValueForbidden",
                    "message": "must be lower case",
                },
            ],
        },
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
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
        "size": {"x-kubernetes-int-or-string": True},
    },
}


def _crd(plural: str, versions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": copy.deepcopy(_SPEC)}}}
    versions = versions or [{"name": "v1", "served": True, "storage": True, "schema": schema}]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.rules.example.com"},
        "spec": {
            "group": "rules.example.com",
            "names": {"plural": plural, "kind": _kind(plural)},
            "scope": "Namespaced",
            "versions": versions,
        },
    }


async def _install(api: Api, body: dict[str, Any] | None = None) -> str:
    plural = "g" + uuid.uuid4().hex[:8] + "s"
    reply = await api.post(CRD_PATH, body or _crd(plural))
    assert reply.status == 201, reply.body
    return plural


def _kind(plural: str) -> str:
    """Kinds must differ within a group, or the second CRD's names are not accepted."""
    return "Gauge" + plural[1:-1]


def _gauge(plural: str, name: str, version: str = "v1", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"rules.example.com/{version}",
        "kind": _kind(plural),
        "metadata": {"name": name},
        "spec": spec,
    }


def _causes(reply: Any) -> list[tuple[str, str, str]]:
    return [(c["reason"], c["field"], c["message"]) for c in reply.body["details"]["causes"]]


async def test_cel_rules_reject_with_their_message_at_the_rule_s_field(
    api: Api, namespace: str
) -> None:
    plural = await _install(api)
    path = f"/apis/rules.example.com/v1/namespaces/{namespace}/{plural}"
    reply = await api.post(path, _gauge(plural, "bad", minimum=5, maximum=3, tier="Gold"))
    assert reply.status == 422
    assert reply.body["details"]["kind"] == _kind(plural)
    assert _causes(reply) == [
        ("FieldValueInvalid", "spec", 'Invalid value: "object": minimum must not exceed maximum'),
        ("FieldValueForbidden", "spec.tier", "Forbidden: must be lower case"),
    ]
    too_large = await api.post(path, _gauge(plural, "big", maximum=300))
    assert _causes(too_large) == [
        ("FieldValueInvalid", "spec", 'Invalid value: "object": maximum is too large')
    ]
    assert (await api.post(path, _gauge(plural, "good", tier="gold"))).status == 201


async def test_transition_rules_compare_with_the_stored_object(api: Api, namespace: str) -> None:
    plural = await _install(api)
    path = f"/apis/rules.example.com/v1/namespaces/{namespace}/{plural}"
    created = (await api.post(path, _gauge(plural, "t", tier="gold"))).body
    changed = {**created, "spec": {**created["spec"], "tier": "silver"}}
    reply = await api.put(f"{path}/t", changed)
    assert reply.status == 422
    assert _causes(reply) == [
        ("FieldValueInvalid", "spec.tier", 'Invalid value: "string": tier is immutable')
    ]
    same = {**created, "spec": {**created["spec"], "maximum": 20}}
    assert (await api.put(f"{path}/t", same)).status == 200


async def test_set_and_map_lists_refuse_duplicates_with_the_index(api: Api, namespace: str) -> None:
    plural = await _install(api)
    path = f"/apis/rules.example.com/v1/namespaces/{namespace}/{plural}"
    reply = await api.post(
        path,
        _gauge(
            plural,
            "dup",
            tags=["a", "b", "a"],
            ports=[{"name": "http", "port": 80}, {"name": "http", "port": 8080}],
        ),
    )
    assert reply.status == 422
    assert [(reason, field) for reason, field, _ in _causes(reply)] == [
        ("FieldValueDuplicate", "spec.tags[2]"),
        ("FieldValueDuplicate", "spec.ports[1]"),
    ]


async def test_int_or_string_defaults_and_type_errors_carry_field_paths(
    api: Api, namespace: str
) -> None:
    plural = await _install(api)
    path = f"/apis/rules.example.com/v1/namespaces/{namespace}/{plural}"
    created = await api.post(path, _gauge(plural, "ok", size="50%"))
    assert created.status == 201
    assert created.body["spec"] == {"size": "50%", "minimum": 0, "maximum": 10}
    assert (await api.post(path, _gauge(plural, "num", size=3))).status == 201
    reply = await api.post(path, _gauge(plural, "wrong", size=[1], minimum="x"))
    assert reply.status == 422
    causes = _causes(reply)
    assert sorted(field for _, field, _ in causes) == ["<nil>", "spec.minimum", "spec.size"]
    # wrongly typed values stop the CEL rules, as the real strategy's hasBlockingErr does
    assert (
        "FieldValueInvalid",
        "<nil>",
        'Invalid value: "null": some validation rules were not checked because the object was '
        "invalid; correct the existing errors to complete validation",
    ) in causes


async def test_the_crd_itself_is_validated_with_field_paths(api: Api) -> None:
    plural = "g" + uuid.uuid4().hex[:8] + "s"
    body = _crd(plural)
    spec = body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["broken"] = {
        "type": "string",
        "x-kubernetes-validations": [{"rule": "self >"}],
    }
    spec["properties"]["list"] = {"type": "array"}
    spec["properties"]["keyed"] = {
        "type": "array",
        "x-kubernetes-list-type": "map",
        "items": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
    spec["properties"]["count"] = {"type": "integer", "default": "many"}
    body["spec"]["versions"][0]["selectableFields"] = [{"jsonPath": ".spec.ports"}]
    body["spec"]["versions"].append(
        {
            "name": "v2",
            "served": True,
            "storage": True,
            "schema": body["spec"]["versions"][0]["schema"],
        }
    )
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 422
    base = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties"
    fields = {field for _, field, _ in _causes(reply)}
    assert {
        f"{base}[broken].x-kubernetes-validations[0].rule",
        f"{base}[list].items",
        f"{base}[keyed].x-kubernetes-list-map-keys",
        f"{base}[count].default",
        "spec.versions[0].selectableFields[0].jsonPath",
        "spec.versions",
    } <= fields


async def test_several_versions_share_one_storage_version(api: Api, namespace: str) -> None:
    plural = "g" + uuid.uuid4().hex[:8] + "s"
    schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": _SPEC}}}
    versions = [
        {"name": "v1beta1", "served": True, "storage": False, "schema": schema},
        {"name": "v1", "served": True, "storage": True, "schema": schema},
        {"name": "v1alpha1", "served": False, "storage": False, "schema": schema},
    ]
    await _install(api, _crd(plural, versions))
    old_path = f"/apis/rules.example.com/v1beta1/namespaces/{namespace}/{plural}"
    new_path = f"/apis/rules.example.com/v1/namespaces/{namespace}/{plural}"
    created = await api.post(old_path, _gauge(plural, "multi", version="v1beta1", tier="gold"))
    assert created.status == 201
    assert created.body["apiVersion"] == "rules.example.com/v1beta1"
    read = (await api.get(f"{new_path}/multi")).body
    assert read["apiVersion"] == "rules.example.com/v1"
    assert read["spec"] == created.body["spec"]  # conversion None: only apiVersion changes
    listed = (await api.get(old_path)).body["items"]
    assert [item["apiVersion"] for item in listed] == ["rules.example.com/v1beta1"]
    unserved = await api.get(f"/apis/rules.example.com/v1alpha1/namespaces/{namespace}/{plural}")
    assert unserved.status == 404
    crd = (await api.get(f"{CRD_PATH}/{plural}.rules.example.com")).body
    assert crd["status"]["storedVersions"] == ["v1"]


async def test_a_crd_keeps_its_scope_and_every_version_it_stored_at(api: Api) -> None:
    plural = await _install(api)
    path = f"{CRD_PATH}/{plural}.rules.example.com"
    current = (await api.get(path)).body
    rescoped = copy.deepcopy(current)
    rescoped["spec"]["scope"] = "Cluster"
    reply = await api.put(path, rescoped)
    assert reply.status == 422
    assert [field for _, field, _ in _causes(reply)] == ["spec.scope"]
    renamed = copy.deepcopy(current)
    renamed["spec"]["versions"][0]["name"] = "v2"
    reply = await api.put(path, renamed)
    assert reply.status == 422
    assert ("FieldValueInvalid", "status.storedVersions[0]") in [
        (reason, field) for reason, field, _ in _causes(reply)
    ]


def test_any_one_all_and_not_are_checked_as_value_validations() -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "anyOf": [{"minimum": 10}, {"maximum": 0}]},
                    "b": {"type": "string", "oneOf": [{"pattern": "^x"}, {"pattern": "y$"}]},
                    "c": {"type": "string", "not": {"enum": ["bad"]}},
                    "d": {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 5}]},
                },
            }
        },
    }
    errors = validate({"spec": {"a": 5, "b": "xy", "c": "bad", "d": 9}}, schema)
    assert [str(e) for e in errors] == [
        "spec.a: Invalid value: 5: must validate at least one schema (anyOf)",
        'spec.b: Invalid value: "xy": must validate one and only one schema (oneOf)',
        'spec.c: Invalid value: "bad": must not validate the schema (not)',
        "spec.d: Invalid value: 9: spec.d in body should be less than or equal to 5",
    ]
    assert validate({"spec": {"a": 11, "b": "xa", "c": "ok", "d": 3}}, schema) == []
