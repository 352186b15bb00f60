"""Typed operations on JSON objects: field sets, comparison, apply-merge and removal.

These follow structured-merge-diff, the library behind the real server's
managedFields, as clients observe it:

* ``to_field_set(value, atom)`` -- the fields an applied configuration sets: every
  scalar, every list item, atomic nodes as one leaf, and map keys that are not
  declared struct fields (or whose value is empty or null).
* ``compare(old, new, atom)`` -- ``Comparison`` of added, modified and removed paths;
  a map or list item that appears or disappears is itself added or removed.
* ``merge(live, config, atom)`` -- server-side apply's merge: the configuration wins,
  maps merge key by key, keyed and set lists merge item by item (live-only items keep
  their place, shared items follow the configuration's order), atomic nodes are replaced.
* ``remove_items(value, fields, atom)`` -- drop the paths of ``fields``; a map or list
  emptied by the removal disappears.

``TypedError`` reports a value that does not fit its type (an undeclared field, a
list item without its keys, duplicate keys in a configuration). Nothing here mutates
its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.smd.fieldpath import (
    FieldSet,
    Path,
    PathElement,
    field_element,
    key_element,
    path_string,
    value_element,
)
from kubeforge.apiserver.smd.schema import ANY, Atom
from kubeforge.apiserver.smd.value import json_equal

__all__ = [
    "Comparison",
    "TypedError",
    "compare",
    "merge",
    "remove_items",
    "to_field_set",
]

_MISSING: Any = object()


class TypedError(ValueError):
    """A value that does not match its schema (worded like structured-merge-diff)."""


@dataclass
class Comparison:
    added: FieldSet = field(default_factory=FieldSet)
    modified: FieldSet = field(default_factory=FieldSet)
    removed: FieldSet = field(default_factory=FieldSet)

    def changed(self) -> FieldSet:
        return self.added.union(self.modified)

    def empty(self) -> bool:
        return self.added.empty() and self.modified.empty() and self.removed.empty()

    def excluding(self, ignored: FieldSet) -> Comparison:
        return Comparison(
            self.added.recursive_difference(ignored),
            self.modified.recursive_difference(ignored),
            self.removed.recursive_difference(ignored),
        )


def _where(path: Path) -> str:
    return path_string(path) or "."


def item_element(atom: Atom, item: Any, path: Path, index: int = 0) -> PathElement:
    """The path element of one item of an associative list (``atom`` is the list)."""
    if atom.list_type == "set":
        if isinstance(item, dict | list):
            raise TypedError(
                f"{_where(path)}: element {index}: associative list without keys has an "
                "element that's a map type"
            )
        return value_element(item)
    if not isinstance(item, dict):
        raise TypedError(
            f"{_where(path)}: element {index}: associative list with keys may not have "
            "non-map elements"
        )
    keys: dict[str, Any] = {}
    for name in atom.keys:
        if name in item and item[name] is not None:
            keys[name] = item[name]
        elif name in atom.key_defaults:
            keys[name] = atom.key_defaults[name]
        else:
            raise TypedError(
                f"{_where(path)}: element {index}: associative list with keys has an element "
                f'that omits key field "{name}" (and doesn\'t have default value)'
            )
    return key_element(keys)


def _items(
    atom: Atom, items: Any, path: Path, *, strict: bool
) -> tuple[list[tuple[PathElement, Any]], dict[PathElement, Any]]:
    """A list's items with their path elements, in order, and the first item of each."""
    order: list[tuple[PathElement, Any]] = []
    first: dict[PathElement, Any] = {}
    for index, item in enumerate(items if isinstance(items, list) else []):
        try:
            element = item_element(atom, item, path, index)
        except TypedError:
            if strict:
                raise
            continue  # a live object that does not fit the schema: skip what cannot be keyed
        if element in first and strict:
            raise TypedError(f"{_where(path)}: duplicate entries for key {path_string((element,))}")
        first.setdefault(element, item)
        order.append((element, item))
    return order, first


def _child_atom(atom: Atom, key: str, path: Path, *, strict: bool) -> Atom:
    child = atom.child(key)
    if child is None:
        if strict:
            raise TypedError(
                f"{path_string((*path, field_element(key)))}: field not declared in schema"
            )
        return ANY
    return child


# --- field sets -----------------------------------------------------------------------


def to_field_set(value: Any, atom: Atom) -> FieldSet:
    """The set of paths ``value`` sets; raises ``TypedError`` if it does not fit ``atom``."""
    result = FieldSet()
    _fields(value, atom, (), result)
    return result


def _fields(value: Any, atom: Atom, path: Path, out: FieldSet) -> None:
    if atom.is_leaf(value) or value is None:
        out.insert(path)
        return
    kind = atom.resolve(value)
    if kind == "map":
        if not isinstance(value, dict):
            raise TypedError(f"{_where(path)}: expected map, got {_type_name(value)}")
        for key, child in value.items():
            child_path = (*path, field_element(key))
            child_atom = _child_atom(atom, key, path, strict=True)
            _fields(child, child_atom, child_path, out)
            empty = child is None or (isinstance(child, dict) and not child)
            if empty or not atom.declares(key):
                out.insert(child_path)
        return
    if not isinstance(value, list):
        raise TypedError(f"{_where(path)}: expected list, got {_type_name(value)}")
    item_atom = atom.element or ANY
    order, _ = _items(atom, value, path, strict=True)
    for element, item in order:
        item_path = (*path, element)
        _fields(item, item_atom, item_path, out)
        out.insert(item_path)


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    return "scalar"


# --- comparison -----------------------------------------------------------------------


def compare(old: Any, new: Any, atom: Atom) -> Comparison:
    """What changed from ``old`` to ``new`` (lenient: a shape mismatch is a modification)."""
    result = Comparison()
    _compare(old, new, atom, (), result)
    return result


def _empty(value: Any) -> bool:
    return value is _MISSING or value is None or (isinstance(value, dict | list) and not value)


def _compare(lhs: Any, rhs: Any, atom: Atom, path: Path, out: Comparison) -> None:
    if lhs is rhs or (type(lhs) is type(rhs) and lhs == rhs):
        return  # unchanged subtree (the common case: most of an update is untouched)
    if lhs is _MISSING:
        _one_side(rhs, atom, path, out.added)
        return
    if rhs is _MISSING:
        _one_side(lhs, atom, path, out.removed)
        return
    sample = rhs
    kind = atom.resolve(sample)
    leaf = atom.is_leaf(sample) or (_empty(lhs) and _empty(rhs))
    if not leaf and lhs is not _MISSING and rhs is not _MISSING:
        same_shape = type(lhs) is type(rhs) or lhs is None or rhs is None
        leaf = not same_shape
    if leaf:
        if lhs is _MISSING:
            out.added.insert(path)
        elif rhs is _MISSING:
            out.removed.insert(path)
        elif not json_equal(lhs, rhs):
            out.modified.insert(path)
        return
    if kind == "map":
        left = lhs if isinstance(lhs, dict) else {}
        right = rhs if isinstance(rhs, dict) else {}
        for key in {**left, **right}:
            child_atom = _child_atom(atom, key, path, strict=False)
            _compare(
                left.get(key, _MISSING),
                right.get(key, _MISSING),
                child_atom,
                (*path, field_element(key)),
                out,
            )
    else:
        item_atom = atom.element or ANY
        left_order, left_items = _items(atom, lhs, path, strict=False)
        right_order, right_items = _items(atom, rhs, path, strict=False)
        for element in dict.fromkeys([e for e, _ in (*left_order, *right_order)]):
            _compare(
                left_items.get(element, _MISSING),
                right_items.get(element, _MISSING),
                item_atom,
                (*path, element),
                out,
            )
    if path:
        if lhs is _MISSING:
            out.added.insert(path)
        elif rhs is _MISSING:
            out.removed.insert(path)


def _one_side(value: Any, atom: Atom, path: Path, out: FieldSet) -> None:
    """Every path of a subtree that only one side has (all added, or all removed)."""
    out.insert_tree(path, _subtree(value, atom))


def _subtree(value: Any, atom: Atom) -> FieldSet | None:
    """Every path below ``value`` (None: none), built node by node rather than inserted
    path by path: a create's object is one such subtree, hundreds of paths deep."""
    if value is None or atom.is_leaf(value) or not value:
        return None
    node = FieldSet()
    members, children = node.members, node.children
    # Scalars and empty values have nothing below them, whatever their type says.
    if isinstance(value, dict):
        for key, child in value.items():
            element = ("f", key)  # field_element's, without a call per key
            members.add(element)
            if child and isinstance(child, dict | list):
                below = _subtree(child, atom.child(key) or ANY)
                if below is not None:
                    children[element] = below
    elif isinstance(value, list):
        item_atom = atom.element or ANY
        for element, item in _items(atom, value, (), strict=False)[0]:
            if element not in members:  # a repeated key: its first item only
                members.add(element)
                if item and isinstance(item, dict | list):
                    below = _subtree(item, item_atom)
                    if below is not None:
                        children[element] = below
    return node if members else None


# --- apply merge ----------------------------------------------------------------------


def merge(live: Any, config: Any, atom: Atom) -> Any:
    """``config`` merged into ``live`` (server-side apply's merge)."""
    return _merge(live, config, atom, ())


def _merge(lhs: Any, rhs: Any, atom: Atom, path: Path) -> Any:
    if rhs is _MISSING:
        return lhs
    if lhs is _MISSING or lhs is None or rhs is None or atom.is_leaf(rhs):
        return rhs
    kind = atom.resolve(rhs)
    if kind == "map":
        if not isinstance(lhs, dict) or not isinstance(rhs, dict):
            return rhs
        result = dict(lhs)
        for key, value in rhs.items():
            child_atom = _child_atom(atom, key, path, strict=False)
            result[key] = _merge(
                lhs.get(key, _MISSING), value, child_atom, (*path, field_element(key))
            )
        return result
    if not isinstance(lhs, list) or not isinstance(rhs, list):
        return rhs
    return _merge_list(lhs, rhs, atom, path)


def _merge_list(lhs: list[Any], rhs: list[Any], atom: Atom, path: Path) -> list[Any]:
    """Live-only items keep their place; shared and new items follow ``rhs``'s order."""
    item_atom = atom.element or ANY
    left, left_items = _items(atom, lhs, path, strict=False)
    right, right_items = _items(atom, rhs, path, strict=True)
    shared = [e for e, _ in right if e in left_items]
    next_shared = shared.pop(0) if shared else None
    taken: set[PathElement] = set()
    out: list[Any] = []
    li = ri = 0
    while li < len(left) or ri < len(right):
        if li < len(left) and ri < len(right):
            element = left[li][0]
            if element == right[ri][0]:
                taken.add(element)
                out.append(_merge_item(left_items, right_items, element, item_atom, path))
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if element in right_items and next_shared is not None and next_shared != element:
                li += 1  # a shared item, but not the one the configuration wants next
                continue
        if li < len(left):
            element, item = left[li]
            if element not in right_items:
                out.append(item)
                li += 1
                continue
            if element in taken:
                li += 1
                continue
        if ri < len(right):
            element = right[ri][0]
            taken.add(element)
            out.append(_merge_item(left_items, right_items, element, item_atom, path))
            ri += 1
            if next_shared == element:
                next_shared = shared.pop(0) if shared else None
    return out


def _merge_item(
    left: dict[PathElement, Any],
    right: dict[PathElement, Any],
    element: PathElement,
    atom: Atom,
    path: Path,
) -> Any:
    return _merge(left.get(element, _MISSING), right[element], atom, (*path, element))


# --- removal --------------------------------------------------------------------------


def remove_items(value: Any, fields: FieldSet, atom: Atom) -> Any:
    """``value`` without the paths in ``fields`` (and what lies below them)."""
    result = _remove(value, fields, atom, ())
    return value if result is _MISSING else result


def _remove(value: Any, fields: FieldSet, atom: Atom, path: Path) -> Any:
    if atom.is_leaf(value) or not isinstance(value, dict | list) or not value:
        return value
    if isinstance(value, dict):
        result: dict[str, Any] = {}
        for key, child in value.items():
            element = field_element(key)
            if element in fields.members:
                continue
            below = fields.children.get(element)
            if below is not None:
                child = _remove(
                    child, below, _child_atom(atom, key, path, strict=False), (*path, element)
                )
                if child is _MISSING:
                    continue
            result[key] = child
        return result if result else _MISSING
    item_atom = atom.element or ANY
    items: list[Any] = []
    for item in value:
        try:
            element = item_element(atom, item, path)
        except TypedError:
            items.append(item)
            continue
        if element in fields.members:
            continue
        below = fields.children.get(element)
        if below is not None:
            item = _remove(item, below, item_atom, (*path, element))
            if item is _MISSING:
                continue
        items.append(item)
    return items if items else _MISSING
