"""The fluent way to declare a controller: ``Builder(mgr).for_(T).owns(U).complete(fn)``.

Mirrors controller-runtime's builder: ``for_`` queues the object's own key,
``owns`` queues the controlling owner's key, ``watches`` queues whatever a map
function returns. Informers come from the manager's shared cache, so two
controllers watching Pods share one watch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kubeforge.cache.factory import InformerFactory, Kind
from kubeforge.controller.blueprint import Blueprint
from kubeforge.controller.controller import Controller, ControllerOptions
from kubeforge.controller.handler import Mapper, enqueue_object, enqueue_owner
from kubeforge.controller.predicate import Predicate
from kubeforge.core.clock import Clock
from kubeforge.core.resource import ResourceInfo
from kubeforge.reconcile import Reconciler, Request
from kubeforge.workqueue import RateLimiter

__all__ = ["Builder", "ControllerHost"]


class ControllerHost(Protocol):
    """What the builder needs from a manager (``runtime.Manager`` satisfies it)."""

    @property
    def cache(self) -> InformerFactory: ...

    @property
    def clock(self) -> Clock: ...

    def add(self, controller: Controller) -> None: ...


@dataclass(frozen=True, slots=True)
class _Watch:
    kind: Kind
    mapper: Mapper | None  # None: the For type's owners (resolved in complete())
    predicates: tuple[Predicate, ...]
    namespace: str | None
    label_selector: str | None
    only_controller: bool = True
    metadata_only: bool = False


def _info(kind: Kind) -> ResourceInfo:
    return kind if isinstance(kind, ResourceInfo) else kind.info


class Builder:
    """Collects watches and options, then ``complete(reconciler)`` registers the controller.

    Mistakes (two ``for_`` calls, nothing to watch, ...) are raised by
    ``complete`` as ``ValueError``, so the chain itself never breaks midway.
    """

    def __init__(self, mgr: ControllerHost) -> None:
        self._mgr = mgr
        self._name: str | None = None
        self._for: _Watch | None = None
        self._watches: list[_Watch] = []
        self._filters: list[Predicate] = []
        self._options = ControllerOptions()
        self._errors: list[str] = []
        self._writes_status = False
        self._finalizers: tuple[str, ...] = ()

    def named(self, name: str) -> Builder:
        """The controller's name (unique per manager; logs and metrics use it).

        Defaults to the lower-cased kind of the ``for_`` type.
        """
        self._name = name
        return self

    def for_(
        self,
        kind: Kind,
        *,
        predicates: Sequence[Predicate] = (),
        namespace: str | None = None,
        label_selector: str | None = None,
        metadata_only: bool = False,
        writes_status: bool = False,
        finalizers: Sequence[str] = (),
    ) -> Builder:
        """Reconcile objects of ``kind``: each event queues the object's own key.

        ``metadata_only`` watches through a metadata-only informer (handlers and
        predicates then see ``PartialObjectMetadata`` objects). ``writes_status``
        and ``finalizers`` say what the reconciler writes on the object, so the
        RBAC derived from the controller grants it (``/status``; ``update`` and
        ``/finalizers``).
        """
        if self._for is not None:
            self._errors.append("for_() may be called only once")
        if isinstance(finalizers, str):
            self._errors.append("finalizers is a list of names, not one string")
        self._writes_status, self._finalizers = writes_status, tuple(finalizers)
        self._for = _Watch(
            kind,
            enqueue_object,
            tuple(predicates),
            namespace,
            label_selector,
            metadata_only=metadata_only,
        )
        return self

    def owns(
        self,
        kind: Kind,
        *,
        predicates: Sequence[Predicate] = (),
        namespace: str | None = None,
        label_selector: str | None = None,
        match_every_owner: bool = False,
        metadata_only: bool = False,
    ) -> Builder:
        """Watch ``kind``, queueing the key of the ``for_`` object controlling it.

        An owner reference counts when its group and kind are the ``for_`` kind's
        and it has ``controller: true``; ``match_every_owner=True`` drops the last
        condition (controller-runtime's ``MatchEveryOwner``). Updates queue the
        owners of both the old and the new object.
        """
        watch = _Watch(
            kind,
            None,
            tuple(predicates),
            namespace,
            label_selector,
            only_controller=not match_every_owner,
            metadata_only=metadata_only,
        )
        self._watches.append(watch)
        return self

    def watches(
        self,
        kind: Kind,
        map_fn: Mapper,
        *,
        predicates: Sequence[Predicate] = (),
        namespace: str | None = None,
        label_selector: str | None = None,
        metadata_only: bool = False,
    ) -> Builder:
        """Watch ``kind``, queueing ``map_fn(obj)`` (on updates: of old and new, merged).

        ``map_fn`` runs on the event loop for every event: it must not block or
        await, but it may read caches (``mgr.cache.store(...)``).
        """
        self._watches.append(
            _Watch(
                kind,
                map_fn,
                tuple(predicates),
                namespace,
                label_selector,
                metadata_only=metadata_only,
            )
        )
        return self

    def with_event_filter(self, predicate: Predicate) -> Builder:
        """A predicate applied to every watch of this controller."""
        self._filters.append(predicate)
        return self

    def with_options(
        self,
        *,
        max_concurrent_reconciles: int | None = None,
        cache_sync_timeout: float | None = None,
        rate_limiter: RateLimiter[Request] | None = None,
    ) -> Builder:
        """Override ``ControllerOptions`` fields; arguments left out keep their defaults."""
        changes: dict[str, Any] = {}
        if max_concurrent_reconciles is not None:
            changes["max_concurrent_reconciles"] = max_concurrent_reconciles
        if cache_sync_timeout is not None:
            changes["cache_sync_timeout"] = cache_sync_timeout
        if rate_limiter is not None:
            changes["rate_limiter"] = rate_limiter
        self._options = replace(self._options, **changes)
        return self

    def complete(self, reconciler: Reconciler) -> Controller:
        """Build the controller, add it to the manager and return it."""
        if self._for is None and self._name is None:
            self._errors.append("call for_(kind) or named(name) before complete()")
        if self._for is None and not self._watches:
            self._errors.append("the controller watches nothing: call for_() or watches()")
        if self._for is None and any(w.mapper is None for w in self._watches):
            self._errors.append("owns() needs for_(): owners are looked up by the for_ kind")
        if self._errors:
            raise ValueError("; ".join(self._errors))
        name = self._name
        if name is None:
            assert self._for is not None  # checked above
            name = _info(self._for.kind).kind.lower()
        controller = Controller(name, reconciler, options=self._options, clock=self._mgr.clock)
        controller.blueprint = self._blueprint()
        watches = [self._for, *self._watches] if self._for is not None else self._watches
        for watch in watches:
            mapper = watch.mapper
            if mapper is None:
                assert self._for is not None
                mapper = enqueue_owner(
                    _info(self._for.kind), match_every_owner=not watch.only_controller
                )
            informer = self._mgr.cache.informer(
                watch.kind,
                namespace=watch.namespace,
                label_selector=watch.label_selector,
                metadata_only=watch.metadata_only,  # type: ignore[call-overload]
            )
            controller.watch(informer, mapper, predicates=(*self._filters, *watch.predicates))
        self._mgr.add(controller)
        return controller

    def _blueprint(self) -> Blueprint:
        return Blueprint(
            for_=_info(self._for.kind) if self._for is not None else None,
            owns=tuple(_info(w.kind) for w in self._watches if w.mapper is None),
            watches=tuple(_info(w.kind) for w in self._watches if w.mapper is not None),
            writes_status=self._writes_status,
            finalizers=self._finalizers,
        )
