"""Reading through the shared cache: ``Lister`` (one store) and ``CacheReader`` (any kind).

``Lister`` is client-go's lister: ``get`` by name raising the ``NotFound`` the server
would, ``list`` by namespace and label selector. ``CacheReader`` is the read half of
controller-runtime's manager client: ``await reader.get(Pod, "web-0", namespace="ns")``
finds (or creates, starts and waits for) the shared informer of that kind, then
answers from its cache. Every object returned is a private copy.

Reads are eventually consistent: a write made a moment ago through the API server
may not be visible yet (controller-runtime's client has the same caveat).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar, overload

from kubeforge.cache.factory import InformerFactory, Kind
from kubeforge.cache.indexers import field_index, field_index_value, field_indexer
from kubeforge.cache.informer import Informer
from kubeforge.cache.metadata import PartialObjectMetadata, metadata_kind
from kubeforge.cache.store import Store
from kubeforge.core import errors
from kubeforge.core.objects import labels_of
from kubeforge.core.refs import ObjectKey
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.core.selectors import parse_label_selector
from kubeforge.core.status import failure
from kubeforge.watch.events import T

__all__ = ["CacheReader", "Lister", "not_found"]

R = TypeVar("R", bound=Resource)

# Fields every object can be selected by without an index (the key holds them).
_KEY_FIELDS = ("metadata.name", "metadata.namespace")


def not_found(info: ResourceInfo, name: str) -> errors.NotFound:
    """The ``NotFound`` a real server answers for ``name`` (same message and details)."""
    details: dict[str, Any] = {"name": name, "kind": info.plural}
    if info.group:
        details["group"] = info.group
    status = failure(404, "NotFound", f'{info.group_resource} "{name}" not found', details)
    error = errors.ApiError.from_status(status)
    assert isinstance(error, errors.NotFound)
    return error


class Lister(Generic[T]):
    """Read one store by name and namespace (client-go's ``Lister``)."""

    def __init__(self, store: Store[T], info: ResourceInfo) -> None:
        self.store = store
        self.info = info

    def get(self, name: str, namespace: str | None = None) -> T:
        """The object, or ``NotFound`` worded as the server words it."""
        obj = self.store.get(ObjectKey(namespace or "", name))
        if obj is None:
            raise not_found(self.info, name)
        return obj

    def list(
        self, namespace: str | None = None, *, label_selector: str | None = None
    ) -> builtins.list[T]:
        return self.store.list(namespace, label_selector=label_selector)


class CacheReader:
    """Answers ``get``/``list`` of any kind from shared informers, started on first use.

    The informer used for a kind is the all-namespaces one if it exists, else one
    for the requested namespace if that exists, else a new all-namespaces one
    (controller-runtime's default cache scope). A read waits for that informer's
    first list, up to ``sync_timeout`` seconds (``CacheSyncTimeout``).
    """

    def __init__(self, cache: InformerFactory, *, sync_timeout: float = 120.0) -> None:
        self.cache = cache
        self.sync_timeout = sync_timeout

    @overload
    async def get(self, kind: type[R], name: str, *, namespace: str | None = None) -> R: ...

    @overload
    async def get(
        self, kind: ResourceInfo, name: str, *, namespace: str | None = None
    ) -> dict[str, Any]: ...

    async def get(self, kind: Kind, name: str, *, namespace: str | None = None) -> Any:
        """One object from the cache; ``NotFound`` if the cache has no such object."""
        informer = await self.informer(kind, namespace)
        return Lister(informer.store, _info(kind)).get(name, namespace)

    @overload
    async def list(
        self,
        kind: type[R],
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        fields: Mapping[str, str] | None = None,
    ) -> builtins.list[R]: ...

    @overload
    async def list(
        self,
        kind: ResourceInfo,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        fields: Mapping[str, str] | None = None,
    ) -> builtins.list[dict[str, Any]]: ...

    async def list(
        self,
        kind: Kind,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        fields: Mapping[str, str] | None = None,
    ) -> builtins.list[Any]:
        """Objects in ``namespace`` (all when ``None``) matching the label selector and fields.

        ``fields`` are exact matches, each answered by a field index registered with
        ``index_field`` (``ValueError`` if there is none), except ``metadata.name``
        and ``metadata.namespace``, which need no index.
        """
        informer = await self.informer(kind, namespace)
        store = informer.store
        if not fields:
            return store.list(namespace, label_selector=label_selector)
        keys = self._keys_matching(store, namespace, fields)
        objects = (store.get(key) for key in sorted(keys))
        selector = parse_label_selector(label_selector) if label_selector else None
        return [
            obj
            for obj in objects
            if obj is not None and (selector is None or selector.matches(labels_of(obj)))
        ]

    async def metadata(self, kind: Kind, name: str, *, namespace: str | None = None) -> Any:
        """``name``'s metadata only, from a metadata-only informer of ``kind``."""
        return await self.get(metadata_kind(_info(kind)), name, namespace=namespace)

    async def list_metadata(
        self, kind: Kind, *, namespace: str | None = None, label_selector: str | None = None
    ) -> builtins.list[PartialObjectMetadata]:
        """Metadata of every object of ``kind``, from a metadata-only informer."""
        return await self.list(
            metadata_kind(_info(kind)), namespace=namespace, label_selector=label_selector
        )

    def index_field(self, kind: Kind, field: str, extract: Callable[[Any], Iterable[str]]) -> None:
        """Index ``kind`` by ``field`` (values from ``extract(obj)``) for ``list(fields=...)``.

        controller-runtime's ``IndexField``; ``ValueError`` if ``field`` is indexed already.
        """
        store = self._pick(kind, None).store
        store.add_index(field_index(field), field_indexer(extract))

    async def informer(self, kind: Kind, namespace: str | None = None) -> Informer[Any]:
        """The informer reads of ``kind`` in ``namespace`` use, started and synced."""
        informer = self._pick(kind, namespace)
        informer.start()  # no-op when already running
        await informer.wait_for_sync(self.sync_timeout)
        return informer

    def _pick(self, kind: Kind, namespace: str | None) -> Informer[Any]:
        found = self.cache.find(kind)
        if found is None and namespace:
            found = self.cache.find(kind, namespace=namespace)
        return found if found is not None else self.cache.informer(kind)

    @staticmethod
    def _keys_matching(
        store: Store[Any], namespace: str | None, fields: Mapping[str, str]
    ) -> set[ObjectKey]:
        keys: set[ObjectKey] | None = None
        for field, value in fields.items():
            if field in _KEY_FIELDS:
                continue
            index = field_index(field)
            if not store.has_index(index):
                raise ValueError(f"index with name {index} does not exist")
            found = set(store.index_keys(index, field_index_value(namespace, value)))
            keys = found if keys is None else keys & found
        if keys is None:
            keys = set(store.keys())
        name = fields.get("metadata.name")
        scope = fields.get("metadata.namespace", namespace)
        return {
            key
            for key in keys
            if (name is None or key.name == name) and (scope is None or key.namespace == scope)
        }


def _info(kind: Kind) -> ResourceInfo:
    return kind if isinstance(kind, ResourceInfo) else kind.info
