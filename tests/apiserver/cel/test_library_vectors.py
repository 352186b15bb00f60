"""The Kubernetes CEL libraries and cel-go's extensions, against their own test tables.

``vectors/library.json`` holds the expressions and expected results of
k8s.io/apiserver v0.32.0 ``pkg/cel/library/{ip,cidr,format,quantity,cost}_test.go`` and
cel-go v0.22.0 ``ext/strings_test.go``: the value each expression gives, its runtime
cost, the runtime error it raises, or the compile error a 1.32 environment gives
(features 1.32 does not enable for new rules are compile errors here too).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from kubeforge.apiserver.cel.admission_env import declarations
from kubeforge.apiserver.cel.lib_authz import Authorizer
from kubeforge.apiserver.cel.program import CompileError, compile_expression
from kubeforge.apiserver.cel.values import EvalError, Optional

VECTORS = json.loads((Path(__file__).parent / "vectors" / "library.json").read_text())


def _allow_everything(_user: dict[str, Any], _attributes: dict[str, str]) -> tuple[str, str]:
    return "allow", ""


def _environment(entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    if entry.get("needs") != "authorizer":
        return {}, {}
    names = declarations(params=False, authorizer=True)
    authorizer = Authorizer(_allow_everything, {"username": "alice"})
    return names, {"authorizer": authorizer}


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, dict) and "optional" in want:
        return isinstance(got, Optional) and not got.present
    if isinstance(want, float):
        return isinstance(got, float) and math.isclose(got, want)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize("entry", VECTORS, ids=[e["expr"][:60] for e in VECTORS])
def test_expression_behaves_as_in_kubernetes(entry: dict[str, Any]) -> None:
    names, values = _environment(entry)
    patterns = entry.get("compile_error_patterns")
    if patterns:
        with pytest.raises(CompileError) as refused:
            compile_expression(entry["expr"], names)
        assert all(re.search(p, str(refused.value)) for p in patterns), str(refused.value)
        return
    program = compile_expression(entry["expr"], names)
    if "runtime_error" in entry or "runtime_error_pattern" in entry:
        with pytest.raises(EvalError) as failed:
            program.evaluate(values)
        if "runtime_error" in entry:
            assert str(failed.value) == entry["runtime_error"]
        else:
            assert re.search(entry["runtime_error_pattern"], str(failed.value))
        return
    value, cost = program.evaluate(values)
    if "value" in entry:
        assert _same(value, entry["value"]), value
    if "runtime_cost" in entry:
        assert cost == entry["runtime_cost"]


def test_the_tables_cover_every_library_function() -> None:
    text = " ".join(e["expr"] for e in VECTORS)
    for function in (
        "quantity(", "isQuantity(", ".compareTo(", ".add(", ".sub(", ".isInteger(", ".asInteger(",
        ".asApproximateFloat(", ".isLessThan(", ".isGreaterThan(", "ip(", "isIP(",
        "ip.isCanonical(", ".family(", "cidr(", ".containsIP(", ".containsCIDR(", ".masked(",
        ".prefixLength(", ".indexOf(", ".lastIndexOf(", ".find(", ".findAll(", ".lowerAscii(",
        ".upperAscii(", ".split(", ".join(", ".replace(", ".substring(", ".trim(", ".charAt(",
        "strings.quote(", "sets.contains(", "sets.equivalent(", "sets.intersects(",
        "format.named(", ".validate(", "authorizer.path(", ".check(",
    ):  # fmt: skip
        assert function in text, function
