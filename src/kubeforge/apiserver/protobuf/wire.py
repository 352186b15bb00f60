"""Kubernetes protobuf bodies: the ``k8s\\0`` envelope around a typed message, both ways.

Entry points: ``decode(raw) -> dict`` (a request body into its JSON form) and
``encode(obj) -> bytes | None`` (a response object, or ``None`` when it cannot be
written without losing something, so the caller answers JSON as a real server does
for kinds it has no protobuf for). The envelope is the 4-byte magic followed by a
``runtime.Unknown`` (type meta, the typed message's bytes, content encoding and type);
the typed message is read and written by ``decoding``/``encoding`` with the table
generated from the Kubernetes 1.32 ``generated.proto`` files.

Example::

    >>> obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    >>> decode(encode(obj)) == obj
    True
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.protobuf import decoding, encoding, table
from kubeforge.apiserver.protobuf.reader import ProtobufError, UnknownField, read_fields
from kubeforge.apiserver.protobuf.writer import Writer

__all__ = [
    "MAGIC",
    "ProtobufError",
    "UnknownField",
    "UnsupportedKind",
    "decode",
    "encode",
    "envelope",
]

MAGIC = b"k8s\x00"


class UnsupportedKind(ProtobufError):
    """Well-formed, but of a kind this server has no protobuf message for."""


def type_meta(raw: bytes) -> tuple[str, str, bytes]:
    """``(apiVersion, kind, message bytes)`` of an enveloped body."""
    if not raw.startswith(MAGIC):
        raise ProtobufError("missing the k8s protobuf magic prefix")
    envelope = {number: value for number, _, value in read_fields(raw[len(MAGIC) :])}
    meta = {number: value for number, _, value in read_fields(bytes(envelope.get(1, b"")))}
    api_version = bytes(meta.get(1, b"")).decode("utf-8", "replace")
    kind = bytes(meta.get(2, b"")).decode("utf-8", "replace")
    return api_version, kind, bytes(envelope.get(2, b""))


def decode(raw: bytes, default: tuple[str, str] | None = None) -> dict[str, Any]:
    """The JSON form of a protobuf-encoded object; raises ``ProtobufError``.

    ``default`` is the ``(apiVersion, kind)`` of an envelope without type meta (a watch
    event's frame, or a body posted to a resource whose kind the URL says).
    """
    api_version, kind, payload = type_meta(raw)
    if not api_version and not kind and default is not None:
        message = table.message_for(*default)
        if message is None:
            raise UnsupportedKind(f"no protobuf decoding for {default[0]}, Kind={default[1]}")
        return decoding.decode_message(message, payload)
    message = table.message_for(api_version, kind)
    if message is None:
        raise UnsupportedKind(f"no protobuf decoding for {api_version}, Kind={kind}")
    body = decoding.decode_message(message, payload)
    return {"apiVersion": api_version, "kind": kind, **body}


def encode(obj: dict[str, Any]) -> bytes | None:
    """The protobuf form of ``obj``, or ``None`` when the table cannot hold all of it."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    message = table.message_for(api_version, kind)
    if message is None:
        return None
    body = {key: value for key, value in obj.items() if key not in ("apiVersion", "kind")}
    try:
        payload = encoding.encode_message(message, body)
    except encoding.NotEncodable:
        return None
    return envelope(api_version, kind, payload)


def envelope(api_version: str, kind: str, payload: bytes) -> bytes:
    """A typed message's bytes in the ``k8s\\0`` envelope, as ``encode`` writes them."""
    meta = Writer()
    meta.string(1, api_version)
    meta.string(2, kind)
    envelope = Writer()
    envelope.message(1, meta.getvalue())
    envelope.message(2, payload)
    envelope.string(3, "")  # contentEncoding and contentType: Go writes them even when empty
    envelope.string(4, "")
    return MAGIC + envelope.getvalue()
