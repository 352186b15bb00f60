"""One shared informer per (resource, namespace, selectors) in a process. See ``InformerFactory``.

Every controller that watches Pods in a namespace shares one watch and one cache,
as with client-go's ``SharedInformerFactory`` and controller-runtime's cache.
Metadata-only informers (``metadata_only=True``) are separate informers of the
kind's ``metadata_kind`` class. ``CacheOptions`` narrow the whole cache (namespaces,
selectors, transforms per kind); a namespaced kind restricted to several namespaces
is a ``MultiNamespaceInformer`` over one informer per namespace.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, overload

from kubeforge.cache.informer import Informer, wait_for_sync
from kubeforge.cache.metadata import PartialObjectMetadata, is_metadata_kind, metadata_kind
from kubeforge.cache.multinamespace import MultiNamespaceInformer, OutsideCacheScope
from kubeforge.cache.options import ByObject, CacheOptions, Kind, and_selectors
from kubeforge.cache.store import Store, Transform
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.watch.watcher import ListWatch, WatcherConfig

__all__ = ["ApiSource", "CacheOptions", "InformerFactory", "Kind"]

log = logging.getLogger("kubeforge.cache")

R = TypeVar("R", bound=Resource)


class ApiSource(Protocol):
    """Where informers get their ``Api`` from (``client.Client`` satisfies it)."""

    def api(self, kind: type[R], namespace: str | None = None) -> ListWatch[R]: ...

    def dynamic(
        self, info: ResourceInfo, namespace: str | None = None
    ) -> ListWatch[dict[str, Any]]: ...


_Key: TypeAlias = tuple[Kind, str | None, str | None, str | None]


class InformerFactory:
    """Creates informers on first request and shares them afterwards.

    Informers asked for before ``start()`` begin with it; informers asked for
    later start at once. ``resync_period`` is the default for every informer.

    Transforms (see ``kubeforge.cache.transforms``) are fixed per kind when the
    factory is made, so every sharer of an informer caches the same thing:
    ``transforms[kind]`` if given, else ``default_transform`` (controller-runtime's
    ``ByObject`` transforms and ``DefaultTransform``).
    """

    def __init__(
        self,
        source: ApiSource,
        *,
        resync_period: float | None = None,
        default_transform: Transform | None = None,
        transforms: Mapping[Kind, Transform] | None = None,
        clock: Clock | None = None,
        options: CacheOptions | None = None,
    ) -> None:
        self._source = source
        self.options = options or CacheOptions()
        self._composites: dict[_Key, MultiNamespaceInformer[Any]] = {}
        self.resync_period = resync_period
        self.default_transform = default_transform
        self._transforms: dict[Kind, Transform] = dict(transforms or {})
        self._clock = clock or MonotonicClock()
        self._informers: dict[_Key, Informer[Any]] = {}
        self._started = False

    @overload
    def informer(
        self,
        kind: type[R],
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        metadata_only: Literal[False] = False,
    ) -> Informer[R]: ...

    @overload
    def informer(
        self,
        kind: ResourceInfo,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        metadata_only: Literal[False] = False,
    ) -> Informer[dict[str, Any]]: ...

    @overload
    def informer(
        self,
        kind: Kind,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        metadata_only: Literal[True],
    ) -> Informer[PartialObjectMetadata]: ...

    def informer(
        self,
        kind: Kind,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        metadata_only: bool = False,
    ) -> Informer[Any]:
        """The shared informer for ``kind`` (all namespaces when ``namespace`` is ``None``).

        ``metadata_only``: an informer of ``metadata_kind(kind)`` instead, whose
        objects carry only ``apiVersion``, ``kind`` and ``metadata``; the server
        is asked for ``PartialObjectMetadata``, so nothing else crosses the wire.
        """
        settings = self._settings(kind)
        if metadata_only:
            kind = metadata_kind(_info(kind))
        namespaces = settings.namespaces if _info(kind).namespaced else None
        labels = and_selectors(settings.label_selector, label_selector)
        fields = and_selectors(settings.field_selector, field_selector)
        if namespaces is not None and namespace is not None and namespace not in namespaces:
            raise OutsideCacheScope.for_list(namespace, tuple(namespaces))
        if namespaces is not None and namespace is None:
            return self._multi(kind, tuple(namespaces), labels, fields, settings.transform)
        return self._single((kind, namespace, labels, fields), settings.transform)

    def _settings(self, kind: Kind) -> ByObject:
        settings = self.options.for_kind(kind)
        transform = self._transforms.get(kind) or settings.transform or self.default_transform
        return ByObject(
            namespaces=settings.namespaces,
            label_selector=settings.label_selector,
            field_selector=settings.field_selector,
            transform=transform,
        )

    def _single(self, key: _Key, transform: Transform | None) -> Informer[Any]:
        informer = self._informers.get(key)
        if informer is None:
            informer = self._create(key, transform)
            self._informers[key] = informer
            if self._started:
                informer.start()
        return informer

    def _multi(
        self,
        kind: Kind,
        namespaces: tuple[str, ...],
        labels: str | None,
        fields: str | None,
        transform: Transform | None,
    ) -> Informer[Any]:
        key: _Key = (kind, None, labels, fields)
        found = self._composites.get(key)
        if found is None:
            parts = {ns: self._single((kind, ns, labels, fields), transform) for ns in namespaces}
            name = f"{_info(kind).group_resource} in {', '.join(namespaces)}"
            found = MultiNamespaceInformer(parts, name=name, clock=self._clock)
            self._composites[key] = found
        return found

    @overload
    def store(
        self,
        kind: type[R],
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Store[R]: ...

    @overload
    def store(
        self,
        kind: ResourceInfo,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Store[dict[str, Any]]: ...

    def store(
        self,
        kind: Kind,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Store[Any]:
        """The shared informer's ``Store`` (registering the informer if new)."""
        return self.informer(
            kind,
            namespace=namespace,
            label_selector=label_selector,
            field_selector=field_selector,
        ).store

    def find(
        self,
        kind: Kind,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Informer[Any] | None:
        """The shared informer for exactly this request if one exists; never creates one."""
        settings = self._settings(kind)
        key: _Key = (
            kind,
            namespace,
            and_selectors(settings.label_selector, label_selector),
            and_selectors(settings.field_selector, field_selector),
        )
        if namespace is None and key in self._composites:
            return self._composites[key]
        return self._informers.get(key)

    @property
    def started(self) -> bool:
        return self._started

    @property
    def informers(self) -> list[Informer[Any]]:
        return list(self._informers.values())

    def start(self) -> None:
        """Start every informer, and any created from now on."""
        self._started = True
        for informer in self._informers.values():
            informer.start()

    async def wait_for_sync(self, timeout: float | None = None) -> None:
        """Wait for every informer's first list; ``CacheSyncTimeout`` after ``timeout`` s."""
        await wait_for_sync(self.informers, timeout, clock=self._clock)

    async def stop(self) -> None:
        """Stop every informer (caches keep their last contents)."""
        self._started = False
        await asyncio.gather(*(informer.stop() for informer in self._informers.values()))

    def _create(self, key: _Key, transform: Transform | None) -> Informer[Any]:
        kind, namespace, label_selector, field_selector = key
        api: ListWatch[Any]
        if isinstance(kind, ResourceInfo):
            api, info = self._source.dynamic(kind, namespace), kind
        else:
            api, info = self._source.api(kind, namespace), kind.info
        where = f" in {namespace}" if namespace else ""
        selectors = ",".join(s for s in (label_selector, field_selector) if s)
        name = f"{info.group_resource}{where}" + (f" [{selectors}]" if selectors else "")
        if is_metadata_kind(kind):
            name += " (metadata)"
        config = WatcherConfig(
            label_selector=label_selector,
            field_selector=field_selector,
            initial_list=self.options.initial_list,
        )
        return Informer(
            api,
            config,
            resync_period=self.resync_period,
            transform=transform,
            clock=self._clock,
            name=name,
        )


def _info(kind: Kind) -> ResourceInfo:
    return kind if isinstance(kind, ResourceInfo) else kind.info
