"""JSON values checked against the Go types they decode into, as the real server's decoder
checks them before anything else looks at a body.

Entry point: ``check_fields(kind, version, body, fields)``, with ``fields`` mapping a
dotted path to the Go struct holding it and the field's Go type. A value of the wrong
JSON type is the real 400: "{Kind} in version "{version}" cannot be handled as a
{Kind}: json: cannot unmarshal {JSON type} into Go struct field {Struct}.{path} of
type {Go type}". ``null`` is always accepted (Go decodes it to the zero value) and
unknown fields are left to field validation.

``OBJECT_META`` covers ``metadata`` for every kind: a strategy may then rely on
``labels`` being a map of strings and ``finalizers`` a list of them.

>>> check_fields("Namespace", "v1", {"metadata": {"labels": {"a": "b"}}}, OBJECT_META)
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.smd.strict import json_kind

__all__ = ["OBJECT_META", "Field", "check_fields"]

Field = tuple[str, str]
"""``(Go struct holding the field, the field's Go type)``."""

_STRINGS, _STRING_MAP = "[]string", "map[string]string"
OBJECT_META: dict[str, Field] = {
    "metadata": ("", "v1.ObjectMeta"),
    **{
        f"metadata.{name}": ("ObjectMeta", "string")
        for name in ("name", "generateName", "namespace", "uid", "resourceVersion", "selfLink")
    },
    "metadata.generation": ("ObjectMeta", "int64"),
    "metadata.labels": ("ObjectMeta", _STRING_MAP),
    "metadata.annotations": ("ObjectMeta", _STRING_MAP),
    "metadata.finalizers": ("ObjectMeta", _STRINGS),
    "metadata.ownerReferences": ("ObjectMeta", "[]v1.OwnerReference"),
    "metadata.managedFields": ("ObjectMeta", "[]v1.ManagedFieldsEntry"),
}


def check_fields(kind: str, version: str, body: dict[str, Any], fields: dict[str, Field]) -> None:
    """Raise the real 400 for the first field of ``body`` whose JSON type is wrong."""
    if _all_fit(body, _tree(fields)):
        return  # the usual case, found by visiting only the fields the body has
    for path, (struct, go_type) in fields.items():
        value = _lookup(body, path)
        if value is None or _fits(value, go_type):
            continue
        where = f"{struct}.{path}" if struct else f"{kind}.{path}"
        message = (
            f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot '
            f"unmarshal {json_kind(value)} into Go struct field {where} of type {go_type}"
        )
        raise failures.bad_request(message)


# ``fields`` as a tree: key -> (the field's Go type, or "" for a mere parent; its children).
_Tree = dict[str, tuple[str, "_Tree"]]
_trees: dict[int, tuple[dict[str, Field], _Tree]] = {}


def _tree(fields: dict[str, Field]) -> _Tree:
    known = _trees.get(id(fields))
    if known is not None and known[0] is fields:
        return known[1]
    tree: _Tree = {}
    for path, (_, go_type) in fields.items():
        node = tree
        *parents, last = path.split(".")
        for part in parents:
            node = node.setdefault(part, ("", {}))[1]
        node[last] = (go_type, node.get(last, ("", {}))[1])
    _trees[id(fields)] = (fields, tree)
    return tree


def _all_fit(value: dict[str, Any], tree: _Tree) -> bool:
    """Whether every field of ``tree`` that ``value`` has is of its Go type (the order
    of the checks does not matter here: any misfit sends the caller the ordered way)."""
    present: list[tuple[Any, tuple[str, _Tree] | None]]
    if len(tree) <= len(value):
        present = [(value.get(key), node) for key, node in tree.items()]
    else:
        present = [(child, tree.get(key)) for key, child in value.items()]
    for child, node in present:
        if node is None or child is None:
            continue
        go_type, below = node
        if go_type and not _fits(child, go_type):
            return False
        if below and isinstance(child, dict) and not _all_fit(child, below):
            return False
    return True


def _lookup(body: dict[str, Any], path: str) -> Any:
    value: Any = body
    for part in path.split("."):
        if not isinstance(value, dict):
            return None  # the parent is refused first, or absent
        value = value.get(part)
    return value


def _fits(value: Any, go_type: str) -> bool:
    if go_type == "string":
        return isinstance(value, str)
    if go_type in ("int64", "int32"):
        return isinstance(value, int) and not isinstance(value, bool)
    if go_type == _STRINGS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if go_type == _STRING_MAP:
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if go_type.startswith("map["):  # map[string]v1.ExtraValue: lists of strings
        return isinstance(value, dict) and all(_fits(v, _STRINGS) for v in value.values())
    if go_type.startswith("[]"):
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    return isinstance(value, dict)  # a struct
