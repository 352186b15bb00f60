"""Metadata-only views of any kind: ``metadata_kind(info)`` -> a ``PartialObjectMetadata`` class.

A controller that only needs names, labels or owner references of, say, every
Secret in the cluster should not cache their data. ``metadata_kind(Secret.info)``
is a typed class with nothing but ``apiVersion``, ``kind`` and ``metadata`` and the
REST mapping of Secrets, so ``client.api(metadata_kind(Secret.info))`` lists and
watches Secrets while decoding only their metadata, and an informer of it caches
just that (controller-runtime's ``metav1.PartialObjectMetadata`` informers).

How the stripping happens: the local server does not answer the
``application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io`` media type,
and the client does not send it, so full objects cross the wire and msgspec skips
every field the class lacks while decoding. The cache and the handlers only ever
see metadata; the network cost is that of a full list and watch.

>>> from kubeforge.models.core_v1 import Secret
>>> SecretMetadata = metadata_kind(Secret.info)
>>> SecretMetadata.__name__, SecretMetadata.info.plural
('SecretMetadata', 'secrets')
>>> metadata_kind(Secret.info) is SecretMetadata
True
"""

from __future__ import annotations

from typing import Any

from kubeforge.core.resource import Resource, ResourceInfo

__all__ = ["PartialObjectMetadata", "is_metadata_kind", "metadata_kind"]


class PartialObjectMetadata(Resource, forbid_unknown_fields=False):
    """An object reduced to ``apiVersion``, ``kind`` and ``metadata``.

    Subclasses made by ``metadata_kind`` carry the REST mapping of the kind they
    stand for; ``api_version``/``kind`` hold that kind's, as controller-runtime
    sets them on the objects of a metadata informer. Everything else on the wire
    is dropped while decoding (unlike other models, which keep unknown fields).
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
