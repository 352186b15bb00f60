"""The JSON form of an object into its typed protobuf message, by the generated table.

Entry point: ``encode_message(message, body)``; ``NotEncodable`` when the body holds
anything the message cannot carry (an unknown field, a wrong type), so the server
answers JSON instead of losing it. Fields go out in field-number order and map
entries by sorted key, as Go's generated marshallers write them; a ``null`` time is
the empty ``Time`` Go writes for a zero non-pointer time.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from functools import cache
from typing import Any

from kubeforge.apiserver.protobuf import scalars, table
from kubeforge.apiserver.protobuf.writer import Writer

__all__ = ["NotEncodable", "encode_message"]


class NotEncodable(ValueError):
    """The object has something its protobuf message cannot hold."""


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotEncodable(f"not an integer: {value!r}")
    return value


def _scalar(out: Writer, number: int, type_: str, value: Any) -> None:
    if type_ == "string":
        if not isinstance(value, str):
            raise NotEncodable(f"not a string: {value!r}")
        out.string(number, value)
    elif type_ == "bytes":
        try:
            out.message(number, base64.b64decode(str(value), validate=True))
        except binascii.Error:
            raise NotEncodable("bytes that are not base64") from None
    elif type_ == "bool":
        if not isinstance(value, bool):
            raise NotEncodable(f"not a boolean: {value!r}")
        out.varint(number, int(value))
    elif type_ in ("double", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise NotEncodable(f"not a number: {value!r}")
        out.double(number, float(value))
    else:
        out.varint(number, _int(value))


def _time(value: Any, micro: bool) -> bytes:
    inner = Writer()
    if value is None:
        return b""
    try:
        seconds, nanos = scalars.parse_time(str(value))
    except ValueError:
        raise NotEncodable(f"not a time: {value!r}") from None
    inner.varint(1, seconds)
    inner.varint(2, nanos if micro else 0)
    return inner.getvalue()


def _raw_json(value: Any) -> bytes:
    inner = Writer()
    if value is not None:
        inner.message(1, json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
    return inner.getvalue()


def _one(number: int, payload: bytes) -> bytes:
    inner = Writer()
    inner.message(number, payload)
    return inner.getvalue()


def _int_or_string(value: Any) -> bytes:
    inner = Writer()
    is_string = isinstance(value, str)
    inner.varint(1, int(is_string))
    inner.varint(2, 0 if is_string else _int(value))
    inner.string(3, value if is_string else "")
    return inner.getvalue()


def _quantity(value: Any) -> bytes:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise NotEncodable(f"not a quantity: {value!r}")
    inner = Writer()
    inner.string(1, str(value))
    return inner.getvalue()


def _duration(value: Any) -> bytes:
    try:
        nanos = scalars.parse_duration(str(value))
    except ValueError:
        raise NotEncodable(f"not a duration: {value!r}") from None
    inner = Writer()
    inner.varint(1, nanos)
    return inner.getvalue()


def _schema_or(message: str, value: Any) -> bytes:
    if isinstance(value, bool) and message.endswith("OrBool"):
        return encode_message(message, {"allows": value})
    if isinstance(value, list):
        key = "jSONSchemas" if message.endswith("OrArray") else "property"
        return encode_message(message, {key: value})
    body: dict[str, Any] = {"schema": value}
    if message.endswith("OrBool"):
        body["allows"] = True
    return encode_message(message, body)


_ZEROS: dict[str, Any] = {"string": "", "bytes": "", "bool": False, "double": 0.0, "float": 0.0}
_ZEROS |= {"int32": 0, "int64": 0, "uint32": 0}
_PROPS = "apiextensions.v1.JSONSchemaProps"
_SPECIAL: dict[str, Callable[[Any], bytes]] = {
    "meta.v1.Time": lambda value: _time(value, micro=False),
    "meta.v1.MicroTime": lambda value: _time(value, micro=True),
    "meta.v1.Duration": _duration,
    "resource.Quantity": _quantity,
    "intstr.IntOrString": _int_or_string,
    "runtime.RawExtension": _raw_json,
    "meta.v1.FieldsV1": _raw_json,
    "apiextensions.v1.JSON": _raw_json,
    f"{_PROPS}OrArray": lambda value: _schema_or(f"{_PROPS}OrArray", value),
    f"{_PROPS}OrBool": lambda value: _schema_or(f"{_PROPS}OrBool", value),
    f"{_PROPS}OrStringArray": lambda value: _schema_or(f"{_PROPS}OrStringArray", value),
}


def _message_bytes(type_: str, value: Any) -> bytes:
    special = _SPECIAL.get(type_)
    if special is not None:
        return special(value)
    if table.is_list(type_):
        return encode_message(type_, {"items": value})
    if not isinstance(value, dict):
        raise NotEncodable(f"not an object: {value!r}")
    return encode_message(type_, value)


def _write(out: Writer, number: int, type_: str, value: Any) -> None:
    if type_ in table.SCALARS:
        _scalar(out, number, type_, value)
    else:
        out.message(number, _message_bytes(type_, value))


def _write_map(out: Writer, field: table.Field, value: Any) -> None:
    if not isinstance(value, dict):
        raise NotEncodable(f"{field.name} is not a map")
    for key in sorted(value):
        entry = Writer()
        entry.string(1, key)
        _write(entry, 2, field.type, value[key])
        out.message(field.number, entry.getvalue())


def _write_field(out: Writer, field: table.Field, value: Any) -> None:
    if field.map:
        _write_map(out, field, value)
    elif field.repeated:
        if not isinstance(value, list):
            raise NotEncodable(f"{field.name} is not a list")
        for item in value:
            _write(out, field.number, field.type, item)
    elif value is None and field.type not in ("meta.v1.Time", "meta.v1.MicroTime"):
        return  # a nil pointer: nothing on the wire
    else:
        _write(out, field.number, field.type, value)


@cache
def _claimed(message: str) -> frozenset[str]:
    """Every JSON key a message holds, its inline members' included."""
    names: frozenset[str] = frozenset()
    for name, field in table.by_name(message):
        names |= _claimed(field.type) if field.inline else {name}
    return names


def encode_message(message: str, body: dict[str, Any]) -> bytes:
    """The protobuf bytes of one message of the table; raises ``NotEncodable``."""
    unknown = set(body) - _claimed(message)
    if unknown:
        raise NotEncodable(f"{message} has no field {sorted(unknown)[0]!r}")
    out = Writer()
    for name, field in table.by_name(message):
        if field.inline:
            members = _claimed(field.type)
            inline = {key: value for key, value in body.items() if key in members}
            out.message(field.number, encode_message(field.type, inline))
        elif name in body:
            _write_field(out, field, body[name])
        elif field.always:  # Go writes a value scalar's zero: the same bytes as a real server
            _scalar(out, field.number, field.type, _ZEROS[field.type])
    return out.getvalue()
