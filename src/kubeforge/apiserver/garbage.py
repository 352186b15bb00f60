"""The garbage collector of the simulated control plane (kube-controller-manager's GC).

Entry point: ``GarbageCollector``; runs only with the simulated node (without it the
server behaves like envtest, which has no garbage collector). It follows
``metadata.ownerReferences`` by uid:

* Background: a dependent none of whose owners exists any more is deleted.
* Foreground (owner carries the ``foregroundDeletion`` finalizer): the owner's
  dependents are deleted first, then the finalizer is removed, so the owner goes.
* Orphan (``orphan`` finalizer): the owner's references are removed from its
  dependents, then the finalizer is removed.

A sweep runs shortly after any change that could matter (debounced), scanning
every stored object: simple, and cheap at the sizes a local server holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from kubeforge.apiserver import deletion
from kubeforge.apiserver.deletion import DeleteOptions
from kubeforge.apiserver.engine import Engine, storage_key
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry import Registry, ServedResource
from kubeforge.apiserver.storage import Event, clone

__all__ = ["GarbageCollector"]

_DEBOUNCE = 0.05
_GC_FINALIZERS = ("foregroundDeletion", "orphan")


def _owner_uids(obj: dict[str, Any]) -> list[str]:
    refs = obj["metadata"].get("ownerReferences") or []
    return [str(ref.get("uid")) for ref in refs if isinstance(ref, dict)]


class GarbageCollector:
    """Deletes dependents whose owners are gone; serves Foreground and Orphan deletes."""

    def __init__(self, engine: Engine, registry: Registry) -> None:
        self._engine = engine
        self._registry = registry
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = False
        self._unsubscribe: Any = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self._engine.storage.subscribe(self._on_event)
        self._schedule()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_event(self, event: Event) -> None:
        meta = event.object["metadata"]
        before = (event.previous or {}).get("metadata") or {}
        # Sweeps scan everything, so only changes that can create garbage start one:
        # a deletion (an owner may be gone), new or changed owner references (one may
        # dangle), or an object waiting for the collector's finalizers.
        relevant = (
            event.type == "DELETED"
            or meta.get("ownerReferences") != before.get("ownerReferences")
            or any(f in _GC_FINALIZERS for f in meta.get("finalizers") or [])
        )
        if relevant:
            self._schedule()

    def _schedule(self) -> None:
        if self._pending or self._loop is None:
            return
        self._pending = True
        self._loop.call_later(_DEBOUNCE, self._sweep)

    def _objects(self) -> Iterator[tuple[ServedResource, dict[str, Any]]]:
        for served in self._registry.resources():
            if served.storage:
                for obj in self._engine.storage.objects(storage_key(served.info)):
                    yield served, obj

    def _sweep(self) -> None:
        self._pending = False
        everything = list(self._objects())
        live = {str(obj["metadata"].get("uid")) for _, obj in everything}
        dependents: dict[str, list[tuple[ServedResource, dict[str, Any]]]] = {}
        for served, obj in everything:
            for uid in _owner_uids(obj):
                dependents.setdefault(uid, []).append((served, obj))
        for served, obj in everything:
            try:
                self._collect(served, obj, live, dependents)
            except StatusError:
                self._schedule()  # raced with a client; look again shortly

    def _collect(
        self,
        served: ServedResource,
        obj: dict[str, Any],
        live: set[str],
        dependents: dict[str, list[tuple[ServedResource, dict[str, Any]]]],
    ) -> None:
        meta = obj["metadata"]
        finalizers = meta.get("finalizers") or []
        uid = str(meta.get("uid"))
        if meta.get("deletionTimestamp") and "orphan" in finalizers:
            for dep_served, dep in dependents.get(uid, []):
                body = clone(dep)
                body["metadata"]["ownerReferences"] = [
                    ref
                    for ref in body["metadata"].get("ownerReferences") or []
                    if ref.get("uid") != uid
                ]
                self._update(dep_served, body)
            self._drop_finalizer(served, obj, "orphan")
        elif meta.get("deletionTimestamp") and "foregroundDeletion" in finalizers:
            waiting = dependents.get(uid, [])
            for dep_served, dep in waiting:
                if not dep["metadata"].get("deletionTimestamp"):
                    self._delete(dep_served, dep)
            if not waiting:
                self._drop_finalizer(served, obj, "foregroundDeletion")
        else:
            owners = _owner_uids(obj)
            if owners and not meta.get("deletionTimestamp") and not live.intersection(owners):
                self._delete(served, obj)

    def _delete(self, served: ServedResource, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        options = DeleteOptions(propagation_policy="Background")
        try:
            deletion.delete(
                self._engine, served, meta.get("namespace") or "", meta["name"], options
            )
        except StatusError as error:
            if error.code != 404:
                raise

    def _update(self, served: ServedResource, body: dict[str, Any]) -> None:
        meta = body["metadata"]
        self._engine.update(served, meta.get("namespace") or "", meta["name"], body, trusted=True)

    def _drop_finalizer(self, served: ServedResource, obj: dict[str, Any], finalizer: str) -> None:
        body = clone(obj)
        body["metadata"]["finalizers"] = [
            f for f in body["metadata"].get("finalizers") or [] if f != finalizer
        ]
        self._update(served, body)
