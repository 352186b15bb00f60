"""Kubernetes' own table of CRD rule evaluations (TestValidationExpressions), run here.

``vectors/validation_expressions.json`` holds the schemas, objects and rules of
apiextensions-apiserver v0.32.0 ``pkg/apiserver/schema/cel/validation_test.go``: every
rule listed valid must evaluate to true, every error rule must fail with Kubernetes'
message; rules using two-variable comprehensions must be refused (new rules on 1.32
may not use them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubeforge.apiserver.cel.crd_rules import CompiledRule, compile_rules
from kubeforge.apiserver.cel.schema_types import Decl, to_cel
from kubeforge.apiserver.cel.values import EvalError

DATA = json.loads((Path(__file__).parent / "vectors" / "validation_expressions.json").read_text())
CASES: list[dict[str, Any]] = DATA["cases"]
VALID = [(c, r) for c in CASES for r in c["valid"]]
ERRORS = [(c, r, m) for c in CASES for r, m in c["errors"].items()]
REFUSED = [(c, r) for c in CASES for r in c["rejected_in_1_32"]]


def _compiled(case: dict[str, Any], rule: str) -> tuple[Decl | None, CompiledRule]:
    schema = {**case["schema"], "x-kubernetes-validations": [{"rule": rule}]}
    decl, [compiled] = compile_rules(schema, case["root"])
    return decl, compiled


def _outcome(case: dict[str, Any], rule: str) -> Any:
    decl, compiled = _compiled(case, rule)
    if compiled.program is None:
        return compiled.error
    try:
        return compiled.program.evaluate({"self": to_cel(case["object"], decl)}, 1_000_000)[0]
    except EvalError as error:
        return str(error)


@pytest.mark.parametrize(("case", "rule"), VALID, ids=[f"{c['name']}: {r[:60]}" for c, r in VALID])
def test_a_valid_rule_is_true(case: dict[str, Any], rule: str) -> None:
    assert _outcome(case, rule) is True


@pytest.mark.parametrize(
    ("case", "rule", "message"), ERRORS, ids=[f"{c['name']}: {r[:60]}" for c, r, _ in ERRORS]
)
def test_an_error_rule_fails_with_its_message(
    case: dict[str, Any], rule: str, message: str
) -> None:
    assert message in str(_outcome(case, rule))


@pytest.mark.parametrize(("case", "rule"), REFUSED, ids=[r[:60] for _, r in REFUSED])
def test_two_variable_comprehensions_are_not_for_new_rules(case: dict[str, Any], rule: str) -> None:
    _, compiled = _compiled(case, rule)
    assert "undeclared reference to" in compiled.error


def test_the_table_is_the_size_of_kubernetes_own() -> None:
    assert len(VALID) + len(ERRORS) + len(REFUSED) >= 450
