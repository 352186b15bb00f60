"""CEL rules through the server: refused when the CRD is written (type errors, cost), and
bounded at runtime (a rule whose evaluation passes the per-call limit stops with the real
message instead of blocking the server)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kf_http import Api

pytestmark = pytest.mark.live

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _crd(plural: str, spec: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"spec": spec}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.cel.example.com"},
        "spec": {
            "group": "cel.example.com",
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": plural.capitalize()[:-1]},
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


# issue 13's rule: blocked the server for 13.6 s on a 40-item object before it was refused
CUBIC = "self.numbers.all(a, self.numbers.all(b, self.numbers.all(c, a + b + c >= 0)))"


def _plural() -> str:
    return "r" + uuid.uuid4().hex[:8] + "s"


async def test_a_rule_that_does_not_type_check_refuses_the_crd(api: Api) -> None:
    spec = {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.replicas + 'x' == 1"}],
    }
    reply = await api.post(CRD_PATH, _crd(_plural(), spec))
    assert reply.status == 422
    [cause] = reply.body["details"]["causes"]
    assert cause["field"] == (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    )
    assert cause["message"] == (
        "Invalid value: apiextensions.ValidationRule{Rule:\"self.replicas + 'x' == 1\", "
        'Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), '
        'FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:15: '
        "found no matching overload for '_+_' applied to '(int, string)'\n"
        " | self.replicas + 'x' == 1\n"
        " | ..............^"
    )


async def test_a_quadratic_rule_over_an_unbounded_list_refuses_the_crd(api: Api) -> None:
    spec = {
        "type": "object",
        "properties": {"numbers": {"type": "array", "items": {"type": "integer"}}},
        "x-kubernetes-validations": [{"rule": CUBIC}],
    }
    reply = await api.post(CRD_PATH, _crd(_plural(), spec))
    assert reply.status == 422
    fields = [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]
    rule = (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    )
    assert (
        rule,
        "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try "
        "simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, "
        "maps, and strings are declared)",
    ) in fields


async def test_an_expensive_evaluation_stops_at_the_per_call_limit(
    api: Api, namespace: str
) -> None:
    # accepted: 1000 x 1000 iterations estimate under the 10M per-rule budget ...
    spec = {
        "type": "object",
        "properties": {
            "numbers": {"type": "array", "maxItems": 1000, "items": {"type": "integer"}}
        },
        "x-kubernetes-validations": [
            {"rule": "self.numbers.all(a, self.numbers.all(b, a + b >= 0))"}
        ],
    }
    plural = _plural()
    assert (await api.post(CRD_PATH, _crd(plural, spec))).status == 201
    kind = plural.capitalize()[:-1]
    path = f"/apis/cel.example.com/v1/namespaces/{namespace}/{plural}"
    small = {"apiVersion": "cel.example.com/v1", "kind": kind, "metadata": {"name": "small"},
             "spec": {"numbers": list(range(10))}}  # fmt: skip
    for _ in range(50):
        created = await api.post(path, small)
        if created.status != 404:
            break
    assert created.status == 201, created.body
    # ... but 1000 items cost more than the 1M a single evaluation may spend
    big = {**small, "metadata": {"name": "big"}, "spec": {"numbers": list(range(1000))}}
    reply = await api.post(path, big)
    assert reply.status == 422
    [cause] = reply.body["details"]["causes"]
    assert cause["field"] == "spec"
    assert cause["message"] == (
        "Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further "
        "validation rules will be run due to call cost exceeds limit for rule: "
        "self.numbers.all(a, self.numbers.all(b, a + b >= 0))"
    )
