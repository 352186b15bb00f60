"""Metadata-only objects of any kind, fetched as such: ``client.metadata(Secret)``.

A controller that needs only names, labels or owner references of, say, every
Secret should neither download nor keep their data. ``metadata_kind(info)`` is a
typed class with nothing but ``apiVersion``, ``kind`` and ``metadata``, carrying the
REST mapping of the kind it stands for. An ``Api`` of such a class (from
``client.metadata(kind)``, or ``client.api(metadata_kind(info))``) asks the server
for ``meta.k8s.io/v1`` ``PartialObjectMetadata`` (``...List`` for lists), so only
metadata crosses the wire, as client-go's metadata client does; a server that
cannot convert answers whole objects and msgspec drops everything but metadata
while decoding.

Decoded objects carry the kind they stand for (``apiVersion: v1``, ``kind:
Secret``), not ``meta.k8s.io/v1 PartialObjectMetadata``: controller-runtime
restores it the same way, so that owner references and events built from a
metadata object name the real kind.

>>> from kubeforge.models.core_v1 import Secret
>>> SecretMetadata = metadata_kind(Secret.info)
>>> SecretMetadata.__name__, SecretMetadata.info.plural
('SecretMetadata', 'secrets')
>>> metadata_kind(Secret.info) is SecretMetadata
True
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubeforge.client._codec import TypedCodec
from kubeforge.client.api import AcceptHeaders
from kubeforge.client.wire import ObjectList, WatchEvent
from kubeforge.core.resource import Resource, ResourceInfo

__all__ = [
    "METADATA_ACCEPT",
    "MetadataCodec",
    "PartialObjectMetadata",
    "is_metadata_kind",
    "metadata_codec",
    "metadata_kind",
]

_GROUP = "meta.k8s.io"
_WIRE_KIND = "PartialObjectMetadata"

# Plain JSON last: a server without the conversion answers whole objects instead of 406.
METADATA_ACCEPT = AcceptHeaders(
    object=f"application/json;as={_WIRE_KIND};g={_GROUP};v=v1,application/json",
    list=f"application/json;as={_WIRE_KIND}List;g={_GROUP};v=v1,application/json",
    watch=f"application/json;as={_WIRE_KIND};g={_GROUP};v=v1,application/json",
)


class PartialObjectMetadata(Resource, forbid_unknown_fields=False):
    """An object reduced to ``apiVersion``, ``kind`` and ``metadata``.

    Subclasses made by ``metadata_kind`` carry the REST mapping of the kind they
    stand for, and their objects that kind's ``apiVersion``/``kind``. Everything
    else on the wire is dropped while decoding (unlike other models, which keep
    unknown fields).
    """


_KINDS: dict[ResourceInfo, type[PartialObjectMetadata]] = {}


def metadata_kind(info: ResourceInfo) -> type[PartialObjectMetadata]:
    """The metadata-only class of the kind ``info`` describes (one class per kind)."""
    cls = _KINDS.get(info)
    if cls is None:
        namespace: dict[str, Any] = {"info": info, "__module__": __name__}
        cls = type(f"{info.kind}Metadata", (PartialObjectMetadata,), namespace)
        _KINDS[info] = cls
    return cls


def is_metadata_kind(kind: object) -> bool:
    """True for classes made by ``metadata_kind``."""
    return isinstance(kind, type) and issubclass(kind, PartialObjectMetadata)


class MetadataCodec(TypedCodec[PartialObjectMetadata]):
    """Decodes ``PartialObjectMetadata`` bodies into ``cls``, restoring the kind it stands for.

    Only the ``meta.k8s.io`` wire kind is rewritten: an object claiming any other
    kind keeps its claim, so a watcher still notices a server sending the wrong kind.
    """

    def __init__(self, cls: type[PartialObjectMetadata]) -> None:
        super().__init__(cls)
        info = cls.info
        self._kind, self._api_version = info.kind, info.api_version

    def _restore(self, obj: PartialObjectMetadata) -> PartialObjectMetadata:
        if obj.kind == _WIRE_KIND and obj.api_version.startswith(f"{_GROUP}/"):
            obj.kind, obj.api_version = self._kind, self._api_version
        return obj

    def decode(self, data: bytes) -> PartialObjectMetadata:
        return self._restore(super().decode(data))

    def decode_list(self, data: bytes) -> ObjectList[PartialObjectMetadata]:
        page = super().decode_list(data)
        for item in page.items:
            self._restore(item)
        return page

    def _decode_item(self, raw: msgspec.Raw) -> PartialObjectMetadata:
        return self._restore(super()._decode_item(raw))

    def decode_event(self, line: bytes) -> WatchEvent[PartialObjectMetadata]:
        event = super().decode_event(line)
        self._restore(event.object)
        return event


_codecs: dict[type[PartialObjectMetadata], MetadataCodec] = {}


def metadata_codec(cls: type[PartialObjectMetadata]) -> MetadataCodec:
    """One codec per metadata class (building msgspec decoders is the costly part)."""
    codec = _codecs.get(cls)
    if codec is None:
        codec = _codecs[cls] = MetadataCodec(cls)
    return codec
