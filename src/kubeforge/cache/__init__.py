"""In-memory, eventually consistent views of resources, fed by a watcher.

May import ``watch``, ``client`` and below. Entry points:

- ``store()`` -> ``(Store, Writer)``: the cache itself (objects kept packed; reads
  return private copies).
- ``Informer``: watcher + store + ``on_add``/``on_update``/``on_delete`` handlers,
  tombstones for missed deletes, resync, transforms (``drop_managed_fields``).
- ``InformerFactory``: one shared informer per (resource, namespace, selectors),
  metadata-only informers included (``metadata_kind``).
- ``Lister``, ``CacheReader``, ``CachedClient``: read through the cache (and write
  through the API server); ``indexers`` has ready-made index functions.
"""

from kubeforge.cache.cached_client import CachedClient
from kubeforge.cache.factory import ApiSource, InformerFactory, Kind
from kubeforge.cache.indexers import (
    NAMESPACE_INDEX,
    OWNER_UID_INDEX,
    IndexFunc,
    by_owner_uid,
    field_index,
    field_indexer,
)
from kubeforge.cache.informer import CacheSyncTimeout, HandlerRegistration, Informer, wait_for_sync
from kubeforge.cache.metadata import PartialObjectMetadata, metadata_kind
from kubeforge.cache.multinamespace import MultiNamespaceInformer, OutsideCacheScope
from kubeforge.cache.options import ByObject, CacheOptions
from kubeforge.cache.reader import CacheReader, Lister
from kubeforge.cache.store import Change, Store, Transform, Writer, store
from kubeforge.cache.transforms import drop_managed_fields

__all__ = [
    "NAMESPACE_INDEX",
    "OWNER_UID_INDEX",
    "ApiSource",
    "ByObject",
    "CacheOptions",
    "CacheReader",
    "CacheSyncTimeout",
    "CachedClient",
    "Change",
    "HandlerRegistration",
    "IndexFunc",
    "Informer",
    "InformerFactory",
    "Kind",
    "Lister",
    "MultiNamespaceInformer",
    "OutsideCacheScope",
    "PartialObjectMetadata",
    "Store",
    "Transform",
    "Writer",
    "by_owner_uid",
    "drop_managed_fields",
    "field_index",
    "field_indexer",
    "metadata_kind",
    "store",
    "wait_for_sync",
]
