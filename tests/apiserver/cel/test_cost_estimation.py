"""Static cost estimates of CRD rules, against Kubernetes' own expected numbers.

``vectors/cost_estimation.json``: apiextensions-apiserver v0.32.0
``pkg/apiserver/schema/cel/compilation_test.go`` ``TestCostEstimation`` (schemas with and
without maxItems/maxProperties/maxLength, and the maximum cost Kubernetes computes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubeforge.apiserver.cel.crd_rules import compile_rules, cost_message, schema_errors

CASES = json.loads((Path(__file__).parent / "vectors" / "cost_estimation.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_estimated_cost_is_kubernetes_figure(case: dict[str, Any]) -> None:
    schema = {**case["schema"], "x-kubernetes-validations": [{"rule": case["rule"]}]}
    _, [compiled] = compile_rules(schema, False)
    assert compiled.error == ""
    if case["max_cost"]:
        assert compiled.max_cost == case["max_cost"]
    else:
        assert compiled.max_cost >= case["exceeds"]


def test_cost_messages_use_kubernetes_factor_formats() -> None:
    assert "factor of 1.200000x" in cost_message("estimated rule cost", 12, 10)
    assert "factor of 2.5x" in cost_message("estimated rule cost", 25, 10)
    assert "factor of more than 100x" in cost_message("estimated rule cost", 1001, 10)


def test_a_nested_rule_over_an_unbounded_list_is_refused() -> None:
    schema = {
        "type": "array",
        "items": {"type": "integer"},
        "x-kubernetes-validations": [
            {"rule": "self.all(a, self.all(b, self.all(c, a + b + c >= 0)))"}
        ],
    }
    errors = [str(e) for e in schema_errors(schema, "spec.validation.openAPIV3Schema")]
    assert errors[0] == (
        "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Forbidden: "
        "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the "
        "rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
        "strings are declared)"
    )
    assert errors[-1].startswith(
        "spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule "
        "cost total for entire OpenAPIv3 schema exceeds budget"
    )


def test_cardinality_multiplies_the_cost_of_a_nested_rule() -> None:
    item = {
        "type": "string",
        "maxLength": 10,
        "x-kubernetes-validations": [{"rule": "self.matches('^[a-z]+$')"}],
    }
    bounded = {"type": "array", "maxItems": 10, "items": item}
    assert schema_errors(bounded, "s") == []
    huge = {
        "type": "array",
        "maxItems": 10,
        "items": {"type": "array", "maxItems": 1_000_000, "items": item},
    }
    assert schema_errors(huge, "s")[0].kind == "Forbidden"
