"""The protobuf wire format, written: one message's fields, in the order they are added.

Entry point: ``Writer`` (``varint``, ``string``, ``message``, ``double``; then
``getvalue()``). Negative integers take ten bytes, as Go writes an ``int32``/``int64``.
"""

from __future__ import annotations

import io
import struct

__all__ = ["Writer"]


class Writer:
    """Accumulates the fields of one message."""

    def __init__(self) -> None:
        self._out = io.BytesIO()

    def _raw_varint(self, value: int) -> None:
        value &= (1 << 64) - 1
        while True:
            byte = value & 0x7F
            value >>= 7
            if value:
                self._out.write(bytes((byte | 0x80,)))
            else:
                self._out.write(bytes((byte,)))
                return

    def _key(self, number: int, wire: int) -> None:
        self._raw_varint(number << 3 | wire)

    def varint(self, number: int, value: int) -> None:
        """An ``int32``, ``int64``, ``uint32`` or ``bool`` field."""
        self._key(number, 0)
        self._raw_varint(value)

    def message(self, number: int, payload: bytes) -> None:
        """A length-delimited field: an embedded message or ``bytes``."""
        self._key(number, 2)
        self._raw_varint(len(payload))
        self._out.write(payload)

    def string(self, number: int, value: str) -> None:
        """A ``string`` field."""
        self.message(number, value.encode("utf-8"))

    def double(self, number: int, value: float) -> None:
        """A ``double`` field (little-endian 64-bit)."""
        self._key(number, 1)
        self._out.write(struct.pack("<d", value))

    def getvalue(self) -> bytes:
        """The message's bytes so far."""
        return self._out.getvalue()
