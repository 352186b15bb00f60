"""Metadata-only views of any kind: ``metadata_kind(info)`` -> a ``PartialObjectMetadata`` class.

A controller that only needs names, labels or owner references of, say, every
Secret in the cluster should not cache their data. ``metadata_kind(Secret.info)``
is a typed class with nothing but ``apiVersion``, ``kind`` and ``metadata`` and the
REST mapping of Secrets; an informer of it (``factory.informer(Secret,
metadata_only=True)``) caches just that (controller-runtime's
``metav1.PartialObjectMetadata`` informers).

Only metadata crosses the wire: the informer's ``Api`` is ``client.metadata(...)``,
which lists with ``Accept: application/json;as=PartialObjectMetadataList;...`` and
watches with ``as=PartialObjectMetadata``. The classes live in
``kubeforge.client.metadata``; this module re-exports them for the cache's users.

>>> from kubeforge.models.core_v1 import Secret
>>> SecretMetadata = metadata_kind(Secret.info)
>>> SecretMetadata.__name__, SecretMetadata.info.plural
('SecretMetadata', 'secrets')
>>> metadata_kind(Secret.info) is SecretMetadata
True
"""

from __future__ import annotations

from kubeforge.client.metadata import PartialObjectMetadata, is_metadata_kind, metadata_kind

__all__ = ["PartialObjectMetadata", "is_metadata_kind", "metadata_kind"]
