"""Test helper: the structural-schema rules of apiextensions, checked node by node.

The local server checks only a few of them; the real API server refuses a CRD
that breaks any. ``structural_problems(schema)`` returns each broken rule with
its path (empty when the schema is structural), and also checks that every
``default`` is valid against its own node, as the API server does.
"""

from __future__ import annotations

from typing import Any

import jsonschema

__all__ = ["structural_problems"]

_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]
_NOT_IN_JUNCTORS = ("type", "description", "default", "additionalProperties", "nullable")


def structural_problems(schema: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    _node(schema, "", problems, root=True)
    return problems


def _node(node: dict[str, Any], path: str, problems: list[str], *, root: bool = False) -> None:
    where = path or "<root>"
    int_or_string = node.get("x-kubernetes-int-or-string") is True
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    kind = node.get("type")
    if not kind and not (int_or_string or preserve):
        problems.append(f"{where}: no type")
    if root and kind != "object":
        problems.append(f"{where}: the root must be an object")
    if int_or_string and "anyOf" in node and node["anyOf"] != _INT_OR_STRING_ANY_OF:
        problems.append(f"{where}: int-or-string with another anyOf")
    if int_or_string and kind:
        problems.append(f"{where}: int-or-string must not have a type")
    if "properties" in node and "additionalProperties" in node:
        problems.append(f"{where}: properties and additionalProperties together")
    if kind == "array" and not isinstance(node.get("items"), dict):
        problems.append(f"{where}: an array needs one items schema")
    if kind != "array" and "items" in node:
        problems.append(f"{where}: items outside an array")
    if kind != "object" and ("properties" in node or "additionalProperties" in node):
        problems.append(f"{where}: properties outside an object")
    if node.get("x-kubernetes-embedded-resource") and (
        kind != "object" or not (preserve or node.get("properties"))
    ):
        problems.append(f"{where}: an embedded resource is an object with fields or preserved")
    for junctor in ("anyOf", "allOf", "oneOf"):
        for branch in node.get(junctor) or []:
            if branch in _INT_OR_STRING_ANY_OF and int_or_string:
                continue
            for key in _NOT_IN_JUNCTORS:
                if key in branch:
                    problems.append(f"{where}.{junctor}: {key} inside a junctor")
    _list_type(node, where, problems)
    if "default" in node:
        try:
            jsonschema.Draft4Validator(node).validate(node["default"])
        except jsonschema.ValidationError as exc:
            problems.append(f"{where}: default {node['default']!r} is invalid: {exc.message}")
    for name, child in (node.get("properties") or {}).items():
        _node(child, f"{path}.{name}", problems)
    if isinstance(node.get("items"), dict):
        _node(node["items"], f"{path}[]", problems)
    if isinstance(node.get("additionalProperties"), dict):
        _node(node["additionalProperties"], f"{path}{{}}", problems)


def _list_type(node: dict[str, Any], where: str, problems: list[str]) -> None:
    list_type = node.get("x-kubernetes-list-type")
    if list_type is None:
        if "x-kubernetes-list-map-keys" in node:
            problems.append(f"{where}: map keys without list type map")
        return
    if node.get("type") != "array":
        problems.append(f"{where}: a list type on a non-array")
        return
    items = node.get("items") or {}
    if list_type == "set" and items.get("type") in ("object", "array"):
        problems.append(f"{where}: a set of non-scalars")
    if list_type == "map":
        keys = node.get("x-kubernetes-list-map-keys") or []
        if not keys or items.get("type") != "object":
            problems.append(f"{where}: a map list needs keys and object items")
        for key in keys:
            field = (items.get("properties") or {}).get(key)
            if field is None:
                problems.append(f"{where}: map key {key} is not a field")
            elif key not in (items.get("required") or []) and "default" not in field:
                problems.append(f"{where}: map key {key} is neither required nor defaulted")
