"""Decode the Kubernetes protobuf request bodies kubectl's typed commands send.

``kubectl create namespace|configmap|secret`` post ``application/vnd.kubernetes.protobuf``
(client-go's typed clients prefer it), so a server that only read JSON would reject
them. Entry point: ``decode(raw) -> dict`` turns such a body into the JSON form.

The envelope is the 4-byte magic ``k8s\\0`` followed by a ``runtime.Unknown``
message (type meta, raw bytes of the typed message). Only the kinds in ``_KINDS``
are understood; anything else raises ``UnsupportedKind`` and the handler answers
415, exactly as for any other body it cannot read. Responses are always JSON.

Field numbers are those of ``k8s.io/api`` and ``apimachinery`` ``generated.proto``.
Written by hand because the whole generated schema would be a large dependency
for three small kinds.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

__all__ = ["MAGIC", "ProtobufError", "UnsupportedKind", "decode"]

MAGIC = b"k8s\x00"


class ProtobufError(ValueError):
    """The body is not a well-formed Kubernetes protobuf envelope."""


class UnsupportedKind(ProtobufError):
    """Well-formed, but of a kind this server does not decode from protobuf."""


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """``[(field number, wire type, value)]``; length-delimited values stay ``bytes``."""
    out: list[tuple[int, int, Any]] = []
    pos, end = 0, len(data)

    def varint() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            if pos >= end:
                raise ProtobufError("truncated varint")
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7
            if shift > 63:
                raise ProtobufError("varint too long")

    while pos < end:
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            out.append((number, wire, varint()))
        elif wire == 2:
            length = varint()
            if pos + length > end:
                raise ProtobufError("truncated field")
            out.append((number, wire, data[pos : pos + length]))
            pos += length
        elif wire == 1:
            out.append((number, wire, data[pos : pos + 8]))
            pos += 8
        elif wire == 5:
            out.append((number, wire, data[pos : pos + 4]))
            pos += 4
        else:
            raise ProtobufError(f"unsupported wire type {wire}")
    return out


# A field decoder turns the raw value into JSON; a schema maps numbers to (name, decoder, repeated).
Decoder = Callable[[Any], Any]
Schema = dict[int, tuple[str, Decoder, bool]]


def _string(value: Any) -> str:
    return bytes(value).decode("utf-8")


def _bytes(value: Any) -> str:
    return base64.b64encode(bytes(value)).decode()


def _int(value: Any) -> int:
    number = int(value)
    return number - (1 << 64) if number >= 1 << 63 else number  # int64 two's complement


def _bool(value: Any) -> bool:
    return bool(value)


def _message(schema: Schema) -> Decoder:
    def decode_message(value: Any) -> dict[str, Any]:
        return _decode_fields(bytes(value), schema)

    return decode_message


def _time(value: Any) -> str | None:
    fields = {number: raw for number, _, raw in _fields(bytes(value))}
    seconds = _int(fields.get(1, 0))
    if not seconds:
        return None  # the zero Time: what JSON would leave out
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_MAP_ENTRY_STRING: Schema = {1: ("key", _string, False), 2: ("value", _string, False)}
_MAP_ENTRY_BYTES: Schema = {1: ("key", _string, False), 2: ("value", _bytes, False)}
_MAP = "map"  # marker: repeated entries folded into a dict


def _decode_fields(data: bytes, schema: Schema) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, _, value in _fields(data):
        if number not in schema:
            continue  # newer fields this server does not know are ignored, as by a real decoder
        name, decoder, repeated = schema[number]
        decoded = decoder(value)
        if isinstance(decoded, tuple) and decoded and decoded[0] == _MAP:
            out.setdefault(name, {})[decoded[1]] = decoded[2]
        elif not repeated and decoded in ("", 0, False, None) and not isinstance(decoded, dict):
            # Go's protobuf writes zero values that its JSON form omits; drop them the same way.
            continue
        elif repeated:
            out.setdefault(name, []).append(decoded)
        else:
            out[name] = decoded
    return out


def _map(entry: Schema) -> Decoder:
    def decode_entry(value: Any) -> tuple[str, str, Any]:
        fields = _decode_fields(bytes(value), entry)
        return (_MAP, fields.get("key", ""), fields.get("value", ""))

    return decode_entry


_OWNER_REFERENCE: Schema = {
    1: ("kind", _string, False),
    3: ("name", _string, False),
    4: ("uid", _string, False),
    5: ("apiVersion", _string, False),
    6: ("controller", _bool, False),
    7: ("blockOwnerDeletion", _bool, False),
}

_OBJECT_META: Schema = {
    1: ("name", _string, False),
    2: ("generateName", _string, False),
    3: ("namespace", _string, False),
    5: ("uid", _string, False),
    6: ("resourceVersion", _string, False),
    7: ("generation", _int, False),
    8: ("creationTimestamp", _time, False),
    9: ("deletionTimestamp", _time, False),
    10: ("deletionGracePeriodSeconds", _int, False),
    11: ("labels", _map(_MAP_ENTRY_STRING), False),
    12: ("annotations", _map(_MAP_ENTRY_STRING), False),
    13: ("ownerReferences", _message(_OWNER_REFERENCE), True),
    14: ("finalizers", _string, True),
}

_META_FIELD = (1, ("metadata", _message(_OBJECT_META), False))

_KINDS: dict[tuple[str, str], Schema] = {
    ("v1", "Namespace"): dict(
        [
            _META_FIELD,
            (2, ("spec", _message({1: ("finalizers", _string, True)}), False)),
            (3, ("status", _message({1: ("phase", _string, False)}), False)),
        ]
    ),
    ("v1", "ConfigMap"): dict(
        [
            _META_FIELD,
            (2, ("data", _map(_MAP_ENTRY_STRING), False)),
            (3, ("binaryData", _map(_MAP_ENTRY_BYTES), False)),
            (4, ("immutable", _bool, False)),
        ]
    ),
    ("v1", "Secret"): dict(
        [
            _META_FIELD,
            (2, ("data", _map(_MAP_ENTRY_BYTES), False)),
            (3, ("type", _string, False)),
            (4, ("stringData", _map(_MAP_ENTRY_STRING), False)),
            (5, ("immutable", _bool, False)),
        ]
    ),
}


def decode(raw: bytes) -> dict[str, Any]:
    """The JSON form of a protobuf-encoded object; raises ``ProtobufError``."""
    if not raw.startswith(MAGIC):
        raise ProtobufError("missing the k8s protobuf magic prefix")
    envelope = {number: value for number, _, value in _fields(raw[len(MAGIC) :])}
    type_meta = _decode_fields(
        bytes(envelope.get(1, b"")),
        {1: ("apiVersion", _string, False), 2: ("kind", _string, False)},
    )
    api_version, kind = type_meta.get("apiVersion", ""), type_meta.get("kind", "")
    schema = _KINDS.get((api_version, kind))
    if schema is None:
        # The other kinds (workloads, RBAC, reviews, batch ...) live in their own modules,
        # which read the wire format with this one's helpers.
        from kubeforge.apiserver.protobuf import batch_policy_networking, core_apps_rbac

        more = batch_policy_networking.KINDS.get((api_version, kind))
        if more is None:
            raise UnsupportedKind(f"no protobuf decoding for {api_version}, Kind={kind}")
        body = core_apps_rbac.decode_kind(more, bytes(envelope.get(2, b"")))
        return {"apiVersion": api_version, "kind": kind, **body}
    body = _decode_fields(bytes(envelope.get(2, b"")), schema)
    return {"apiVersion": api_version, "kind": kind, **body}
