"""A typed protobuf message into its JSON form, by the generated table.

Entry point: ``decode_message(message, data)``. A field number the table does not
have for that message raises ``UnknownField`` (never dropped). Zero scalars on the
wire are kept (Go writes pointer fields set to zero: ``replicas: 0``, ``runAsUser: 0``),
except those of value fields with ``omitempty``, which Go writes for every unset field
(``hostNetwork: false``, ``nodeName: ""``) and its JSON leaves out. The Kubernetes
types with their own JSON form (``Time``, ``Quantity``, ``IntOrString``,
``RawExtension``, ``Duration``, the apiextensions ``JSONSchemaPropsOr*``) are turned
into it here.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.protobuf import scalars, table
from kubeforge.apiserver.protobuf.reader import (
    ProtobufError,
    UnknownField,
    read_fields,
    signed,
    varints,
)

__all__ = ["decode_message"]

_NUMERIC = frozenset({"int32", "int64", "uint32", "bool", "double", "float"})


def _scalar(type_: str, wire: int, value: Any) -> Any:
    if type_ == "string":
        return _text(value)
    if type_ == "bytes":
        return base64.b64encode(bytes(value)).decode()
    if type_ in ("double", "float"):
        return struct.unpack("<d" if wire == 1 else "<f", bytes(value))[0]
    if wire != 0:
        raise ProtobufError(f"proto: wrong wireType = {wire} for a field of type {type_}")
    if type_ == "bool":
        return bool(value)
    return signed(value, 32 if type_ == "int32" else 64) if type_ != "uint32" else value


def _text(value: Any) -> str:
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise ProtobufError("proto: invalid UTF-8 in a string field") from None


def _by_number(data: bytes) -> dict[int, Any]:
    return {number: value for number, _, value in read_fields(data)}


def _time(data: bytes, micro: bool) -> str | None:
    fields = _by_number(data)
    return scalars.format_time(signed(fields.get(1, 0)), signed(fields.get(2, 0), 32), micro)


def _raw_json(data: bytes) -> Any:
    raw = bytes(_by_number(data).get(1, b""))
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise ProtobufError("proto: raw JSON field is not JSON") from None


def _int_or_string(data: bytes) -> Any:
    fields = _by_number(data)
    if fields.get(1, 0) == 1:
        return _text(fields.get(3, b""))
    return signed(fields.get(2, 0), 32)


def _schema_or_array(data: bytes) -> Any:
    body = decode_message("apiextensions.v1.JSONSchemaPropsOrArray", data)
    return body["jSONSchemas"] if body.get("jSONSchemas") else body.get("schema")


def _schema_or_bool(data: bytes) -> Any:
    body = decode_message("apiextensions.v1.JSONSchemaPropsOrBool", data)
    return body["schema"] if "schema" in body else bool(body.get("allows"))


def _schema_or_strings(data: bytes) -> Any:
    body = decode_message("apiextensions.v1.JSONSchemaPropsOrStringArray", data)
    return body["property"] if body.get("property") else body.get("schema")


_SPECIAL: dict[str, Callable[[bytes], Any]] = {
    "meta.v1.Time": lambda data: _time(data, micro=False),
    "meta.v1.MicroTime": lambda data: _time(data, micro=True),
    "meta.v1.Duration": lambda data: scalars.format_duration(signed(_by_number(data).get(1, 0))),
    "resource.Quantity": lambda data: _text(_by_number(data).get(1, b"")),
    "intstr.IntOrString": _int_or_string,
    "runtime.RawExtension": _raw_json,
    "meta.v1.FieldsV1": _raw_json,
    "apiextensions.v1.JSON": _raw_json,
    "apiextensions.v1.JSONSchemaPropsOrArray": _schema_or_array,
    "apiextensions.v1.JSONSchemaPropsOrBool": _schema_or_bool,
    "apiextensions.v1.JSONSchemaPropsOrStringArray": _schema_or_strings,
}


def _value(type_: str, wire: int, value: Any) -> Any:
    if type_ in table.SCALARS:
        return _scalar(type_, wire, value)
    if wire != 2:
        raise ProtobufError(f"proto: wrong wireType = {wire} for a field of type {type_}")
    special = _SPECIAL.get(type_)
    if special is not None:
        return special(bytes(value))
    if table.is_list(type_):
        return decode_message(type_, bytes(value)).get("items", [])
    return decode_message(type_, bytes(value))


def _map_entry(type_: str, data: bytes) -> tuple[str, Any]:
    key, item = "", None
    for number, wire, value in read_fields(data):
        if number == 1:
            key = _text(value)
        elif number == 2:
            item = _value(type_, wire, value)
    if item is None:  # an entry without a value is the value's zero
        item = _value(type_, 2, b"") if type_ not in table.SCALARS else _zero(type_)
    return key, item


def _zero(type_: str) -> Any:
    return {"string": "", "bytes": "", "bool": False}.get(type_, 0)


def _put(out: dict[str, Any], field: table.Field, wire: int, value: Any) -> None:
    if field.map:
        key, item = _map_entry(field.type, bytes(value))
        out.setdefault(field.name, {})[key] = item
    elif field.repeated:
        items = out.setdefault(field.name, [])
        if wire == 2 and field.type in _NUMERIC:  # packed
            items.extend(_scalar(field.type, 0, item) for item in varints(bytes(value)))
        else:
            items.append(_value(field.type, wire, value))
    elif field.inline:
        out.update(_value(field.type, wire, value))
    else:
        decoded = _value(field.type, wire, value)
        if field.omit_zero and decoded in ("", 0, False) and field.type in table.SCALARS:
            out.pop(field.name, None)
            return
        out[field.name] = decoded


def decode_message(message: str, data: bytes) -> dict[str, Any]:
    """The JSON form of one message of the table; raises ``ProtobufError``."""
    known = table.fields(message)
    out: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        field = known.get(number)
        if field is None:
            simple = message.rsplit(".", 1)[-1]
            raise UnknownField(f"proto: {simple}: unknown field number {number} (wire type {wire})")
        _put(out, field, wire, value)
    return out
