"""Python type hints -> structural OpenAPI v3 schemas, as CustomResourceDefinitions need them.

Entry point: ``model_schema(cls)`` for a ``Model`` class. The mapping:

- ``str``/``int``/``float``/``bool`` -> ``string``/``integer``/``number``/``boolean``;
  ``datetime``/``date``/``bytes``/``UUID`` -> ``string`` with ``date-time``/``date``/
  ``byte``/``uuid`` format.
- ``Literal[...]`` and ``enum.Enum`` classes -> ``enum`` (of strings or integers).
- ``list[T]``, ``tuple[T, ...]`` -> ``array``; ``set[T]``/``frozenset[T]`` -> an
  array with ``x-kubernetes-list-type: set``.
- ``dict[str, T]`` -> ``object`` with ``additionalProperties``; ``dict[str, Any]``
  and ``Any`` keep whatever they hold (``x-kubernetes-preserve-unknown-fields``).
- ``int | str`` -> ``x-kubernetes-int-or-string``.
- A ``Model`` (any msgspec ``Struct``) -> ``object`` with ``properties`` named as on
  the wire; a field without a default is ``required``; ``T | None = None`` is
  optional; any other default is the schema's ``default`` (and, set or not, the
  value a model reads; it is sent once set), unless it is a zero value (``""``,
  ``0``, ``False``, empty), which reads the same as a missing field in Go and so
  needs no server default (as kubebuilder writes it), or the field's own
  constraints reject it. (A ``default_factory`` that is a class, such as ``list``
  or a model, builds an empty value.) ``Annotated[T, Default(value)]`` states the
  schema default outright, zero values included.
- ``Annotated[T, Meta(...)]`` adds bounds, lengths, patterns, ``title``,
  ``example`` and ``extra_json_schema``; the markers of ``kubeforge.crd.markers``
  add the Kubernetes extensions.
- Descriptions: ``Meta(description=...)``, else the field's attribute docstring,
  else the docstring of the field's model class.

Anything a structural schema cannot say (other unions, recursive models, fixed
tuples, non-string dict keys) raises ``SchemaError`` naming the field.
"""

from __future__ import annotations

import datetime
import enum
import types
import typing
import uuid
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Union

import msgspec

from kubeforge.core.errors import SchemaError
from kubeforge.core.meta import Model, python_defaults
from kubeforge.crd._docs import class_description, field_descriptions
from kubeforge.crd.markers import (
    CEL,
    Default,
    EmbeddedResource,
    Format,
    ListType,
    MapType,
    PreserveUnknownFields,
    Required,
)

__all__ = ["SchemaError", "canonical", "model_schema", "walk"]

Schema = dict[str, Any]


_SCALARS: dict[type, Schema] = {
    str: {"type": "string"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bytes: {"type": "string", "format": "byte"},
    bytearray: {"type": "string", "format": "byte"},
    datetime.datetime: {"type": "string", "format": "date-time"},
    datetime.date: {"type": "string", "format": "date"},
    uuid.UUID: {"type": "string", "format": "uuid"},
}

# Fields every Model has for kubeforge's own bookkeeping, not part of any API.
_BASE_FIELDS = frozenset(f.name for f in msgspec.structs.fields(Model))

# msgspec.Meta constraint -> keyword, by the schema type it applies to
_LENGTHS = {
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}


def model_schema(cls: type[msgspec.Struct], *, skip: frozenset[str] = frozenset()) -> Schema:
    """The object schema of a model class; ``skip`` leaves out fields by attribute name."""
    return _Builder().struct(cls, skip)


def canonical(schema: Schema) -> Schema:
    """``schema`` with every node's keys, and every ``properties`` map, in alphabetical order.

    Keyword values that are data (``default``, ``enum``, ``example``, rules) keep
    their order; only the schema structure is sorted, so output is stable
    however the classes were written.
    """
    out: Schema = {}
    for key in sorted(schema):
        value = schema[key]
        if key == "properties":
            value = {name: canonical(value[name]) for name in sorted(value)}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            value = canonical(value)
        elif key in ("anyOf", "allOf", "oneOf"):
            value = [canonical(v) for v in value]
        out[key] = value
    return out


def _unwrap(tp: Any) -> tuple[Any, list[Any], bool]:
    """Strip ``Annotated`` and ``None``: (core type, annotations outer first, optional)."""
    annotations: list[Any] = []
    optional = False
    while True:
        if typing.get_origin(tp) is Annotated:
            annotations.extend(tp.__metadata__)
            tp = tp.__origin__
            continue
        members = _union_members(tp)
        if members is not None and type(None) in members:
            optional = True
            rest = [m for m in members if m is not type(None)]
            tp = rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007
            continue
        return tp, annotations, optional


def _union_members(tp: Any) -> tuple[Any, ...] | None:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is Union:
        return typing.get_args(tp)
    return None


class _Builder:
    def __init__(self) -> None:
        self.path: list[str] = []
        self.models: list[type] = []

    def where(self) -> str:
        return ".".join(self.path) or "<root>"

    def fail(self, message: str) -> SchemaError:
        return SchemaError(f"{self.where()}: {message}")

    def struct(self, cls: type[msgspec.Struct], skip: frozenset[str] = frozenset()) -> Schema:
        if cls in self.models:
            raise self.fail(
                f"{cls.__qualname__} contains itself; CRD schemas cannot be recursive "
                "(use dict[str, Any] for the nested part)"
            )
        self.models.append(cls)
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except NameError as exc:
            raise self.fail(f"cannot resolve the annotations of {cls.__qualname__}: {exc}") from exc
        docs = field_descriptions(cls)
        properties: Schema = {}
        required: list[str] = []
        for field in msgspec.structs.fields(cls):
            if field.name in skip or field.name in _BASE_FIELDS:
                continue
            self.path.append(field.encode_name)
            properties[field.encode_name], needed = self.field(
                cls, field, hints[field.name], docs.get(field.name)
            )
            self.path.pop()
            if needed:
                required.append(field.encode_name)
        self.models.pop()
        out: Schema = {"type": "object"}
        description = class_description(cls)
        if description:
            out["description"] = description
        if properties:
            out["properties"] = properties
        if required:
            out["required"] = sorted(required)
        return out

    def field(
        self, owner: type, field: msgspec.structs.FieldInfo, tp: Any, doc: str | None
    ) -> tuple[Schema, bool]:
        _, annotations, optional = _unwrap(tp)
        schema = self.node(tp)
        if doc and not any(isinstance(a, msgspec.Meta) and a.description for a in annotations):
            schema["description"] = doc
        marked = any(isinstance(a, Required) for a in annotations)
        required = field.required or marked
        if field.required and optional:
            schema["nullable"] = True
        if not required and "default" not in schema:
            default = _default(owner, field, tp)
            if default is not _NO_DEFAULT:
                schema["default"] = default
        return schema, required

    def node(self, tp: Any) -> Schema:
        core, annotations, _ = _unwrap(tp)
        schema = self.base(core)
        for annotation in reversed(annotations):  # inner first, so outer ones win
            self.apply(schema, annotation)
        return schema

    def base(self, tp: Any) -> Schema:
        if tp is Any or tp is object:
            return {"x-kubernetes-preserve-unknown-fields": True}
        if isinstance(tp, type) and tp in _SCALARS:
            return dict(_SCALARS[tp])
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self.enum([m.value for m in tp], tp.__qualname__)
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is Literal:
            return self.enum(list(args), repr(tp))
        members = _union_members(tp)
        if members is not None:
            return self.union(members)
        if origin in (list, tuple, set, frozenset):
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                raise self.fail(f"fixed-length {tp!r} has no schema; use tuple[T, ...] or list[T]")
            self.path.append("[]")
            items = self.node(args[0] if args else Any)
            self.path.pop()
            out: Schema = {"type": "array", "items": items}
            if origin in (set, frozenset):
                out["x-kubernetes-list-type"] = "set"
            return out
        if origin is dict:
            key, value = args or (str, Any)
            if _unwrap(key)[0] is not str:
                raise self.fail(f"{tp!r}: object keys must be str")
            if _unwrap(value)[0] in (Any, object) and not _unwrap(value)[1]:
                return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
            self.path.append("{}")
            extra = self.node(value)
            self.path.pop()
            return {"type": "object", "additionalProperties": extra}
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            return self.struct(tp)
        raise self.fail(f"{tp!r} has no CRD schema")

    def enum(self, values: list[Any], name: str) -> Schema:
        plain = [v.value if isinstance(v, enum.Enum) else v for v in values]
        if all(isinstance(v, str) for v in plain):
            return {"type": "string", "enum": plain}
        if all(isinstance(v, bool) for v in plain):
            return {"type": "boolean", "enum": plain}
        if all(isinstance(v, int) and not isinstance(v, bool) for v in plain):
            return {"type": "integer", "enum": plain}
        raise self.fail(f"{name}: enum values must all be strings, or all integers")

    def union(self, members: tuple[Any, ...]) -> Schema:
        cores = [_unwrap(m)[0] for m in members]
        if {int, str} <= set(cores) <= {int, str, float}:
            out: Schema = {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
            }
            for member in members:  # Meta on a member (a str pattern, an int bound) holds here
                for annotation in reversed(_unwrap(member)[1]):
                    self.apply(out, annotation, int_or_string=True)
            return out
        names = " | ".join(getattr(c, "__qualname__", repr(c)) for c in cores)
        raise self.fail(f"the union {names} has no structural schema (only int | str does)")

    def apply(self, schema: Schema, annotation: Any, *, int_or_string: bool = False) -> None:
        if isinstance(annotation, msgspec.Meta):
            _apply_meta(schema, annotation, int_or_string or "x-kubernetes-int-or-string" in schema)
        elif isinstance(annotation, ListType):
            if schema.get("type") != "array":
                raise self.fail("ListType marks a list")
            schema["x-kubernetes-list-type"] = annotation.kind
            if annotation.keys:
                self.check_map_keys(schema["items"], annotation.keys)
                schema["x-kubernetes-list-map-keys"] = list(annotation.keys)
        elif isinstance(annotation, MapType):
            if schema.get("type") != "object":
                raise self.fail("MapType marks an object")
            schema["x-kubernetes-map-type"] = annotation.kind
        elif isinstance(annotation, CEL):
            schema.setdefault("x-kubernetes-validations", []).append(annotation.to_schema())
        elif isinstance(annotation, Format):
            schema["format"] = annotation.name
        elif isinstance(annotation, PreserveUnknownFields):
            schema["x-kubernetes-preserve-unknown-fields"] = True
        elif isinstance(annotation, EmbeddedResource):
            schema["x-kubernetes-embedded-resource"] = True
        elif isinstance(annotation, Default):
            schema["default"] = msgspec.to_builtins(annotation.value)

    def check_map_keys(self, items: Schema, keys: tuple[str, ...]) -> None:
        properties = items.get("properties") or {}
        required = set(items.get("required") or ())
        for key in keys:
            if key not in properties:
                raise self.fail(f"list map key {key!r} is not a field of the items")
            if key not in required and "default" not in properties[key]:
                raise self.fail(f"list map key {key!r} must be required or have a default")


def _apply_meta(schema: Schema, meta: msgspec.Meta, int_or_string: bool) -> None:
    kind = schema.get("type")
    for bound, keyword, exclusive in (
        (meta.ge, "minimum", False),
        (meta.gt, "minimum", True),
        (meta.le, "maximum", False),
        (meta.lt, "maximum", True),
    ):
        if bound is not None:
            schema[keyword] = bound
            if exclusive:
                schema[f"exclusive{keyword.capitalize()}"] = True
    if meta.multiple_of is not None:
        schema["multipleOf"] = meta.multiple_of
    lengths = _LENGTHS.get("string" if int_or_string else str(kind))
    if lengths is not None:
        for value, keyword in zip((meta.min_length, meta.max_length), lengths, strict=True):
            if value is not None:
                schema[keyword] = value
    if meta.pattern is not None:
        schema["pattern"] = meta.pattern
    if meta.title is not None:
        schema["title"] = meta.title
    if meta.description is not None:
        schema["description"] = meta.description
    if meta.examples:
        schema["example"] = msgspec.to_builtins(meta.examples[0])
    if meta.extra_json_schema:
        schema.update(msgspec.to_builtins(meta.extra_json_schema))


_NO_DEFAULT = object()


def _default(owner: type, field: msgspec.structs.FieldInfo, tp: Any) -> Any:
    """The JSON default of a field, or ``_NO_DEFAULT`` when it has none for the server."""
    declared = python_defaults(owner).get(field.name)
    if declared is None or declared.factory is not msgspec.NODEFAULT:
        factory = declared.factory if declared is not None else field.default_factory
        if factory is msgspec.NODEFAULT or isinstance(factory, type):
            return _NO_DEFAULT  # None, or an empty value built to be filled in
        value = factory()
    else:
        value = declared.value
    if isinstance(value, set | frozenset):
        value = sorted(value)  # a set's order depends on the hash seed
    encoded = msgspec.json.decode(msgspec.json.encode(value))
    if not encoded:
        return _NO_DEFAULT  # a zero value: Go reads a missing field the same way
    try:
        msgspec.convert(value, tp)
    except msgspec.ValidationError:
        return _NO_DEFAULT  # the field's own constraints refuse it: a Python-side value only
    return encoded


def walk(schema: Schema) -> Iterator[Schema]:
    """Every node of ``schema``, parents first."""
    yield schema
    for child in (schema.get("properties") or {}).values():
        yield from walk(child)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from walk(schema[key])
