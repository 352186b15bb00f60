"""Over 100 CRD validation rules: refused with Kubernetes' message, or evaluated as Kubernetes does.

``vectors/crd_rules.yaml`` declares one schema and rules over it; each rule is compiled
as a CRD write compiles it (``schema_errors``: type checking, cost, the rule's own
fields) and, when accepted, evaluated on the listed objects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubeforge.apiserver.cel.crd_rules import compile_rules, schema_errors
from kubeforge.apiserver.cel.schema_types import to_cel
from kubeforge.apiserver.cel.values import NONE, EvalError, Optional

DATA = yaml.safe_load((Path(__file__).parent / "vectors" / "crd_rules.yaml").read_text())
RULES: list[dict[str, Any]] = DATA["rules"]


def _schema(entry: dict[str, Any]) -> dict[str, Any]:
    raw: dict[str, Any] = {"rule": entry["rule"]}
    if entry.get("optionalOldSelf"):
        raw["optionalOldSelf"] = True
    if entry.get("root"):
        properties = {"metadata": {"type": "object"}, "spec": DATA["schema"]}
        return {"type": "object", "properties": properties, "x-kubernetes-validations": [raw]}
    return {**DATA["schema"], "x-kubernetes-validations": [raw]}


@pytest.mark.parametrize("entry", RULES, ids=[r["rule"][:70] for r in RULES])
def test_rule_is_refused_or_evaluated_as_kubernetes_does(entry: dict[str, Any]) -> None:
    schema = _schema(entry)
    errors = schema_errors(schema, "spec.validation.openAPIV3Schema")
    if "reject" in entry:
        assert errors, "a 1.32 server refuses this rule"
        assert errors[0].detail == entry["reject"]
        return
    assert errors == []
    decl, [compiled] = compile_rules(schema, bool(entry.get("root")))
    assert compiled.program is not None
    for case in entry["cases"]:
        variables = {"self": to_cel(case["self"], decl)}
        if entry.get("optionalOldSelf"):
            old = case.get("oldSelf")
            variables["oldSelf"] = NONE if old is None else Optional(to_cel(old, decl), True)
        elif "oldSelf" in case:
            variables["oldSelf"] = to_cel(case["oldSelf"], decl)
        if "error" in case:
            with pytest.raises(EvalError) as failed:
                compiled.program.evaluate(variables, 1_000_000)
            assert str(failed.value) == case["error"]
        else:
            result, _ = compiled.program.evaluate(variables, 1_000_000)
            assert result is case["result"], case


def test_the_corpus_has_a_hundred_rules_and_names_every_library_function() -> None:
    assert len(RULES) >= 100
    text = " ".join(r["rule"] for r in RULES)
    for function in (
        "quantity(", "isQuantity(", "url(", "ip(", "cidr(", ".isSorted(", ".sum(", ".min(",
        ".max(", ".indexOf(", ".find(", ".findAll(", ".?", ".orValue(", ".lowerAscii(",
        ".split(", ".join(", ".format(", "optional.", "sets.", "format.", ".sign(", "isURL(",
        ".getScheme(", ".getHost(", ".getHostname(", ".getPort(", ".getEscapedPath(",
        ".getQuery(", "isCIDR(", ".lastIndexOf(", ".exists_one(", ".filter(", ".map(",
    ):  # fmt: skip
        assert function in text, function
