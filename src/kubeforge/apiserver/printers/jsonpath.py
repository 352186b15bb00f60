"""The JSONPath subset CRD printer columns use, evaluated the way kubectl's dialect does.

Printer columns are written like ``.spec.replicas``,
``.status.conditions[?(@.type=="Ready")].status`` or ``.metadata.labels['app']``.
This module supports exactly that family: dotted and bracketed field names, integer
indexes (negative from the end), slices, ``[*]``/``.*`` wildcards and filters
comparing a relative path with a literal (or testing that it exists). Missing keys
yield no result rather than an error, as the server's column evaluation allows.
Written here rather than taken from a JSONPath package because those implement
other dialects (Goessner, RFC 9535) whose filter and missing-key rules differ.

Entry point: ``find(expression, document)``, which returns every match in order.

>>> obj = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
>>> find('.status.conditions[?(@.type=="Ready")].status', obj)
['True']
>>> find(".spec.missing", obj)
[]
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from typing import Any

__all__ = ["JsonPathError", "find"]


class JsonPathError(ValueError):
    """The expression is outside the supported subset or malformed."""


_Step = Callable[[list[Any]], list[Any]]

_FIELD = re.compile(r"\.([A-Za-z0-9_\-$/]+|\*)")
_BRACKET = re.compile(r"\[([^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*)\]")
_FILTER = re.compile(
    r"^\?\(\s*@((?:\.[A-Za-z0-9_\-$/]+|\[[^\]]+\])*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$"
)
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_SLICE = re.compile(r"^(-?\d*):(-?\d*)$")


def find(expression: str, document: Any) -> list[Any]:
    """Every value ``expression`` selects in ``document``; ``[]`` when nothing matches."""
    values = [document]
    for step in _compile(expression):
        values = step(values)
    return values


@functools.lru_cache(maxsize=512)
def _compile(expression: str) -> tuple[_Step, ...]:
    text = expression.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if text.startswith("$"):
        text = text[1:]
    steps: list[_Step] = []
    pos = 0
    while pos < len(text):
        if text.startswith("..", pos):
            raise JsonPathError(f"recursive descent is not supported: {expression!r}")
        field = _FIELD.match(text, pos)
        if field:
            name = field.group(1)
            steps.append(_wildcard if name == "*" else _field(name))
            pos = field.end()
            continue
        bracket = _BRACKET.match(text, pos)
        if bracket:
            steps.append(_bracket(bracket.group(1).strip(), expression))
            pos = bracket.end()
            continue
        raise JsonPathError(f"unexpected {text[pos:]!r} in {expression!r}")
    return tuple(steps)


def _field(name: str) -> _Step:
    def step(values: list[Any]) -> list[Any]:
        return [v[name] for v in values if isinstance(v, dict) and name in v]

    return step


def _wildcard(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if isinstance(value, list):
            out.extend(value)
        elif isinstance(value, dict):
            out.extend(value[key] for key in sorted(value))
    return out


def _bracket(inner: str, expression: str) -> _Step:
    if inner == "*":
        return _wildcard
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        return _field(inner[1:-1])
    if inner.startswith("?"):
        return _filter(inner, expression)
    if re.fullmatch(r"-?\d+", inner):
        return _index(int(inner))
    sliced = _SLICE.match(inner)
    if sliced:
        start = int(sliced.group(1)) if sliced.group(1) else None
        stop = int(sliced.group(2)) if sliced.group(2) else None
        return lambda values: [x for v in values if isinstance(v, list) for x in v[start:stop]]
    raise JsonPathError(f"unsupported subscript [{inner}] in {expression!r}")


def _index(index: int) -> _Step:
    def step(values: list[Any]) -> list[Any]:
        out = []
        for value in values:
            if isinstance(value, list) and -len(value) <= index < len(value):
                out.append(value[index])
        return out

    return step


def _literal(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    try:
        return float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError as error:
        raise JsonPathError(f"bad literal {text!r} in filter") from error


def _compare(left: Any, op: str, right: Any) -> bool:
    if op == "==":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    # Ordering compares numbers with numbers and strings with strings; anything else
    # simply does not match (the filter is a predicate, not a type check).
    if _is_number(left) and _is_number(right):
        return bool(_ORDER[op](float(left), float(right)))
    if isinstance(left, str) and isinstance(right, str):
        return bool(_ORDER[op](left, right))
    return False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _filter(inner: str, expression: str) -> _Step:
    match = _FILTER.match(inner)
    if not match:
        raise JsonPathError(f"unsupported filter [{inner}] in {expression!r}")
    relative = _compile(match.group(1)) if match.group(1) else ()
    op, literal = match.group(2), match.group(3)
    expected = _literal(literal) if op else None

    def keep(item: Any) -> bool:
        found = [item]
        for step in relative:
            found = step(found)
        if not op:
            return bool(found)
        return any(_compare(value, op, expected) for value in found)

    def step(values: list[Any]) -> list[Any]:
        out: list[Any] = []
        for value in values:
            items = value if isinstance(value, list) else [value]
            out.extend(item for item in items if keep(item))
        return out

    return step
