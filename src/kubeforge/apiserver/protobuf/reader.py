"""The protobuf wire format, read: fields of a message as ``(number, wire type, value)``.

Entry point: ``read_fields(data)``. Varints come back as ``int``; length-delimited,
64-bit and 32-bit values as ``bytes``. Errors are ``ProtobufError`` with the texts of
the Go decoder (gogo-protobuf) so that the server's 400s read like a real one's.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ProtobufError", "UnknownField", "read_fields", "signed", "varints"]


class ProtobufError(ValueError):
    """The body is not a well-formed Kubernetes protobuf message."""


class UnknownField(ProtobufError):
    """A field number the 1.32 schema does not have: an error, never dropped."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if pos >= len(data):
            raise ProtobufError("unexpected EOF")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 64:
            raise ProtobufError("proto: integer overflow")


def read_fields(data: bytes) -> list[tuple[int, int, Any]]:
    """``[(field number, wire type, value)]`` of one message, in wire order."""
    out: list[tuple[int, int, Any]] = []
    pos, end = 0, len(data)
    while pos < end:
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number <= 0:
            raise ProtobufError(f"proto: illegal tag {number} (wire type {wire})")
        if wire == 0:
            value, pos = _varint(data, pos)
            out.append((number, wire, value))
            continue
        size = {1: 8, 5: 4}.get(wire)
        if wire == 2:
            size, pos = _varint(data, pos)
        if size is None:
            raise ProtobufError(f"proto: illegal wireType {wire}")
        if pos + size > end:
            raise ProtobufError("unexpected EOF")
        out.append((number, wire, data[pos : pos + size]))
        pos += size
    return out


def varints(data: bytes) -> list[int]:
    """The values of a packed repeated varint field."""
    out, pos = [], 0
    while pos < len(data):
        value, pos = _varint(data, pos)
        out.append(value)
    return out


def signed(value: int, bits: int = 64) -> int:
    """A varint read as a two's complement integer of ``bits`` bits."""
    value &= (1 << 64) - 1
    if bits == 32:
        value &= 0xFFFFFFFF
        return value - (1 << 32) if value >= 1 << 31 else value
    return value - (1 << 64) if value >= 1 << 63 else value
