"""The slow path of ``kubeforge.core.meta.decode``: a plain JSON value made to fit a model type.

Entry point: ``repair(value, type_)``, which changes ``value`` (dicts and lists, as
``json.loads`` gives them) in place, in one walk compiled once per type:

- keys no model of ``type_`` declares move into that model's ``unknown_fields_``
  (wire key ``UNKNOWN_FIELDS_KEY``), so that they are kept and sent back;
- a required field that is missing or ``null`` gets Go's zero value (``""``, ``0``,
  ``False``, ``[]``, ``{}``, an empty object), as ``encoding/json`` gives a Go
  client. A Go server writes such values itself (a nil slice as ``null``, every
  field of a watch BOOKMARK's empty object), so this is what they mean.

A value that still does not fit is left for the typed decode to report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import msgspec.inspect as mi

__all__ = ["UNKNOWN_FIELDS_KEY", "repair", "zero_object"]

UNKNOWN_FIELDS_KEY = "x-kubeforge-unknown-fields"

T = TypeVar("T")
_Fix = Callable[[Any], None]
_plans: dict[Any, _Fix | None] = {}
_NO_ZERO = object()


def repair(value: Any, type_: Any) -> None:
    """Make the plain ``value`` decodable as ``type_`` (see the module docstring)."""
    try:
        plan = _plans[type_]
    except KeyError:
        plan = _plans[type_] = _compile(mi.type_info(type_), {})
    except TypeError:  # an unhashable type expression: compile without caching
        plan = _compile(mi.type_info(type_), {})
    if plan is not None:
        plan(value)


def zero_object(cls: type[T]) -> T:
    """An instance of the model ``cls`` whose required fields hold Go's zero values, built
    without validation: for a watch BOOKMARK of a kind whose models constrain those
    fields (``Meta(min_length=1)``), where only ``metadata`` means anything."""
    info = mi.type_info(cls)
    if not isinstance(info, mi.StructType):
        raise TypeError(f"{cls!r} is not a model")
    return cast(T, _zero_struct(info))


def _zero_struct(t: mi.StructType) -> Any:
    kwargs: dict[str, Any] = {}
    for f in t.fields:
        if f.required:
            inner = f.type.type if isinstance(f.type, mi.Metadata) else f.type
            if isinstance(inner, mi.StructType):
                kwargs[f.name] = _zero_struct(inner)
            else:
                zero = _zero(inner)
                kwargs[f.name] = None if zero is _NO_ZERO else zero
    return t.cls(**kwargs)


def _zero(t: mi.Type) -> Any:
    """Go's zero value of ``t`` as JSON, or ``_NO_ZERO`` when it has none that would fit."""
    if isinstance(t, mi.Metadata):
        return _zero(t.type)
    zeros: dict[type, Any] = {mi.StrType: "", mi.IntType: 0, mi.FloatType: 0.0, mi.BoolType: False}
    for kind, zero in zeros.items():
        if isinstance(t, kind):
            return zero
    if isinstance(t, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        return []
    if isinstance(t, mi.DictType | mi.StructType):
        return {}
    if isinstance(t, mi.UnionType):
        if any(isinstance(m, mi.NoneType) for m in t.types):
            return None
        return _zero(t.types[0])
    if isinstance(t, mi.AnyType):
        return None
    return _NO_ZERO


def _compile(t: mi.Type, memo: dict[int, list[_Fix | None]]) -> _Fix | None:
    """A function that repairs a plain value of type ``t``; ``None`` when no model can
    occur inside ``t`` (most leaves), so the walk skips those subtrees."""
    if isinstance(t, mi.Metadata):
        return _compile(t.type, memo)
    if isinstance(t, mi.StructType):
        return _compile_struct(t, memo)
    if isinstance(t, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        item = _compile(t.item_type, memo)
        return None if item is None else _each_item(item)
    if isinstance(t, mi.DictType):
        item = _compile(t.value_type, memo)
        return None if item is None else _each_value(item)
    if isinstance(t, mi.UnionType):
        return _compile_union(t, memo)
    return None


def _each_item(fix: _Fix) -> _Fix:
    def fix_items(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                fix(item)

    return fix_items


def _each_value(fix: _Fix) -> _Fix:
    def fix_values(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                fix(item)

    return fix_values


def _compile_union(t: mi.UnionType, memo: dict[int, list[_Fix | None]]) -> _Fix | None:
    objects = [m for m in t.types if isinstance(m, mi.StructType | mi.DictType)]
    arrays = [m for m in t.types if isinstance(m, mi.ListType | mi.VarTupleType)]
    array_fix = _compile(arrays[0], memo) if arrays else None
    object_fix: _Fix | None = None
    tagged = [m for m in objects if isinstance(m, mi.StructType) and m.tag_field]
    if len(tagged) > 1:  # a tagged union: the tag names the struct
        field = tagged[0].tag_field
        by_tag = {m.tag: _compile(m, memo) for m in tagged}

        def fix_tagged(value: Any) -> None:
            fix = by_tag.get(value.get(field))
            if fix is not None:
                fix(value)

        object_fix = fix_tagged
    elif objects:
        object_fix = _compile(objects[0], memo)
    if object_fix is None and array_fix is None:
        return None

    def fix_union(value: Any) -> None:
        if isinstance(value, dict):
            if object_fix is not None:
                object_fix(value)
        elif isinstance(value, list) and array_fix is not None:
            array_fix(value)

    return fix_union


def _compile_struct(t: mi.StructType, memo: dict[int, list[_Fix | None]]) -> _Fix | None:
    cell = memo.get(id(t))
    if cell is not None:  # a recursive type (JSONSchemaProps): resolve when called
        found = cell

        def fix_recursive(value: Any) -> None:
            fix = found[0]
            if fix is not None:
                fix(value)

        return fix_recursive
    cell = memo[id(t)] = [None]
    names = frozenset(f.encode_name for f in t.fields)
    keeps = UNKNOWN_FIELDS_KEY in names
    children = {f.encode_name: fix for f in t.fields if (fix := _compile(f.type, memo)) is not None}
    zeros = {
        f.encode_name: zero
        for f in t.fields
        if f.required and (zero := _zero(f.type)) is not _NO_ZERO
    }
    if not keeps and not children and not zeros:
        return None

    def fix_struct(value: Any) -> None:
        if not isinstance(value, dict):
            return
        for key, zero in zeros.items():
            if value.get(key) is None:
                value[key] = type(zero)() if isinstance(zero, list | dict) else zero
        unknown: dict[str, Any] | None = None
        for key, item in value.items():
            child = children.get(key)
            if child is not None:
                child(item)
            elif keeps and key not in names:
                if unknown is None:
                    unknown = {}
                unknown[key] = item
        if unknown:
            for key in unknown:
                del value[key]
            # Keys parked earlier (a packed copy, say) stay; new ones join them.
            parked = value.get(UNKNOWN_FIELDS_KEY)
            value[UNKNOWN_FIELDS_KEY] = (
                {**parked, **unknown} if isinstance(parked, dict) else unknown
            )

    cell[0] = fix_struct
    return fix_struct
