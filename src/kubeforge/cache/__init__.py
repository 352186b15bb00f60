"""In-memory, eventually consistent views of resources, fed by a watcher.

May import ``watch`` and below. Entry points:

- ``store()`` -> ``(Store, Writer)``: the cache itself (reads return copies).
- ``Informer``: watcher + store + ``on_add``/``on_update``/``on_delete`` handlers + resync.
- ``InformerFactory``: one shared informer per (resource, namespace, selectors).
"""

from kubeforge.cache.factory import ApiSource, InformerFactory, Kind
from kubeforge.cache.informer import CacheSyncTimeout, HandlerRegistration, Informer, wait_for_sync
from kubeforge.cache.store import NAMESPACE_INDEX, Change, IndexFunc, Store, Writer, store

__all__ = [
    "NAMESPACE_INDEX",
    "ApiSource",
    "CacheSyncTimeout",
    "Change",
    "HandlerRegistration",
    "IndexFunc",
    "Informer",
    "InformerFactory",
    "Kind",
    "Store",
    "Writer",
    "store",
    "wait_for_sync",
]
