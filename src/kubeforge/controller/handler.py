"""From a changed object to the ``Request``\\ s to queue. See ``EnqueueHandler``.

A ``Mapper`` turns one object into the keys to reconcile: the object itself
(``enqueue_object``), its controlling owner (``enqueue_owner``), or anything a
user function computes (``Builder.watches``). ``EnqueueHandler`` applies a mapper
to informer events; it queues keys only, never objects (level-triggered).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from kubeforge.cache.informer import HandlerRegistration, Informer
from kubeforge.controller.predicate import Predicate
from kubeforge.core.objects import key_of, namespace_of, owner_references_of
from kubeforge.core.resource import ResourceInfo
from kubeforge.reconcile import Request

__all__ = ["EnqueueHandler", "Mapper", "enqueue_object", "enqueue_owner"]

log = logging.getLogger("kubeforge.controller")

Mapper: TypeAlias = Callable[[Any], Iterable[Request]]
"""``obj -> requests``: which keys an event about ``obj`` should queue."""


def enqueue_object(obj: Any) -> list[Request]:
    """The object's own key (controller-runtime's ``EnqueueRequestForObject``)."""
    return [Request.from_key(key_of(obj))]


def enqueue_owner(owner: ResourceInfo, *, match_every_owner: bool = False) -> Mapper:
    """A mapper to the keys of ``obj``'s owners of kind ``owner``.

    An owner reference counts when its apiVersion's group and its kind equal
    ``owner``'s (the version may differ) and, unless ``match_every_owner``, when
    it has ``controller: true`` (controller-runtime's ``OnlyControllerOwner``).
    The request's namespace is the dependent's for a namespaced owner and ``""``
    for a cluster-scoped one.
    """

    def owners(obj: Any) -> list[Request]:
        requests = []
        for ref in owner_references_of(obj):
            group = ref.api_version.rpartition("/")[0]
            if ref.kind != owner.kind or group != owner.group:
                continue
            if not match_every_owner and not ref.controller:
                continue
            namespace = namespace_of(obj) if owner.namespaced else ""
            requests.append(Request(namespace, ref.name))
        return requests

    return owners


class EnqueueHandler:
    """Informer handlers that map each event through ``mapper`` into ``enqueue``.

    Updates map both the old and the new object, merged without duplicates, so
    an object that stops pointing at an owner still triggers that owner.
    ``predicates`` must all pass for an event to count. A deletion the informer
    inferred from a relist (final state unknown) is treated as a deletion: a
    reconciler reads the present state, so the last known one is enough to map.
    """

    def __init__(
        self,
        mapper: Mapper,
        enqueue: Callable[[Request], None],
        predicates: Sequence[Predicate] = (),
    ) -> None:
        self.mapper = mapper
        self.enqueue = enqueue
        self.predicates = tuple(predicates)

    @property
    def reads_old_state(self) -> bool:
        """False when an update's old object cannot change what is queued: the object's
        own key is the same on both sides, and no predicate compares the two."""
        return self.mapper is not enqueue_object or bool(self.predicates)

    def on_add(self, obj: Any) -> None:
        if all(p.create(obj) for p in self.predicates):
            self._queue(self.mapper(obj))

    def on_update(self, old: Any, new: Any) -> None:
        if all(p.update(old, new) for p in self.predicates):
            self._queue(dict.fromkeys([*self.mapper(old), *self.mapper(new)]))

    def on_delete(self, obj: Any) -> None:
        if all(p.delete(obj) for p in self.predicates):
            self._queue(self.mapper(obj))

    def register(self, informer: Informer[Any]) -> HandlerRegistration[Any]:
        """Add these handlers to ``informer``; remove them with ``informer.remove_handler``."""
        return informer.add_handler(
            on_add=self.on_add,
            on_update=self.on_update,
            on_delete=self.on_delete,
            old_state=self.reads_old_state,
        )

    def _queue(self, requests: Iterable[Request]) -> None:
        for request in requests:
            self.enqueue(request)
