"""``x-kubernetes-validations`` when a custom resource is written, as a 1.32 server runs them.

``Validator(schema)`` compiles every rule of a version's schema once;
``validator.validate(obj, old)`` returns ``(errors, warnings)``:

* rules run top-down (a node's rules, then its children), on non-null values only;
  ``self`` is the value at the node as its schema types it, ``oldSelf`` the stored value
  at the same place, correlated by property name, map key, or the keys of an
  ``x-kubernetes-list-type: map`` list. A rule using ``oldSelf`` runs only when there is
  an old value, unless ``optionalOldSelf`` (then ``oldSelf`` is an optional).
* Ratcheting: on an update, a failing rule that does not use ``oldSelf``, at a value
  equal to the stored one, is a warning instead of an error.
* Cost: each evaluation stops at 1,000,000 (``PerCallLimit``) and all rules of one
  object share 10,000,000 (``RuntimeCELCostBudget``); past either, validation stops
  with Kubernetes' message. A rule that fails reports its ``messageExpression`` result,
  its ``message``, or ``failed rule: <rule>``, with its ``reason`` and ``fieldPath``.

Wording from apiextensions-apiserver v0.32.0 ``pkg/apiserver/schema/cel/validation.go``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.cel.crd_rules import CompiledRule, compile_rules, normalize_field_path
from kubeforge.apiserver.cel.operators import cel_equal
from kubeforge.apiserver.cel.schema_types import Decl, to_cel
from kubeforge.apiserver.cel.values import NONE, CostExceeded, EvalError, Optional
from kubeforge.apiserver.failures import FieldError

__all__ = ["PER_CALL_LIMIT", "RUNTIME_BUDGET", "Validator"]

PER_CALL_LIMIT = 1_000_000
RUNTIME_BUDGET = 10_000_000
_MAX_MESSAGE = 5 * 1024
_REASONS = {
    "FieldValueForbidden": "Forbidden",
    "FieldValueRequired": "Required",
    "FieldValueDuplicate": "Duplicate",
}
_ABSENT = object()
_BUDGET_GONE = (
    "validation failed due to running out of cost budget, no further validation rules will be run"
)


@dataclass
class _Node:
    decl: Decl | None
    rules: list[CompiledRule]
    schema: dict[str, Any]
    properties: dict[str, _Node] = field(default_factory=dict)
    items: _Node | None = None
    values: _Node | None = None


class _Stop(Exception):
    """Validation ends here (the budget is spent)."""


@dataclass
class _Run:
    budget: int = RUNTIME_BUDGET
    errors: list[FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Validator:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.root = _build(schema, True)
        self.any = _has_rules(self.root)

    def validate(self, obj: Any, old: Any = None) -> tuple[list[FieldError], list[str]]:
        run = _Run()
        with contextlib.suppress(_Stop):
            self._walk(self.root, obj, _ABSENT if old is None else old, "", run, True)
        return run.errors, run.warnings

    def _walk(self, node: _Node, value: Any, old: Any, path: str, run: _Run, root: bool) -> None:
        if value is None:
            return
        if node.rules:
            self._rules(node, value, old, path, run, root)
        if isinstance(value, dict):
            self._children(node, value, old if isinstance(old, dict) else {}, path, run)
        elif isinstance(value, list) and node.items is not None:
            old_items = _correlate(node.schema, old)
            for i, item in enumerate(value):
                match = old_items(item) if old_items else _ABSENT
                self._walk(node.items, item, match, f"{path}[{i}]", run, False)

    def _children(
        self, node: _Node, value: dict[str, Any], old: dict[str, Any], path: str, run: _Run
    ) -> None:
        for key, child in value.items():
            sub = node.properties.get(key)
            where = f"{path}.{key}" if path else key
            if sub is None and node.values is not None:
                sub, where = node.values, f"{path}[{key}]"
            if sub is not None:
                self._walk(sub, child, old.get(key, _ABSENT), where, run, False)

    def _rules(self, node: _Node, value: Any, old: Any, path: str, run: _Run, root: bool) -> None:
        shown_type = str(node.schema.get("type") or "object")
        where = path or "<nil>"
        if run.budget <= 0:
            run.errors.append(FieldError("Invalid", where, _BUDGET_GONE, shown_type))
            raise _Stop
        self_value = to_cel(_root_view(value) if root else value, node.decl)
        old_value = (
            _ABSENT if old is _ABSENT else to_cel(_root_view(old) if root else old, node.decl)
        )
        unchanged = old is not _ABSENT and cel_equal(self_value, old_value)
        for rule in node.rules:
            if rule.error or rule.program is None:
                if rule.error:
                    run.errors.append(
                        FieldError(
                            "Invalid", where, f"rule compile error: {rule.error}", shown_type
                        )
                    )
                continue
            optional = rule.raw.get("optionalOldSelf") is True
            if rule.uses_old_self and old is _ABSENT and not optional:
                continue
            variables = {"self": self_value}
            if optional:
                variables["oldSelf"] = NONE if old is _ABSENT else Optional(old_value, True)
            elif old is not _ABSENT:
                variables["oldSelf"] = old_value
            error = self._evaluate(rule, variables, where, shown_type, node.schema, run)
            if error is None:
                continue
            if not rule.uses_old_self and unchanged:
                run.warnings.append(str(error))
            else:
                run.errors.append(error)

    def _evaluate(
        self, rule: CompiledRule, variables: dict[str, Any], where: str, shown_type: str,
        schema: dict[str, Any], run: _Run,
    ) -> FieldError | None:  # fmt: skip
        assert rule.program is not None
        label = str(rule.raw.get("message") or "").strip() or str(rule.raw.get("rule")).strip()
        try:
            result, cost = rule.program.evaluate(variables, PER_CALL_LIMIT)
        except CostExceeded as error:
            detail = (
                f"'{error}': no further validation rules will be run due to call cost "
                f"exceeds limit for rule: {label}"
            )
            run.errors.append(FieldError("Invalid", where, detail, shown_type))
            raise _Stop from None
        except EvalError as error:
            text = str(error)
            if text.startswith("no such overload"):
                detail = (
                    f"'{text}': call arguments did not match a supported operator, function "
                    f"or macro signature for rule: {label}"
                )
            else:
                detail = f"{text} evaluating rule: {label}"
            return FieldError("Invalid", where, detail, shown_type)
        if cost > run.budget:
            run.errors.append(FieldError("Invalid", where, _BUDGET_GONE, shown_type))
            raise _Stop
        run.budget -= cost
        if result is True:
            return None
        at = where
        if rule.raw.get("fieldPath"):
            extra = normalize_field_path(str(rule.raw["fieldPath"]).strip(), schema)
            if extra:
                at = extra if where == "<nil>" else f"{where}.{extra}"
        message = _message(rule, variables, run, at, shown_type)
        kind = _REASONS.get(str(rule.raw.get("reason") or ""), "Invalid")
        if kind in ("Forbidden", "Required"):
            return FieldError(kind, at, message)
        if kind == "Duplicate":
            return FieldError("Duplicate", at, value=shown_type)
        return FieldError("Invalid", at, message, shown_type)


def _message(
    rule: CompiledRule, variables: dict[str, Any], run: _Run, at: str, shown_type: str
) -> str:
    default = (
        str(rule.raw.get("message") or "").strip()
        or f"failed rule: {str(rule.raw.get('rule')).strip()}"
    )
    program = rule.message_program
    if program is None:
        return default
    try:
        produced, cost = program.evaluate(variables, PER_CALL_LIMIT)
    except CostExceeded:
        detail = (
            "no further validation rules will be run due to call cost exceeds limit for "
            f"messageExpression: {_go_q(program.source)}"
        )
        run.errors.append(FieldError("Invalid", at, detail, shown_type))
        raise _Stop from None
    except EvalError:
        return default
    if cost > run.budget:
        detail = (
            "messageExpression evaluation failed due to running out of cost budget, "
            "no further validation rules will be run"
        )
        run.errors.append(FieldError("Invalid", at, detail, shown_type))
        raise _Stop
    run.budget -= cost
    text = produced.strip() if isinstance(produced, str) else ""
    if not text or "\n" in text or len(text) > _MAX_MESSAGE:
        return default
    return text


def _go_q(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def _root_view(obj: Any) -> Any:
    """A root rule's ``self``: metadata shows only ``name`` and ``generateName``."""
    if not isinstance(obj, dict):
        return obj
    view = dict(obj)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        view["metadata"] = {k: meta[k] for k in ("name", "generateName") if k in meta}
    return view


def _correlate(schema: dict[str, Any], old: Any) -> Any:
    """For a map-type list, a function from a new item to its old counterpart."""
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(old, list):
        return None
    keys = tuple(schema.get("x-kubernetes-list-map-keys") or ())
    index = {_key(item, keys): item for item in old if isinstance(item, dict)}
    return lambda item: index.get(_key(item, keys), _ABSENT) if isinstance(item, dict) else _ABSENT


def _key(item: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(repr(item.get(k)) for k in keys)


def _build(schema: dict[str, Any], root: bool) -> _Node:
    rules: list[CompiledRule] = []
    decl = None
    if schema.get("x-kubernetes-validations"):
        decl, rules = compile_rules(schema, root)
    node = _Node(decl, rules, schema)
    for key, child in (schema.get("properties") or {}).items():
        if isinstance(child, dict):
            node.properties[key] = _build(child, False)
    for key, attr in (("items", "items"), ("additionalProperties", "values")):
        child = schema.get(key)
        if isinstance(child, dict):
            setattr(node, attr, _build(child, False))
    return node


def _has_rules(node: _Node) -> bool:
    children = [*node.properties.values(), node.items, node.values]
    return bool(node.rules) or any(_has_rules(c) for c in children if c is not None)
