"""Structural defaults applied when a custom resource is read from storage.

kube-apiserver decodes every custom resource it reads from etcd through the CRD's
structural defaulting, with the schema of the version the object is stored at; an
object written before a ``default`` was added to the schema therefore shows the
default on get, list and watch, without ever being rewritten.

Entry point: ``ReadDefaulter.of(schema)`` is None when the schema declares no
default anywhere (reads then cost nothing); otherwise ``defaulter.apply(obj)`` returns
``obj`` itself when nothing is missing, or a defaulted copy (the stored object is
never changed).

The rules are structural defaulting's (``apiextensions-apiserver`` ``Default``): a
property with a non-null ``default`` is filled when absent, or null and not
``nullable``; defaulting goes on inside the filled value, object properties,
``additionalProperties`` and array items.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["ReadDefaulter"]


@dataclass
class _Node:
    """The part of a schema node that can lead to a default."""

    defaults: dict[str, tuple[Any, bool]] = field(default_factory=dict)
    """Property -> (default value, nullable)."""
    properties: dict[str, _Node] = field(default_factory=dict)
    declared: frozenset[str] = frozenset()
    """Every declared property (the others fall under ``additional``)."""
    additional: _Node | None = None
    items: _Node | None = None


def _node(schema: Any) -> _Node | None:
    if not isinstance(schema, dict):
        return None
    node = _Node(declared=frozenset(schema.get("properties") or ()))
    for key, child in (schema.get("properties") or {}).items():
        if not isinstance(child, dict):
            continue
        if child.get("default") is not None:
            node.defaults[key] = (child["default"], bool(child.get("nullable")))
        sub = _node(child)
        if sub is not None:
            node.properties[key] = sub
    node.additional = _node(schema.get("additionalProperties"))
    node.items = _node(schema.get("items"))
    if node.defaults or node.properties or node.additional or node.items:
        return node
    return None


def _missing(value: Any, node: _Node) -> bool:
    """Whether defaulting would change ``value`` (read-only walk)."""
    if isinstance(value, dict):
        for key, (_, nullable) in node.defaults.items():
            if key not in value or (value[key] is None and not nullable):
                return True
        for key, child in value.items():
            sub = node.properties.get(key) if key in node.declared else node.additional
            if sub is not None and _missing(child, sub):
                return True
    elif isinstance(value, list) and node.items is not None:
        return any(_missing(item, node.items) for item in value)
    return False


def _fill(value: Any, node: _Node) -> None:
    if isinstance(value, dict):
        for key, (default, nullable) in node.defaults.items():
            if key not in value or (value[key] is None and not nullable):
                value[key] = copy.deepcopy(default)
        for key, child in value.items():
            sub = node.properties.get(key) if key in node.declared else node.additional
            if sub is not None:
                _fill(child, sub)
    elif isinstance(value, list) and node.items is not None:
        for item in value:
            _fill(item, node.items)


class ReadDefaulter:
    """One version's defaults, prepared once per schema."""

    def __init__(self, root: _Node) -> None:
        self._root = root

    @classmethod
    def of(cls, schema: dict[str, Any] | None) -> ReadDefaulter | None:
        """None when ``schema`` has no default anywhere."""
        root = _node(schema)
        return cls(root) if root is not None else None

    def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` with the defaults it lacks; ``obj`` itself when it lacks none."""
        if not _missing(obj, self._root):
            return obj
        defaulted = clone(obj)
        _fill(defaulted, self._root)
        return defaulted
