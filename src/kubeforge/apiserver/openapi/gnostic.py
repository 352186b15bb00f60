"""Swagger 2.0 documents in gnostic's protobuf form (``openapi.v2.Document``), both ways.

kubectl fetches ``/openapi/v2`` only as gnostic protobuf
(``application/com.github.proto-openapi.spec.v2@v1.0+protobuf``) and ``proto.Unmarshal``\\ s
it into the messages of gnostic's ``OpenAPIv2.proto``. This module maps the JSON form onto
those messages: ``encode(document) -> bytes`` and, for tests and tools, ``decode(raw) ->
dict``, its inverse up to what proto3 cannot carry (a ``false``, ``0`` or ``""`` scalar is
indistinguishable from an absent one).

How gnostic shapes JSON, and so how this module does:

* keys are the proto field names in camelCase, ``_ref`` being ``$ref``;
* every ``x-`` key of an object becomes a ``NamedAny`` in its ``vendor_extension`` field,
  the value carried as YAML text in ``Any.yaml`` (JSON text, which YAML parsers read);
* JSON objects used as maps (definitions, properties, paths, responses, ...) become
  repeated ``Named*`` pairs, in document order;
* one-of wrappers are picked by content: a ``$ref`` parameter or response is a
  ``JsonReference``, ``in: body`` a ``BodyParameter``, ``additionalProperties`` a schema
  or a bool, ``type`` and ``items`` one value or a list.

The message table below is written from the field numbers of that ``.proto`` file.
"""

from __future__ import annotations

import struct
from typing import Any

import orjson
import yaml

from kubeforge.apiserver.protobuf import reader

__all__ = ["GnosticError", "decode", "encode"]


class GnosticError(ValueError):
    """Bytes that are not a well-formed ``openapi.v2.Document`` (as far as this module reads)."""


# Each message: "jsonKey:number:kind", a trailing "*" on the kind marking a repeated field.
# Kinds: s string, b bool, i int64, d double, or a message name. "x-:N" is the message's
# vendor_extension field, "*:N:Kind" the Named pairs of every other key of the object.
_PRIMITIVES = (
    "type:{0}:s format:{1}:s items:{2}:PrimitivesItems collectionFormat:{3}:s default:{4}:Any "
    "maximum:{5}:d exclusiveMaximum:{6}:b minimum:{7}:d exclusiveMinimum:{8}:b maxLength:{9}:i "
    "minLength:{10}:i pattern:{11}:s maxItems:{12}:i minItems:{13}:i uniqueItems:{14}:b "
    "enum:{15}:Any* multipleOf:{16}:d"
)


def _primitives(first: int) -> str:
    return _PRIMITIVES.format(*range(first, first + 17))


_SPEC: dict[str, str] = {
    "Document": "swagger:1:s info:2:Info host:3:s basePath:4:s schemes:5:s* consumes:6:s* "
    "produces:7:s* paths:8:Paths definitions:9:Definitions parameters:10:ParameterDefinitions "
    "responses:11:ResponseDefinitions security:12:SecurityRequirement* "
    "securityDefinitions:13:SecurityDefinitions tags:14:Tag* externalDocs:15:ExternalDocs x-:16",
    "Info": "title:1:s version:2:s description:3:s termsOfService:4:s contact:5:Contact "
    "license:6:License x-:7",
    "Contact": "name:1:s url:2:s email:3:s x-:4",
    "License": "name:1:s url:2:s x-:3",
    "ExternalDocs": "description:1:s url:2:s x-:3",
    "Tag": "name:1:s description:2:s externalDocs:3:ExternalDocs x-:4",
    "Xml": "name:1:s namespace:2:s prefix:3:s attribute:4:b wrapped:5:b x-:6",
    "Paths": "x-:1 *:2:PathItem",
    "PathItem": "$ref:1:s get:2:Operation put:3:Operation post:4:Operation delete:5:Operation "
    "options:6:Operation head:7:Operation patch:8:Operation parameters:9:ParametersItem* x-:10",
    "Operation": "tags:1:s* summary:2:s description:3:s externalDocs:4:ExternalDocs "
    "operationId:5:s produces:6:s* consumes:7:s* parameters:8:ParametersItem* "
    "responses:9:Responses schemes:10:s* deprecated:11:b security:12:SecurityRequirement* x-:13",
    "Responses": "*:1:ResponseValue x-:2",
    "Response": "description:1:s schema:2:SchemaItem headers:3:Headers examples:4:Examples x-:5",
    "Header": _primitives(1) + " description:18:s x-:19",
    "JsonReference": "$ref:1:s description:2:s",
    "BodyParameter": "description:1:s name:2:s in:3:s required:4:b schema:5:Schema x-:6",
    "HeaderParameterSubSchema": "required:1:b in:2:s description:3:s name:4:s "
    + _primitives(5)
    + " x-:22",
    "FormDataParameterSubSchema": "required:1:b in:2:s description:3:s name:4:s "
    "allowEmptyValue:5:b " + _primitives(6) + " x-:23",
    "QueryParameterSubSchema": "required:1:b in:2:s description:3:s name:4:s "
    "allowEmptyValue:5:b " + _primitives(6) + " x-:23",
    "PathParameterSubSchema": "required:1:b in:2:s description:3:s name:4:s "
    + _primitives(5)
    + " x-:22",
    "PrimitivesItems": _primitives(1) + " x-:18",
    "Schema": "$ref:1:s format:2:s title:3:s description:4:s default:5:Any multipleOf:6:d "
    "maximum:7:d exclusiveMaximum:8:b minimum:9:d exclusiveMinimum:10:b maxLength:11:i "
    "minLength:12:i pattern:13:s maxItems:14:i minItems:15:i uniqueItems:16:b "
    "maxProperties:17:i minProperties:18:i required:19:s* enum:20:Any* "
    "additionalProperties:21:AdditionalPropertiesItem type:22:TypeItem items:23:ItemsItem "
    "allOf:24:Schema* properties:25:Properties discriminator:26:s readOnly:27:b xml:28:Xml "
    "externalDocs:29:ExternalDocs example:30:Any x-:31",
    "FileSchema": "format:1:s title:2:s description:3:s default:4:Any required:5:s* type:6:s "
    "readOnly:7:b externalDocs:8:ExternalDocs example:9:Any x-:10",
    "BasicAuthenticationSecurity": "type:1:s description:2:s x-:3",
    "ApiKeySecurity": "type:1:s name:2:s in:3:s description:4:s x-:5",
    "Oauth2ImplicitSecurity": "type:1:s flow:2:s scopes:3:Oauth2Scopes authorizationUrl:4:s "
    "description:5:s x-:6",
    "Oauth2PasswordSecurity": "type:1:s flow:2:s scopes:3:Oauth2Scopes tokenUrl:4:s "
    "description:5:s x-:6",
    "Oauth2ApplicationSecurity": "type:1:s flow:2:s scopes:3:Oauth2Scopes tokenUrl:4:s "
    "description:5:s x-:6",
    "Oauth2AccessCodeSecurity": "type:1:s flow:2:s scopes:3:Oauth2Scopes authorizationUrl:4:s "
    "tokenUrl:5:s description:6:s x-:7",
    # Maps: every key a Named pair in field 1.
    "Definitions": "*:1:Schema",
    "Properties": "*:1:Schema",
    "ParameterDefinitions": "*:1:Parameter",
    "ResponseDefinitions": "*:1:Response",
    "SecurityDefinitions": "*:1:SecurityDefinitionsItem",
    "SecurityRequirement": "*:1:StringArray",
    "Headers": "*:1:Header",
    "Examples": "*:1:Any",
    "Oauth2Scopes": "*:1:s",
}

# One-of wrappers: (field number, message) chosen by a function of the JSON value.
_SECURITY = {
    ("basic", ""): (1, "BasicAuthenticationSecurity"),
    ("apiKey", ""): (2, "ApiKeySecurity"),
    ("oauth2", "implicit"): (3, "Oauth2ImplicitSecurity"),
    ("oauth2", "password"): (4, "Oauth2PasswordSecurity"),
    ("oauth2", "application"): (5, "Oauth2ApplicationSecurity"),
    ("oauth2", "accessCode"): (6, "Oauth2AccessCodeSecurity"),
}
_NON_BODY = {"header": 1, "formData": 2, "query": 3, "path": 4}
_NON_BODY_MESSAGES = {
    1: "HeaderParameterSubSchema",
    2: "FormDataParameterSubSchema",
    3: "QueryParameterSubSchema",
    4: "PathParameterSubSchema",
}


def _choose(message: str, value: Any) -> tuple[int, str]:
    """The one-of branch of ``message`` that carries ``value``."""
    if message in ("ParametersItem", "ResponseValue"):
        inline = "Parameter" if message == "ParametersItem" else "Response"
        return (2, "JsonReference") if "$ref" in value else (1, inline)
    if message == "Parameter":
        return (1, "BodyParameter") if value.get("in") == "body" else (2, "NonBodyParameter")
    if message == "NonBodyParameter":
        number = _NON_BODY.get(value.get("in", ""), 3)
        return number, _NON_BODY_MESSAGES[number]
    if message == "SchemaItem":
        return (2, "FileSchema") if value.get("type") == "file" else (1, "Schema")
    flow = value.get("flow", "") if value.get("type") == "oauth2" else ""
    return _SECURITY.get((value.get("type", ""), flow), (2, "ApiKeySecurity"))


_ONE_OF_BRANCHES: dict[str, dict[int, str]] = {
    "ParametersItem": {1: "Parameter", 2: "JsonReference"},
    "ResponseValue": {1: "Response", 2: "JsonReference"},
    "Parameter": {1: "BodyParameter", 2: "NonBodyParameter"},
    "NonBodyParameter": _NON_BODY_MESSAGES,
    "SchemaItem": {1: "Schema", 2: "FileSchema"},
    "SecurityDefinitionsItem": {number: name for number, name in _SECURITY.values()},
}

_Field = tuple[str, int, str, bool]  # json key, number, kind, repeated


def _parse_spec() -> dict[str, list[_Field]]:
    table: dict[str, list[_Field]] = {}
    for message, spec in _SPEC.items():
        fields: list[_Field] = []
        for entry in spec.split():
            key, number, *rest = entry.split(":")
            kind = rest[0] if rest else "Any"
            fields.append((key, int(number), kind.rstrip("*"), kind.endswith("*")))
        table[message] = fields
    return table


_MESSAGES = _parse_spec()

# --- encoding --------------------------------------------------------------------------


def _varint(number: int) -> bytes:
    number &= (1 << 64) - 1  # negative int64s take ten bytes, as in Go
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _length_delimited(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _yaml_any(value: Any) -> bytes:
    # JSON is YAML; the Go YAML decoder behind the vendor extensions reads it as such.
    return _length_delimited(2, orjson.dumps(value))


def _scalar(number: int, kind: str, value: Any) -> bytes:
    if kind == "s":
        return _length_delimited(number, str(value).encode()) if value != "" else b""
    if kind == "b":
        return _varint(number << 3) + b"\x01" if value else b""
    if kind == "i":
        return _varint(number << 3) + _varint(int(value)) if value else b""
    if kind == "d":
        return _varint(number << 3 | 1) + struct.pack("<d", float(value)) if value else b""
    return _length_delimited(number, _message(kind, value))


def _named(number: int, kind: str, name: str, value: Any) -> bytes:
    pair = _length_delimited(1, name.encode()) if name else b""
    if kind == "s":
        pair += _scalar(2, "s", value)
    else:
        pair += _length_delimited(2, _message(kind, value))
    return _length_delimited(number, pair)


def _message(kind: str, value: Any) -> bytes:
    """The payload of message ``kind`` for the JSON ``value``."""
    if kind == "Any":
        return _yaml_any(value)
    if kind == "TypeItem":
        types = value if isinstance(value, list) else [value]
        return b"".join(_scalar(1, "s", item) for item in types)
    if kind == "StringArray":
        return b"".join(_scalar(1, "s", item) for item in value)
    if kind == "ItemsItem":
        schemas = value if isinstance(value, list) else [value]
        return b"".join(_length_delimited(1, _message("Schema", item)) for item in schemas)
    if kind == "AdditionalPropertiesItem":
        if isinstance(value, bool):
            return _varint(2 << 3) + (b"\x01" if value else b"\x00")  # a one-of keeps false
        return _length_delimited(1, _message("Schema", value))
    if kind in _ONE_OF_BRANCHES:
        number, branch = _choose(kind, value)
        return _length_delimited(number, _message(branch, value))
    if not isinstance(value, dict):
        raise GnosticError(f"{kind} must be a JSON object, not {type(value).__name__}")
    out = bytearray()
    for key, number, field_kind, repeated in _MESSAGES[kind]:
        if key == "x-":
            for name, extension in value.items():
                if name.startswith("x-"):
                    out += _named(number, "Any", name, extension)
        elif key == "*":
            for name, item in value.items():
                if not name.startswith("x-") or kind in _MAPS:
                    out += _named(number, field_kind, name, item)
        elif key in value:
            items = value[key] if repeated else [value[key]]
            for item in items:
                out += _scalar(number, field_kind, item)
    return bytes(out)


# Messages with no vendor extensions: there an "x-" key is an ordinary name (a property).
_MAPS = frozenset(name for name, fields in _MESSAGES.items() if all(f[0] != "x-" for f in fields))


def encode(document: dict[str, Any]) -> bytes:
    """The ``openapi.v2.Document`` protobuf bytes of a Swagger 2.0 JSON ``document``."""
    return _message("Document", document)


# --- decoding --------------------------------------------------------------------------


def _read(data: bytes) -> list[tuple[int, int, Any]]:
    """The wire fields of ``data`` (``protobuf.wire``'s reader), doubles unpacked."""
    try:
        fields = reader.read_fields(data)
    except reader.ProtobufError as error:
        raise GnosticError(str(error)) from None
    return [
        (number, wire, struct.unpack("<d", value)[0] if wire == 1 else value)
        for number, wire, value in fields
    ]


def _decode_scalar(kind: str, raw: Any) -> Any:
    if kind == "s":
        return bytes(raw).decode()
    if kind == "b":
        return bool(raw)
    if kind == "i":
        return raw - (1 << 64) if raw >= 1 << 63 else raw
    if kind == "d":
        return raw
    return _decode_message(kind, raw)


def _decode_named(kind: str, raw: bytes) -> tuple[str, Any]:
    fields = {number: value for number, _, value in _read(raw)}
    name = bytes(fields.get(1, b"")).decode()
    if kind == "s":
        return name, bytes(fields.get(2, b"")).decode()
    return name, _decode_message(kind, fields.get(2, b""))


def _decode_message(kind: str, raw: bytes) -> Any:
    fields = _read(raw)
    if kind == "Any":
        text = next((bytes(v).decode() for n, _, v in fields if n == 2), "")
        return yaml.safe_load(text)
    if kind in ("TypeItem", "StringArray"):
        values = [bytes(v).decode() for n, _, v in fields if n == 1]
        return values[0] if kind == "TypeItem" and len(values) == 1 else values
    if kind == "ItemsItem":
        schemas = [_decode_message("Schema", v) for n, _, v in fields if n == 1]
        return schemas[0] if len(schemas) == 1 else schemas
    if kind == "AdditionalPropertiesItem":
        for number, _, value in fields:
            return _decode_message("Schema", value) if number == 1 else bool(value)
        return {}
    if kind in _ONE_OF_BRANCHES:
        for number, _, value in fields:
            return _decode_message(_ONE_OF_BRANCHES[kind][number], value)
        return {}
    by_number = {number: (key, field_kind, rep) for key, number, field_kind, rep in _MESSAGES[kind]}
    out: dict[str, Any] = {}
    for number, _, value in fields:
        if number not in by_number:
            continue  # a field this table does not describe: skipped, as proto3 does
        key, field_kind, repeated = by_number[number]
        if key in ("x-", "*"):
            name, item = _decode_named(field_kind, value)
            out[name] = item
        elif repeated:
            out.setdefault(key, []).append(_decode_scalar(field_kind, value))
        else:
            out[key] = _decode_scalar(field_kind, value)
    return out


def decode(raw: bytes) -> dict[str, Any]:
    """The JSON form of ``openapi.v2.Document`` bytes (proto3 defaults left out)."""
    document: dict[str, Any] = _decode_message("Document", raw)
    return document
