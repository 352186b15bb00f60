"""A ValidatingAdmissionPolicy compiled once: its variables, matchConditions, validations and
audit annotations, each a ``Program`` or the compile error Kubernetes reports for it.

``CompiledPolicy.of(policy, authorizer=True)``. A validation that does not compile is
not rejected here (the API validation of the policy object does that); it makes every
admission it takes part in an error, handled by the policy's ``failurePolicy``, with
the message ``compilation error: compilation failed: ERROR: ...``.

Entry points: ``CompiledPolicy``, ``expression_error`` (for validating the object).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kubeforge.apiserver.cel.admission_env import declarations
from kubeforge.apiserver.cel.program import CompileError, Program, compile_expression
from kubeforge.apiserver.cel.types import BOOL, DYN, NULL, STRING, Type

__all__ = ["CompiledExpression", "CompiledPolicy", "expression_error", "match_condition"]


@dataclass(frozen=True)
class CompiledExpression:
    source: str
    program: Program | None
    error: str  # Kubernetes' compile error detail; "" when compiled


def _compile(source: str, names: dict[str, Type], returns: tuple[Type, ...]) -> CompiledExpression:
    try:
        program = compile_expression(source, names)
    except CompileError as error:
        return CompiledExpression(source, None, f"compilation failed: {error}")
    result = program.result_type
    if returns and result not in returns:
        if len(returns) == 1:
            detail = f"must evaluate to {_go_type(returns[0])} but got {_go_type(result)}"
        else:
            shown = " ".join(_go_type(t) for t in returns)
            detail = f"must evaluate to one of [{shown}] but got {_go_type(result)}"
        return CompiledExpression(source, None, detail)
    return CompiledExpression(source, program, "")


def _go_type(t: Type) -> str:
    """cel-go's ``Type.String()``: ``bool``, ``string``, ``null_type``, ``list(int)``."""
    if t.kind == "null":
        return "null_type"
    return str(t)


def expression_error(
    source: str, *, params: bool, returns: tuple[Type, ...] = (BOOL,),
    variables: dict[str, Type] | None = None,
) -> str:  # fmt: skip
    """Why ``source`` is not a valid policy expression ("" when it is)."""
    names = declarations(params=params, authorizer=True, variables=variables or {})
    return _compile(source, names, returns).error


def match_condition(expression: str) -> CompiledExpression:
    """A webhook's ``matchConditions`` entry: a bool over object, oldObject, request (and
    authorizer, which Kubernetes declares for them too)."""
    return _compile_cached(expression)


@lru_cache(maxsize=1024)
def _compile_cached(expression: str) -> CompiledExpression:
    return _compile(expression, declarations(params=False, authorizer=True), (BOOL,))


@dataclass
class CompiledPolicy:
    name: str
    spec: dict[str, Any]
    variables: list[tuple[str, CompiledExpression]] = field(default_factory=list)
    conditions: list[tuple[str, CompiledExpression]] = field(default_factory=list)
    validations: list[tuple[dict[str, Any], CompiledExpression, CompiledExpression | None]] = field(
        default_factory=list
    )
    annotations: list[tuple[str, CompiledExpression]] = field(default_factory=list)

    @property
    def failure_policy(self) -> str:
        return str(self.spec.get("failurePolicy") or "Fail")

    @classmethod
    def of(cls, policy: dict[str, Any], authorizer: bool = True) -> CompiledPolicy:
        spec = policy.get("spec") or {}
        compiled = cls(str((policy.get("metadata") or {}).get("name", "")), spec)
        params = bool(spec.get("paramKind"))
        types: dict[str, Type] = {}
        for variable in spec.get("variables") or []:
            names = declarations(params=params, authorizer=authorizer, variables=types)
            result = _compile(str(variable.get("expression") or ""), names, ())
            name = str(variable.get("name") or "")
            types[name] = result.program.result_type if result.program else DYN
            compiled.variables.append((name, result))
        names = declarations(params=params, authorizer=authorizer, variables=types)
        for condition in spec.get("matchConditions") or []:
            result = _compile(str(condition.get("expression") or ""), names, (BOOL,))
            compiled.conditions.append((str(condition.get("name") or ""), result))
        plain = declarations(params=params, authorizer=False, variables=types)
        for validation in spec.get("validations") or []:
            rule = _compile(str(validation.get("expression") or ""), names, (BOOL,))
            message = None
            if validation.get("messageExpression"):
                message = _compile(str(validation["messageExpression"]), plain, (STRING,))
            compiled.validations.append((validation, rule, message))
        for annotation in spec.get("auditAnnotations") or []:
            value = _compile(str(annotation.get("valueExpression") or ""), plain, (STRING, NULL))
            compiled.annotations.append((str(annotation.get("key") or ""), value))
        return compiled
