"""``x-kubernetes-validations``: CEL rules of a CRD schema, compiled once, run on every write.

Entry points: ``compile_errors(schema, path)`` (what makes a CRD invalid: a rule
that does not parse) and ``RuleSet.of(schema)`` then ``rules.validate(obj, old)``
(the ``FieldError``\\ s of a custom resource). CEL itself is the ``cel-python``
library (``celpy``); this module adds what Kubernetes layers on top:

* ``self`` is the value at the rule's node; ``oldSelf`` the stored value at the same
  place on updates. A rule mentioning ``oldSelf`` is a *transition rule*: it only
  runs when there is an old value (unless ``optionalOldSelf``). Old values are
  matched by property name, map key, and for ``x-kubernetes-list-type: map``
  lists by the list's keys, as the real server correlates them.
* A failing rule is a ``FieldValueInvalid`` cause (or the rule's ``reason``) at
  the node's path plus ``fieldPath``, with ``messageExpression``'s result, else
  ``message``, else ``failed rule: <rule>``; the value shown is the node's type.
* Ratcheting (on by default since 1.30): on updates, rules other than transition
  rules are skipped where the value equals the stored one.
* A few of the Kubernetes CEL library's string and list functions (``lowerAscii``,
  ``upperAscii``, ``trim``, ``replace``, ``split``, ``join``, ``indexOf``,
  ``lastIndexOf``, ``isSorted``, ``sum``, ``min``, ``max``); others are an
  evaluation error, reported like a failed rule.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from kubeforge.apiserver.failures import FieldError

if TYPE_CHECKING:
    import celpy

__all__ = ["RuleSet", "compile_errors"]

_REASONS = {
    "FieldValueInvalid": "Invalid",
    "FieldValueForbidden": "Forbidden",
    "FieldValueRequired": "Required",
    "FieldValueDuplicate": "Duplicate",
}
_ABSENT = object()


def _short(error: Exception) -> str:
    """celpy's messages end with a dump of the whole activation; keep the first clause."""
    text = str(error.args[0]) if error.args else str(error)
    return text.split(" (in activation", 1)[0].split("\n", 1)[0].strip()


def _lower(value: Any) -> Any:
    return _cel().celtypes.StringType(str(value).lower())


def _upper(value: Any) -> Any:
    return _cel().celtypes.StringType(str(value).upper())


def _trim(value: Any) -> Any:
    return _cel().celtypes.StringType(str(value).strip())


def _replace(value: Any, old: Any, new: Any, count: Any = -1) -> Any:
    return _cel().celtypes.StringType(str(value).replace(str(old), str(new), int(count)))


def _split(value: Any, separator: Any, limit: Any = -1) -> Any:
    limit = int(limit)
    parts = str(value).split(str(separator), limit - 1 if limit > 0 else -1)
    return _cel().celtypes.ListType([_cel().celtypes.StringType(p) for p in parts])


def _join(values: Any, separator: Any = "") -> Any:
    return _cel().celtypes.StringType(str(separator).join(str(v) for v in values))


def _index_of(value: Any, item: Any) -> Any:
    if isinstance(value, str):
        return _cel().celtypes.IntType(value.find(str(item)))
    return _cel().celtypes.IntType(list(value).index(item) if item in value else -1)


def _last_index_of(value: Any, item: Any) -> Any:
    if isinstance(value, str):
        return _cel().celtypes.IntType(value.rfind(str(item)))
    items = list(value)
    return _cel().celtypes.IntType(
        len(items) - 1 - items[::-1].index(item) if item in items else -1
    )


def _is_sorted(values: Any) -> Any:
    items = list(values)
    return _cel().celtypes.BoolType(all(a <= b for a, b in itertools.pairwise(items)))


def _sum(values: Any) -> Any:
    items = list(values)
    total = items[0] if items else _cel().celtypes.IntType(0)
    for item in items[1:]:
        total = total + item
    return total


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "lowerAscii": _lower,
    "upperAscii": _upper,
    "trim": _trim,
    "replace": _replace,
    "split": _split,
    "join": _join,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": lambda values: min(values),
    "max": lambda values: max(values),
}


class _Cel:
    """celpy, imported on first use: a server whose CRDs have no rules never pays for it."""

    def __init__(self) -> None:
        import celpy
        from celpy import adapter, celparser, celtypes, evaluation

        self.celpy = celpy
        self.celtypes = celtypes
        self.json_to_cel = adapter.json_to_cel
        self.ParseError = celparser.CELParseError
        self.EvalError = evaluation.CELEvalError
        self.environment = celpy.Environment()


@cache
def _cel() -> _Cel:
    return _Cel()


@cache
def _program(source: str) -> celpy.Runner:
    """Compile once per distinct rule text (rules repeat across versions and CRDs)."""
    environment = _cel().environment
    return environment.program(environment.compile(source), functions=_FUNCTIONS)


def compile_errors(schema: dict[str, Any], path: str) -> list[FieldError]:
    """Rules that do not compile, as the CRD's own validation reports them."""
    errors: list[FieldError] = []
    for node, where in _nodes(schema, path):
        for i, rule in enumerate(node.get("x-kubernetes-validations") or []):
            at = f"{where}.x-kubernetes-validations[{i}]"
            if not isinstance(rule, dict) or not isinstance(rule.get("rule"), str):
                errors.append(FieldError("Required", f"{at}.rule"))
                continue
            for key in ("rule", "messageExpression"):
                source = rule.get(key)
                if isinstance(source, str) and source:
                    try:
                        _program(source)
                    except _cel().ParseError as error:
                        detail = f"compilation failed: {_short(error)}"
                        errors.append(FieldError("Invalid", f"{at}.{key}", detail, source))
            reason = rule.get("reason")
            if reason is not None and reason not in _REASONS:
                errors.append(
                    FieldError(
                        "NotSupported",
                        f"{at}.reason",
                        'supported values: "FieldValueDuplicate", "FieldValueForbidden", '
                        '"FieldValueInvalid", "FieldValueRequired"',
                        reason,
                    )
                )
    return errors


def _nodes(schema: dict[str, Any], path: str) -> Iterator[tuple[dict[str, Any], str]]:
    yield schema, path
    for key, child in (schema.get("properties") or {}).items():
        if isinstance(child, dict):
            yield from _nodes(child, f"{path}.properties[{key}]")
    for key in ("items", "additionalProperties"):
        child = schema.get(key)
        if isinstance(child, dict):
            yield from _nodes(child, f"{path}.{key}")


@dataclass(frozen=True)
class _Rule:
    source: str
    message: str
    message_expression: str
    reason: str
    field_path: str
    transition: bool


class RuleSet:
    """The CEL rules of one schema; ``validate`` walks an object (and its old self)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self._rules: dict[int, list[_Rule]] = {}
        self._any = False
        self._collect(schema)

    @classmethod
    def of(cls, schema: dict[str, Any] | None) -> RuleSet | None:
        if schema is None:
            return None
        rules = cls(schema)
        return rules if rules._any else None

    def _collect(self, schema: dict[str, Any]) -> None:
        for node, _ in _nodes(schema, ""):
            rules = []
            for raw in node.get("x-kubernetes-validations") or []:
                if not isinstance(raw, dict) or not isinstance(raw.get("rule"), str):
                    continue
                source = raw["rule"]
                rules.append(
                    _Rule(
                        source=source,
                        message=str(raw.get("message") or ""),
                        message_expression=str(raw.get("messageExpression") or ""),
                        reason=_REASONS.get(str(raw.get("reason") or ""), "Invalid"),
                        field_path=str(raw.get("fieldPath") or ""),
                        transition="oldSelf" in source and not raw.get("optionalOldSelf"),
                    )
                )
            if rules:
                self._rules[id(node)] = rules
                self._any = True

    def validate(self, obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        errors: list[FieldError] = []
        old_root: Any = _ABSENT if old is None else _root_view(old)
        self._walk(_root_view(obj), old_root, self._schema, "", errors)
        return errors

    def _walk(
        self, value: Any, old: Any, schema: dict[str, Any], path: str, errors: list[FieldError]
    ) -> None:
        unchanged = old is not _ABSENT and value == old
        for rule in self._rules.get(id(schema), ()):
            if rule.transition and old is _ABSENT:
                continue
            if unchanged and not rule.transition:
                continue  # ratcheting: a value the update did not touch is not re-judged
            error = _run(rule, value, old, schema, path)
            if error is not None:
                errors.append(error)
        if isinstance(value, dict):
            properties = schema.get("properties") or {}
            extra = schema.get("additionalProperties")
            old_map = old if isinstance(old, dict) else {}
            for key, child in value.items():
                child_schema = properties.get(key)
                if child_schema is None and isinstance(extra, dict):
                    child_schema = extra
                if isinstance(child_schema, dict):
                    child_path = f"{path}.{key}" if path else key
                    self._walk(child, old_map.get(key, _ABSENT), child_schema, child_path, errors)
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            items = schema["items"]
            keys = tuple(schema.get("x-kubernetes-list-map-keys") or ())
            old_items: dict[Any, Any] = {}
            if schema.get("x-kubernetes-list-type") == "map" and isinstance(old, list):
                old_items = {_map_key(item, keys): item for item in old if isinstance(item, dict)}
            for i, item in enumerate(value):
                match = _ABSENT
                if old_items and isinstance(item, dict):
                    match = old_items.get(_map_key(item, keys), _ABSENT)
                self._walk(item, match, items, f"{path}[{i}]", errors)


def _root_view(obj: dict[str, Any]) -> dict[str, Any]:
    """What a root rule sees as ``self``: metadata is only ``name`` and ``generateName``."""
    view = dict(obj)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        view["metadata"] = {k: meta[k] for k in ("name", "generateName") if k in meta}
    return view


def _map_key(item: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(repr(item.get(k)) for k in keys)


def _type_name(value: Any, schema: dict[str, Any]) -> str:
    if schema.get("type"):
        return str(schema["type"])
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "integer"


def _run(rule: _Rule, value: Any, old: Any, schema: dict[str, Any], path: str) -> FieldError | None:
    lib = _cel()
    activation: dict[str, Any] = {"self": lib.json_to_cel(value)}
    if old is not _ABSENT:
        activation["oldSelf"] = lib.json_to_cel(old)
    where = path or "<root>"
    if rule.field_path:
        where = f"{path}{rule.field_path}" if path else rule.field_path.lstrip(".")
    try:
        result: Any = _program(rule.source).evaluate(activation)
    except (lib.EvalError, lib.ParseError, TypeError, ValueError) as error:
        detail = f"{_failed(rule)}: {_short(error)}"
        return FieldError("Invalid", where, detail, _type_name(value, schema))
    if isinstance(result, lib.EvalError):  # celpy may return an error instead of raising
        detail = f"{_failed(rule)}: {_short(result)}"
        return FieldError("Invalid", where, detail, _type_name(value, schema))
    if isinstance(result, lib.celtypes.BoolType | bool) and bool(result):
        return None
    message = rule.message or f"failed rule: {rule.source}"
    if rule.message_expression:
        try:
            produced: Any = _program(rule.message_expression).evaluate(activation)
        except (lib.EvalError, lib.ParseError, TypeError, ValueError):
            produced = None
        if isinstance(produced, str) and produced.strip():
            message = str(produced)
    if rule.reason in ("Required", "Forbidden"):
        return FieldError(rule.reason, where, message)
    return FieldError(rule.reason, where, message, _type_name(value, schema))


def _failed(rule: _Rule) -> str:
    return rule.message or f"failed rule: {rule.source}"
