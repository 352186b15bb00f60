"""CEL types as the checker sees them, printed as cel-go prints them.

``Type`` is immutable and compared by kind, name and parameters: ``INT``,
``list_of(STRING)``, ``map_of(STRING, DYN)``, ``optional_of(T)``, ``type_of(T)``,
opaque library types (``net.IP``), object types (``kubernetes.Quantity``, or a CRD
schema's ``selfType123.spec``; their fields live in ``Type.fields``), and type
parameters (``A``) in overload declarations. ``str(t)`` is cel-go's ``FormatCELType``
(``list(int)``, ``map(string, dyn)``, ``optional_type(string)``, ``null``).

``parse_type("map(K, list(V))")`` reads the small notation the declaration tables use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BOOL",
    "BYTES",
    "DOUBLE",
    "DURATION",
    "DYN",
    "ERROR",
    "INT",
    "NULL",
    "STRING",
    "TIMESTAMP",
    "UINT",
    "Type",
    "list_of",
    "map_of",
    "optional_of",
    "parse_type",
    "type_of",
]

# Kinds whose values are one scalar (cel-go's isScalar: size estimate 1).
SCALAR_KINDS = frozenset({"bool", "double", "duration", "int", "timestamp", "uint"})


@dataclass(frozen=True)
class Type:
    kind: str
    name: str
    params: tuple[Type, ...] = ()
    # Object types only: field name -> type. Not part of identity (cel-go compares names).
    fields: dict[str, Type] | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        if self.kind in ("param", "dyn", "null"):
            return self.name
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(str(p) for p in self.params)})"

    @property
    def elem(self) -> Type:
        return self.params[0]

    def is_dyn_or_error(self) -> bool:
        return self.kind in ("dyn", "error")


def _simple(kind: str, name: str | None = None) -> Type:
    return Type(kind, name or kind)


BOOL = _simple("bool")
INT = _simple("int")
UINT = _simple("uint")
DOUBLE = _simple("double")
STRING = _simple("string")
BYTES = _simple("bytes")
NULL = _simple("null")
DYN = _simple("dyn")
ERROR = _simple("error", "!error!")
DURATION = _simple("duration", "google.protobuf.Duration")
TIMESTAMP = _simple("timestamp", "google.protobuf.Timestamp")
TYPE = _simple("type")


def list_of(elem: Type) -> Type:
    return Type("list", "list", (elem,))


def map_of(key: Type, value: Type) -> Type:
    return Type("map", "map", (key, value))


def optional_of(value: Type) -> Type:
    return Type("opaque", "optional_type", (value,))


def type_of(value: Type) -> Type:
    return Type("type", "type", (value,))


def param(name: str) -> Type:
    return Type("param", name)


def opaque(name: str) -> Type:
    return Type("opaque", name)


def struct(name: str, fields: dict[str, Type] | None = None) -> Type:
    return Type("struct", name, (), fields or {})


def is_optional(t: Type) -> bool:
    return t.kind == "opaque" and t.name == "optional_type"


def format_type(t: Type) -> str:
    """cel-go's FormatCELType: durations and timestamps print by their short names."""
    if t.kind == "duration":
        return "duration"
    if t.kind == "timestamp":
        return "timestamp"
    if t.params:
        return f"{t.name}({', '.join(format_type(p) for p in t.params)})"
    return str(t)


_NAMED: dict[str, Type] = {
    t.name: t for t in (BOOL, INT, UINT, DOUBLE, STRING, BYTES, NULL, DYN, TYPE)
} | {"duration": DURATION, "timestamp": TIMESTAMP}
# Library types by their CEL names (Kubernetes: k8s.io/apiserver/pkg/cel/*.go).
LIBRARY_TYPES: dict[str, Type] = {
    "net.IP": opaque("net.IP"),
    "net.CIDR": opaque("net.CIDR"),
    "kubernetes.Quantity": struct("kubernetes.Quantity"),
    "kubernetes.URL": struct("kubernetes.URL"),
    "kubernetes.NamedFormat": struct("kubernetes.NamedFormat"),
    "kubernetes.authorization.Authorizer": struct("kubernetes.authorization.Authorizer"),
    "kubernetes.authorization.PathCheck": struct("kubernetes.authorization.PathCheck"),
    "kubernetes.authorization.GroupCheck": struct("kubernetes.authorization.GroupCheck"),
    "kubernetes.authorization.ResourceCheck": struct("kubernetes.authorization.ResourceCheck"),
    "kubernetes.authorization.Decision": struct("kubernetes.authorization.Decision"),
    "kubernetes.LabelSelector": struct("kubernetes.LabelSelector"),
}


def parse_type(text: str) -> Type:
    """``"list(A)"`` -> ``list_of(param("A"))``; single capitals are type parameters."""
    parsed, rest = _parse(text.replace(" ", ""))
    if rest:
        raise ValueError(f"trailing text in type {text!r}")
    return parsed


def _parse(text: str) -> tuple[Type, str]:
    head = text
    for stop in "(,)":
        head = head.split(stop, 1)[0]
    rest = text[len(head) :]
    params: list[Type] = []
    if rest.startswith("("):
        rest = rest[1:]
        while True:
            inner, rest = _parse(rest)
            params.append(inner)
            if rest.startswith(","):
                rest = rest[1:]
                continue
            rest = rest[1:]  # ")"
            break
    return _build(head, params), rest


def _build(head: str, params: list[Any]) -> Type:
    if head == "list":
        return list_of(params[0])
    if head == "map":
        return map_of(params[0], params[1])
    if head == "optional":
        return optional_of(params[0])
    if head == "type":
        return type_of(params[0]) if params else TYPE
    if len(head) == 1 and head.isupper():
        return param(head)
    if head in _NAMED:
        return _NAMED[head]
    return LIBRARY_TYPES[head]
