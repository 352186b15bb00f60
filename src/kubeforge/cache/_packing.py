"""How the cache keeps objects: compact JSON bytes, decoded into a fresh copy on every read.

Entry points: ``pack(obj)`` and ``Unpacker.for_type(cls)``.

Why bytes and not the decoded objects: a decoded Pod costs 3-4x its compact JSON
in memory (every field, string and dict is a Python object), its compact JSON
1x; bytes are also invisible to the garbage collector, whose full passes
otherwise grow with every cached object. Reads had to copy anyway (so that a
reconciler cannot corrupt the cache), and decoding *is* that copy: one decode is
cheaper than the encode + decode a copy of a live object costs.
``benchmarks/cache`` has the numbers behind this choice.

Why JSON and not msgpack: typed objects carry raw JSON fields (``fieldsV1`` is kept
as ``msgspec.Raw``), which a msgpack encoder would splice in verbatim, corrupting
the message; msgspec decodes either format at the same speed, and JSON is ~20%
larger only where msgpack's integer and header encodings win.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

__all__ = ["Unpacker", "labels_in", "pack"]

T = TypeVar("T")

_ENCODER = msgspec.json.Encoder()


def pack(obj: object) -> bytes:
    """The compact form of a typed object or a dict (typed: unset fields left out)."""
    # msgspec's JSON encoder hands back its working buffer, ~45% larger than the
    # message; an exact-size copy (0.6 us for a pod) is what the cache keeps.
    return bytes(memoryview(_ENCODER.encode(obj)))


class Unpacker(Generic[T]):
    """Decodes packed objects of one type; one instance per type (decoders are costly to build)."""

    __slots__ = ("_decoder", "cls")

    _cache: dict[type, Unpacker[Any]] = {}

    def __init__(self, cls: type[T]) -> None:
        self.cls = cls
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(Any if cls is dict else cls)

    @classmethod
    def for_type(cls, kind: type[T]) -> Unpacker[T]:
        unpacker = cls._cache.get(kind)
        if unpacker is None:
            unpacker = cls._cache[kind] = Unpacker(kind)
        return unpacker

    def __call__(self, data: bytes) -> T:
        obj: T = self._decoder.decode(data)
        return obj


class _Labels(msgspec.Struct):
    labels: dict[str, str] | None = None


class _LabelsOnly(msgspec.Struct):
    metadata: _Labels = msgspec.field(default_factory=_Labels)


# Skipping the rest of an object is far cheaper than decoding it: a label selector
# over the cache only pays full decodes for the objects that match.
_LABELS = msgspec.json.Decoder(_LabelsOnly)


def labels_in(data: bytes) -> dict[str, str]:
    """``metadata.labels`` of a packed object, without decoding the rest."""
    return _LABELS.decode(data).metadata.labels or {}
