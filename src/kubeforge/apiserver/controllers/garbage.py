"""The garbage collector of the simulated control plane (kube-controller-manager's GC).

Entry point: ``GarbageCollector``; runs only with the simulated node (without it the
server behaves like envtest, which has no garbage collector). It follows
``metadata.ownerReferences`` by uid and classifies each reference as the real
collector does (``attemptToDeleteItem``):

* *solid*: the owner exists and is not waiting for its dependents;
* *waiting*: the owner is being deleted in the foreground (``foregroundDeletion``);
* *dangling*: the owner is gone.

A dependent with a solid owner is kept, and its dangling and waiting references are
removed. A dependent with none is deleted: in the foreground when a waiting owner
must wait for its own dependents too, otherwise by its own GC finalizers
(``orphan`` / ``foregroundDeletion``), else in the background.

An owner deleted in the foreground keeps its ``foregroundDeletion`` finalizer while
any dependent that points at it with ``blockOwnerDeletion: true`` still exists; an
owner deleted with ``Orphan`` has its references removed from every dependent, then
the ``orphan`` finalizer removed.

A sweep runs shortly after any change that could matter (debounced), scanning
every stored object: simple, and cheap at the sizes a local server holds. Its cost
grows with them, though, so the wait before the next sweep grows with how long the last
one took (``_SHARE``): with tens of thousands of objects and a steady stream of deletes
the collector then takes a tenth of the server's time instead of all of it, and
collects a little later, as a busy real collector does. The time is the wall clock's:
on a machine shared with other work, the CPU time would leave it a larger share of the
little the server gets. Its deletes and updates are requests of
``system:serviceaccount:kube-system:generic-garbage-collector`` that admission webhooks
and policies see (``requests``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.admitting import controller_user
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.loop import StorageLoop
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.deletion import DeleteOptions
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.storage.sqlite import Event, clone

__all__ = ["GarbageCollector"]

_DEBOUNCE = 0.05
_SHARE = 10
"""The next sweep waits at least this many times as long as the last one took."""
_ORPHAN = "orphan"
_FOREGROUND = "foregroundDeletion"
_GC_FINALIZERS = (_FOREGROUND, _ORPHAN)


def _refs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    refs = obj["metadata"].get("ownerReferences") or []
    return [ref for ref in refs if isinstance(ref, dict)]


def _finalizers(obj: dict[str, Any]) -> list[str]:
    return list(obj["metadata"].get("finalizers") or [])


def _deleting(obj: dict[str, Any]) -> bool:
    return bool(obj["metadata"].get("deletionTimestamp"))


@dataclass(frozen=True)
class _Item:
    served: ServedResource
    obj: dict[str, Any]

    @property
    def uid(self) -> str:
        return str(self.obj["metadata"].get("uid"))


class _Graph:
    """One sweep's view: every object by uid, and who points at whom."""

    def __init__(self, items: list[_Item]) -> None:
        self.by_uid = {item.uid: item for item in items}
        self.dependents: dict[str, list[_Item]] = {}
        for item in items:
            for ref in _refs(item.obj):
                self.dependents.setdefault(str(ref.get("uid")), []).append(item)

    def waiting(self, uid: str) -> bool:
        owner = self.by_uid.get(uid)
        return owner is not None and _deleting(owner.obj) and _FOREGROUND in _finalizers(owner.obj)


class GarbageCollector(StorageLoop):
    """Deletes dependents whose owners are gone; serves Foreground and Orphan deletes."""

    delay = _DEBOUNCE

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster.engine, cluster.registry)
        self._api = ControllerRequests(cluster, controller_user("generic-garbage-collector"))
        self._kinds: dict[tuple[str, str], ServedResource] = {}

    def wants(self, event: Event) -> bool:
        meta = event.object["metadata"]
        before = (event.previous or {}).get("metadata") or {}
        # Sweeps scan everything, so only changes that can create garbage start one:
        # a deletion (an owner may be gone), new or changed owner references of which
        # one may dangle (a controller's new pod names a live owner: nothing to do), or
        # an object waiting for the collector's finalizers.
        return (
            event.type == "DELETED"
            or any(f in _GC_FINALIZERS for f in meta.get("finalizers") or [])
            or (
                meta.get("ownerReferences") != before.get("ownerReferences")
                and not self._owners_live(event.object)
            )
        )

    def _owners_live(self, obj: dict[str, Any]) -> bool:
        """Every owner ``obj`` names exists with that uid and is not being deleted."""
        namespace = obj["metadata"].get("namespace") or ""
        for ref in _refs(obj):
            served = self._served_kind(str(ref.get("apiVersion")), str(ref.get("kind")))
            if served is None:
                return False
            where = namespace if served.info.namespaced else ""
            owner = self._engine.storage.get(served.storage_key, where, str(ref.get("name")))
            if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
                return False
            if _deleting(owner):
                return False
        return True

    def _served_kind(self, api_version: str, kind: str) -> ServedResource | None:
        """The stored resource of a kind (remembered: a stale one finds no owner, and
        a sweep follows, which is always safe)."""
        key = (api_version.rpartition("/")[0], kind)
        if key not in self._kinds:
            self._kinds = {
                (r.info.group, r.info.kind): r for r in self._registry.resources() if r.storage
            }
        return self._kinds.get(key)

    def _items(self) -> Iterator[_Item]:
        for served in self._registry.resources():
            if served.storage:
                for obj in self._engine.storage.objects(served.storage_key):
                    yield _Item(served, obj)

    async def reconcile(self) -> None:
        began = time.perf_counter()
        graph = _Graph(list(self._items()))
        for item in graph.by_uid.values():
            try:
                await self._collect(item, graph)
            except StatusError:
                self._schedule()  # raced with a client; look again shortly
        self.delay = max(_DEBOUNCE, _SHARE * (time.perf_counter() - began))

    async def _collect(self, item: _Item, graph: _Graph) -> None:
        finalizers = _finalizers(item.obj)
        if _deleting(item.obj) and _ORPHAN in finalizers:
            for dependent in graph.dependents.get(item.uid, []):
                await self._drop_refs(dependent, {item.uid})
            await self._drop_finalizer(item, _ORPHAN)
        elif _deleting(item.obj) and _FOREGROUND in finalizers:
            if not any(
                ref.get("uid") == item.uid and ref.get("blockOwnerDeletion") is True
                for dependent in graph.dependents.get(item.uid, [])
                for ref in _refs(self._current(dependent) or {"metadata": {}})
            ):
                await self._drop_finalizer(item, _FOREGROUND)
        elif not _deleting(item.obj) and _refs(item.obj):
            await self._dependent(item, graph)

    async def _dependent(self, item: _Item, graph: _Graph) -> None:
        solid, gone = [], set()
        waiting = False
        for ref in _refs(item.obj):
            uid = str(ref.get("uid"))
            if uid not in graph.by_uid:
                gone.add(uid)
            elif graph.waiting(uid):
                gone.add(uid)
                waiting = True
            else:
                solid.append(uid)
        if solid:
            if gone:
                await self._drop_refs(item, gone)  # kept by a live owner: forget the others
            return
        finalizers = _finalizers(item.obj)
        if waiting and graph.dependents.get(item.uid):
            policy = "Foreground"  # a waiting owner waits for our dependents too
        elif _ORPHAN in finalizers:
            policy = "Orphan"
        elif _FOREGROUND in finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        await self._delete(item, policy)

    def _current(self, item: _Item) -> dict[str, Any] | None:
        meta = item.obj["metadata"]
        key = item.served.storage_key
        return self._engine.storage.get(key, meta.get("namespace") or "", meta["name"])

    async def _delete(self, item: _Item, policy: str) -> None:
        meta = item.obj["metadata"]
        options = DeleteOptions(
            propagation_policy=policy,
            precondition_uid=str(meta.get("uid")),
            precondition_rv=str(meta.get("resourceVersion")),
        )
        namespace = meta.get("namespace") or ""
        try:
            await self._api.admit_delete(item.served, namespace, meta["name"])
            deletion.delete(self._engine, item.served, namespace, meta["name"], options)
        except StatusError as error:
            if error.code != 404:
                raise

    async def _drop_refs(self, item: _Item, uids: set[str]) -> None:
        current = self._current(item)
        if current is None:
            return
        body = clone(current)
        kept = [ref for ref in _refs(body) if str(ref.get("uid")) not in uids]
        if len(kept) == len(_refs(body)):
            return
        if kept:
            body["metadata"]["ownerReferences"] = kept
        else:
            body["metadata"].pop("ownerReferences", None)
        await self._update(item.served, body)

    async def _drop_finalizer(self, item: _Item, finalizer: str) -> None:
        current = self._current(item)
        if current is None or finalizer not in _finalizers(current):
            return
        body = clone(current)
        body["metadata"]["finalizers"] = [f for f in _finalizers(body) if f != finalizer]
        await self._update(item.served, body)

    async def _update(self, served: ServedResource, body: dict[str, Any]) -> None:
        await self._api.update_object(served, body)
