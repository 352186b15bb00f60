"""``x-kubernetes-validations`` when a CRD is written: every rule checked as a 1.32 server does.

``schema_errors(schema, path)`` walks one version's ``openAPIV3Schema`` and returns the
``FieldError``\\ s Kubernetes reports (``ValidateCustomResourceDefinitionOpenAPISchema``
in apiextensions-apiserver v0.32.0 ``pkg/apis/apiextensions/validation``):

* the rule's own fields: ``rule is not specified``, ``message must not contain line
  breaks``, an unsupported ``reason``, an invalid ``fieldPath`` ...;
* each rule and ``messageExpression`` compiled against the node's structural type:
  ``compilation failed: ERROR: <input>:1:5: undefined field 'x'`` ..., ``cel expression
  must evaluate to a bool``, ``messageExpression must evaluate to a string``;
* ``oldSelf`` where old values cannot be correlated, ``optionalOldSelf`` without it;
* cost: a rule whose estimated cost times the number of times it can run (bounded by
  the ``maxItems``/``maxProperties`` above it) exceeds 10,000,000 is Forbidden, and so is
  a schema whose rules add up to more than 100,000,000, naming the costliest rules.

``compile_rules(node_schema, is_root)`` is shared with the runtime side.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.cel.program import CompileError, Program, compile_expression
from kubeforge.apiserver.cel.schema_types import (
    MAX_REQUEST_BYTES,
    Decl,
    max_elements_factor,
    schema_decl,
)
from kubeforge.apiserver.cel.types import BOOL, STRING, Type, optional_of
from kubeforge.apiserver.failures import FieldError, GoValue

__all__ = ["CompiledRule", "compile_rules", "schema_errors"]

PER_RULE_LIMIT = 10_000_000  # StaticEstimatedCostLimit
PER_CRD_LIMIT = 100_000_000  # StaticEstimatedCRDCostLimit
_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")
_NEWLINE = re.compile(r"[\n\r]+")


@dataclass
class CompiledRule:
    raw: dict[str, Any]
    program: Program | None
    message_program: Program | None
    error: str
    message_error: str
    uses_old_self: bool
    max_cost: int
    message_max_cost: int


def _self_type_name() -> str:
    # Kubernetes names the type afresh on every compile so rules cannot depend on it.
    return f"selfType{time.time_ns() % 1_000_000_000}"


def compile_rules(schema: dict[str, Any], is_root: bool) -> tuple[Decl | None, list[CompiledRule]]:
    decl = schema_decl(schema, is_root or bool(schema.get("x-kubernetes-embedded-resource")),
                       _self_type_name())  # fmt: skip
    out = []
    for raw in schema.get("x-kubernetes-validations") or []:
        out.append(_compile_rule(raw if isinstance(raw, dict) else {}, decl))
    return decl, out


def _compile_rule(raw: dict[str, Any], decl: Decl | None) -> CompiledRule:
    result = CompiledRule(raw, None, None, "", "", False, 0, 0)
    source = str(raw.get("rule") or "")
    if not source.strip() or decl is None:
        return result
    old = optional_of(decl.type) if raw.get("optionalOldSelf") is True else decl.type
    variables = {"self": decl.type, "oldSelf": old}
    program, result.error = _typed(source, variables, decl, BOOL, _RULE_ERRORS)
    if program is None:
        return result
    result.program, result.max_cost = program, program.max_cost
    result.uses_old_self = program.references("oldSelf")
    message = str(raw.get("messageExpression") or "")
    if message.strip():
        compiled, result.message_error = _typed(message, variables, decl, STRING, _MESSAGE_ERRORS)
        if compiled is not None:
            result.message_program, result.message_max_cost = compiled, compiled.max_cost
    return result


# (prefix of a compile error, text when the result has the wrong type), as 1.32 words them
_RULE_ERRORS = ("compilation failed", "cel expression must evaluate to a bool")
_MESSAGE_ERRORS = (
    "messageExpression compilation failed",
    "messageExpression must evaluate to a string",
)


def _typed(
    source: str, variables: dict[str, Type], decl: Decl, want: Type, errors: tuple[str, str]
) -> tuple[Program | None, str]:
    """The compiled expression, or the error that refuses it."""
    try:
        program = compile_expression(source, variables, decl)
    except CompileError as error:
        return None, f"{errors[0]}: {error}"
    if program.result_type != want:
        return None, errors[1]
    return program, ""


def cost_message(name: str, cost: int, limit: int) -> str:
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return (
        f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding "
        "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


class _Total:
    def __init__(self) -> None:
        self.total = 0
        self.most_expensive: list[tuple[int, str]] = []

    def observe(self, path: str, cost: int) -> None:
        self.total = min(2**64 - 1, self.total + cost)
        if cost < PER_CRD_LIMIT // 100:
            return
        self.most_expensive.append((cost, path))
        self.most_expensive.sort(key=lambda item: -item[0])
        del self.most_expensive[4:]


def schema_errors(schema: dict[str, Any], path: str) -> list[FieldError]:
    total = _Total()
    errors: list[FieldError] = []
    for node, where, cardinality, uncorrelatable in _walk(schema, path, 1, None):
        errors += _node_errors(node, where, node is schema, cardinality, uncorrelatable, total)
    if total.total > PER_CRD_LIMIT:
        detail = (
            "contributed to estimated rule cost total exceeding cost limit for entire "
            "OpenAPIv3 schema"
        )
        errors += [FieldError("Forbidden", where, detail) for _, where in total.most_expensive]
        name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
        errors.append(FieldError("Forbidden", path, cost_message(name, total.total, PER_CRD_LIMIT)))
    return errors


def _walk(
    schema: dict[str, Any], path: str, cardinality: int | None, uncorrelatable: str | None
) -> Iterator[tuple[dict[str, Any], str, int | None, str | None]]:
    yield schema, path, cardinality, uncorrelatable
    factor = max_elements_factor(schema)
    child_cardinality = None if cardinality is None or factor is None else cardinality * factor
    fields_below = uncorrelatable
    if fields_below is None and schema.get("x-kubernetes-map-type") == "atomic":
        fields_below = path
    for key, child in (schema.get("properties") or {}).items():
        if isinstance(child, dict):
            yield from _walk(child, f"{path}.properties[{key}]", child_cardinality, fields_below)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        yield from _walk(extra, f"{path}.additionalProperties", child_cardinality, uncorrelatable)
    items = schema.get("items")
    if isinstance(items, dict):
        below = uncorrelatable
        if below is None and schema.get("x-kubernetes-list-type") != "map":
            below = path
        yield from _walk(items, f"{path}.items", child_cardinality, below)


def _node_errors(
    node: dict[str, Any],
    path: str,
    is_root: bool,
    cardinality: int | None,
    uncorrelatable: str | None,
    total: _Total,
) -> list[FieldError]:
    rules = node.get("x-kubernetes-validations")
    if not isinstance(rules, list) or not rules:
        return []
    errors: list[FieldError] = []
    for i, raw in enumerate(rules):
        errors += _shape_errors(
            raw if isinstance(raw, dict) else {}, node, f"{path}.x-kubernetes-validations[{i}]"
        )
    if errors:
        return errors  # Kubernetes compiles nothing at a level with schema errors
    decl, compiled = compile_rules(node, is_root)
    fallback = MAX_REQUEST_BYTES // ((decl.min_size if decl else 1) + 1)
    for i, result in enumerate(compiled):
        at = f"{path}.x-kubernetes-validations[{i}]"
        errors += _rule_errors(result, at, cardinality or fallback, uncorrelatable, total)
    return errors


def _rule_errors(
    result: CompiledRule, at: str, cardinality: int, uncorrelatable: str | None, total: _Total
) -> list[FieldError]:
    errors: list[FieldError] = []
    cost = min(2**64 - 1, result.max_cost * cardinality)
    if cost > PER_RULE_LIMIT:
        errors.append(
            FieldError(
                "Forbidden", f"{at}.rule", cost_message("estimated rule cost", cost, PER_RULE_LIMIT)
            )
        )
    total.observe(f"{at}.rule", cost)
    if result.error:
        errors.append(FieldError("Invalid", f"{at}.rule", result.error, rule_value(result.raw)))
    if result.message_error:
        errors.append(
            FieldError(
                "Invalid", f"{at}.messageExpression", result.message_error, rule_value(result.raw)
            )
        )
    elif result.message_program is not None:
        message_cost = result.message_max_cost
        if message_cost > PER_RULE_LIMIT:
            detail = cost_message("estimated messageExpression cost", message_cost, PER_RULE_LIMIT)
            errors.append(FieldError("Forbidden", f"{at}.messageExpression", detail))
        total.observe(f"{at}.messageExpression", message_cost)
    if result.program is None:
        return errors
    if result.uses_old_self and uncorrelatable is not None:
        detail = (
            "oldSelf cannot be used on the uncorrelatable portion of the schema within "
            + uncorrelatable
        )
        errors.append(FieldError("Invalid", f"{at}.rule", detail, result.raw.get("rule")))
    elif not result.uses_old_self and result.raw.get("optionalOldSelf") is not None:
        detail = "may not be set if oldSelf is not used in rule"
        errors.append(
            FieldError(
                "Invalid", f"{at}.optionalOldSelf", detail, result.raw.get("optionalOldSelf")
            )
        )
    return errors


def _shape_errors(raw: dict[str, Any], node: dict[str, Any], at: str) -> list[FieldError]:
    errors: list[FieldError] = []
    rule = str(raw.get("rule") or "")
    message = raw.get("message")
    message_text = str(message or "")
    if not rule.strip():
        errors.append(FieldError("Required", f"{at}.rule", "rule is not specified"))
    elif message_text and not message_text.strip():
        errors.append(
            FieldError(
                "Invalid", f"{at}.message", "message must be non-empty if specified", message_text
            )
        )
    elif _NEWLINE.search(message_text.strip()):
        errors.append(
            FieldError(
                "Invalid", f"{at}.message", "message must not contain line breaks", message_text
            )
        )
    elif _NEWLINE.search(rule.strip()) and not message_text.strip():
        errors.append(
            FieldError(
                "Required",
                f"{at}.message",
                "message must be specified if rule contains line breaks",
            )
        )
    expression = str(raw.get("messageExpression") or "")
    if expression and not expression.strip():
        errors.append(
            FieldError(
                "Required",
                f"{at}.messageExpression",
                "messageExpression must be non-empty if specified",
            )
        )
    reason = raw.get("reason")
    if reason is not None and reason not in _REASONS:
        errors.append(FieldError.not_supported(f"{at}.reason", reason, _REASONS))
    errors += _field_path_errors(str(raw.get("fieldPath") or ""), node, at)
    return errors


def _field_path_errors(field_path: str, node: dict[str, Any], at: str) -> list[FieldError]:
    if not field_path:
        return []
    errors = []
    if not field_path.strip():
        errors.append(
            FieldError(
                "Invalid", f"{at}.fieldPath", "fieldPath must be non-empty if specified", field_path
            )
        )
    if _NEWLINE.search(field_path):
        errors.append(
            FieldError(
                "Invalid", f"{at}.fieldPath", "fieldPath must not contain line breaks", field_path
            )
        )
    if normalize_field_path(field_path, node) is None:
        errors.append(
            FieldError("Invalid", f"{at}.fieldPath", "fieldPath must be a valid path", field_path)
        )
    return errors


_SEGMENT = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]")


def normalize_field_path(field_path: str, schema: dict[str, Any]) -> str | None:
    """``.spec.ports['http']`` as a field path (``spec.ports[http]``), or None if invalid."""
    out = ""
    position = 0
    node: dict[str, Any] | None = schema
    while position < len(field_path):
        match = _SEGMENT.match(field_path, position)
        if match is None or node is None:
            return None
        name = match.group(1) if match.group(1) is not None else match.group(2)
        position = match.end()
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and match.group(2) is not None:
            out += f"[{name}]"
            node = extra
            continue
        properties = node.get("properties") or {}
        if name not in properties:
            return None
        out += f".{name}" if out else name
        node = properties[name]
    return out or None


def rule_value(raw: dict[str, Any]) -> GoValue:
    """The rule as Go's ``%#v`` prints ``apiextensions.ValidationRule`` in a field error."""

    def quoted(key: str) -> str:
        return GoValue.quote(str(raw.get(key) or ""))

    reason = (
        "(*apiextensions.FieldValueErrorReason)(nil)"
        if raw.get("reason") is None
        else "(*apiextensions.FieldValueErrorReason)(0xc000000000)"
    )
    optional = "(*bool)(nil)" if raw.get("optionalOldSelf") is None else "(*bool)(0xc000000000)"
    return GoValue(
        f"apiextensions.ValidationRule{{Rule:{quoted('rule')}, Message:{quoted('message')}, "
        f"MessageExpression:{quoted('messageExpression')}, Reason:{reason}, "
        f"FieldPath:{quoted('fieldPath')}, OptionalOldSelf:{optional}}}"
    )
