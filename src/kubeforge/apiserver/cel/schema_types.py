"""A structural schema as CEL sees it: its type, and the size bounds the cost model uses.

``schema_decl(schema, is_root)`` mirrors Kubernetes' ``SchemaDeclType``
(k8s.io/apiserver/pkg/cel/common/schemas.go, v0.32.0): ``integer`` -> int, ``number``
-> double, strings -> string (or bytes / duration / timestamp by ``format``),
``x-kubernetes-int-or-string`` -> dyn, arrays -> list, objects with
``additionalProperties`` -> map(string, V), other objects -> an object type whose
fields are the escaped property names (``x-y`` is ``x__dash__y``; a name that cannot
be escaped is not visible). A resource root gains ``apiVersion``, ``kind`` and
``metadata`` (``name`` and ``generateName`` only). Each ``Decl`` carries
``max_elements`` (``maxLength``/``maxItems``/``maxProperties``, or the bound a 3 MiB
request implies) and ``min_size`` (the smallest JSON encoding), as Kubernetes
estimates them.

``to_cel(value, decl)`` turns stored JSON into CEL values by the same rules.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.cel.lexer import RESERVED
from kubeforge.apiserver.cel.lib_time import parse_duration, parse_timestamp
from kubeforge.apiserver.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DURATION,
    DYN,
    INT,
    STRING,
    TIMESTAMP,
    Type,
    list_of,
    map_of,
    struct,
)  # fmt: skip
from kubeforge.apiserver.cel.values import EvalError, MapList, SetList

__all__ = ["MAX_REQUEST_BYTES", "Decl", "escape", "max_elements_factor", "schema_decl", "to_cel"]

# k8s.io/apiserver/pkg/apis/cel: MaxRequestSizeBytes (3 MiB).
MAX_REQUEST_BYTES = 3 * 1024 * 1024
_MIN_STRING, _MIN_DURATION, _DATE_SIZE, _MIN_DATETIME = 2, 3, 12, 21
_MAX_DURATION, _MAX_DATETIME = 32, 32
# Property names CEL reserves: escaped as __name__ (true, false, null, in, and the rest).
_RESERVED = frozenset({"true", "false", "null", "in"}) | RESERVED


@dataclass(eq=False)
class Decl:
    type: Type
    max_elements: int = 0
    min_size: int = 1
    fields: dict[str, Decl] = field(default_factory=dict)
    elem: Decl | None = None
    schema: dict[str, Any] = field(default_factory=dict)
    escaped: bool = True  # CRD property names are escaped; admission's own types are not


def escape(name: str) -> str | None:
    """A property name as a CEL field name (Kubernetes' ``Escape``), or None if it has none."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    if not re.fullmatch(r"[a-zA-Z0-9_./-]+", name):
        return None
    replacements = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
    return re.sub(r"__|[-./]", lambda m: replacements[m.group()], name)


def _string_decl(schema: dict[str, Any]) -> Decl:
    fmt = schema.get("format")
    if fmt == "byte":
        limit = schema.get("maxLength")
        size = max(0, limit) if isinstance(limit, int) else MAX_REQUEST_BYTES - 2
        return Decl(BYTES, size, _MIN_STRING, schema=schema)
    if fmt == "duration":
        return Decl(DURATION, _MAX_DURATION, _MIN_DURATION, schema=schema)
    if fmt == "date":
        return Decl(TIMESTAMP, _DATE_SIZE, _DATE_SIZE, schema=schema)
    if fmt == "date-time":
        return Decl(TIMESTAMP, _MAX_DATETIME, _MIN_DATETIME, schema=schema)
    limit = schema.get("maxLength")
    if isinstance(limit, int):
        size = max(0, limit) * 4
    elif schema.get("enum"):
        size = max((len(e) for e in schema["enum"] if isinstance(e, str)), default=0)
    else:
        size = MAX_REQUEST_BYTES - 2
    return Decl(STRING, size, _MIN_STRING, schema=schema)


def with_type_and_object_meta(schema: dict[str, Any]) -> dict[str, Any]:
    properties = dict(schema.get("properties") or {})
    properties["kind"] = {"type": "string"}
    properties["apiVersion"] = {"type": "string"}
    meta = {"name": {"type": "string"}, "generateName": {"type": "string"}}
    properties["metadata"] = {"type": "object", "properties": meta}
    return {**schema, "type": schema.get("type") or "object", "properties": properties}


def schema_decl(
    schema: dict[str, Any], is_root: bool = False, name: str = "object", escaped: bool = True
) -> Decl | None:
    if schema.get("x-kubernetes-int-or-string"):
        return Decl(DYN, MAX_REQUEST_BYTES - 2, 1, schema=schema)
    if is_root:
        schema = with_type_and_object_meta(schema)
    kind = schema.get("type")
    if kind == "array":
        return _array_decl(schema, name, escaped)
    if kind == "object":
        return _object_decl(schema, name, escaped)
    if kind == "string":
        return _string_decl(schema)
    simple = {"boolean": (BOOL, 4), "number": (DOUBLE, 1), "integer": (INT, 1)}
    if kind in simple:
        t, size = simple[kind]
        return Decl(t, 0, size, schema=schema)
    return None


def _array_decl(schema: dict[str, Any], name: str, escaped: bool) -> Decl | None:
    items = schema.get("items")
    if not isinstance(items, dict):
        return None
    embedded = bool(items.get("x-kubernetes-embedded-resource"))
    elem = schema_decl(items, embedded, f"{name}.@idx", escaped)
    if elem is None:
        return None
    limit = schema.get("maxItems")
    count = (
        max(0, limit) if isinstance(limit, int) else (MAX_REQUEST_BYTES - 2) // (elem.min_size + 1)
    )
    return Decl(list_of(elem.type), count, 2, elem=elem, schema=schema)


def _object_decl(schema: dict[str, Any], name: str, escaped: bool) -> Decl | None:
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        embedded = bool(extra.get("x-kubernetes-embedded-resource"))
        values = schema_decl(extra, embedded, f"{name}.@elem", escaped)
        if values is None:
            return None
        limit = schema.get("maxProperties")
        count = (
            max(0, limit)
            if isinstance(limit, int)
            else (MAX_REQUEST_BYTES - 2) // (values.min_size + 6)
        )
        return Decl(map_of(STRING, values.type), count, 2, elem=values, schema=schema)
    fields: dict[str, Decl] = {}
    required = set(schema.get("required") or ())
    min_size = 2
    for prop, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        field_name = escape(prop) if escaped else prop
        embedded = bool(sub.get("x-kubernetes-embedded-resource"))
        decl = schema_decl(sub, embedded, f"{name}.{prop}", escaped)
        if decl is None:
            continue
        if field_name is not None:
            fields[field_name] = decl
        if prop in required and "default" not in sub:
            min_size += len(prop) + decl.min_size + 4
    object_type = struct(name, {k: d.type for k, d in fields.items()})
    return Decl(object_type, 0, min_size, fields=fields, schema=schema, escaped=escaped)


def max_elements_factor(schema: dict[str, Any]) -> int | None:
    """How often a child occurs per parent (Kubernetes' extractMaxElements); None: unbounded."""
    if schema.get("type") == "object" and isinstance(schema.get("additionalProperties"), dict):
        limit = schema.get("maxProperties")
        return max(0, limit) if isinstance(limit, int) else None
    if schema.get("type") == "array":
        limit = schema.get("maxItems")
        return max(0, limit) if isinstance(limit, int) else None
    return 1


def to_cel(value: Any, decl: Decl | None) -> Any:
    """Stored JSON as the CEL value its schema makes it (numbers to double, dates to timestamps)."""
    if decl is None or value is None:
        return value
    kind = decl.type.kind
    if kind == "double" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "list" and isinstance(value, list):
        items = [to_cel(v, decl.elem) for v in value]
        list_type = decl.schema.get("x-kubernetes-list-type")
        if list_type == "set":
            return SetList(items)
        if list_type == "map":
            keys = tuple(decl.schema.get("x-kubernetes-list-map-keys") or ())
            raw = [tuple(v.get(k) for k in keys) if isinstance(v, dict) else (v,) for v in value]
            return MapList(items, keys, raw)
        return items
    if kind == "map" and isinstance(value, dict):
        return {k: to_cel(v, decl.elem) for k, v in value.items()}
    if kind == "struct" and isinstance(value, dict):
        return _object_to_cel(value, decl)
    if isinstance(value, str) and kind in ("timestamp", "duration", "bytes"):
        return _string_to_cel(value, kind)
    return value


def _object_to_cel(value: dict[str, Any], decl: Decl) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = escape(key) if decl.escaped else key
        if name is None:
            continue
        out[name] = to_cel(item, decl.fields.get(name))
    return out


def _string_to_cel(value: str, kind: str) -> Any:
    try:
        if kind == "timestamp":
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                return parse_timestamp(value + "T00:00:00Z")
            return parse_timestamp(value)
        if kind == "duration":
            return parse_duration(value)
        return base64.b64decode(value, validate=True)
    except (EvalError, ValueError):
        return value
