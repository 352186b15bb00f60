"""The namespace controller of the simulated control plane: it empties deleted namespaces.

Entry point: ``NamespaceFinalizer`` (started with the simulated node; without it a
deleted namespace stays ``Terminating``, as on envtest). For a namespace with a
``deletionTimestamp`` it deletes every namespaced object in it (``Background``
propagation, as kube-controller-manager does), keeps the namespace's status
conditions saying what remains (``NamespaceContentRemaining``,
``NamespaceFinalizersRemaining`` and the three "deletion failure" conditions, worded
like the real controller's, so ``kubectl describe namespace`` reads the same), and
once nothing is left removes the ``kubernetes`` finalizer through ``/finalize``, so
the namespace disappears. Its deletes, its status writes and its ``/finalize`` are
requests of ``namespace-controller`` that admission sees (1.32's
``namespaced_resources_deleter.go``: ``UpdateStatus``, ``Finalize``), each object's
delete as the server's own deletecollection admits them (``propagationPolicy:
Background``); a refused status write is only logged there, so here it is dropped; a
refused ``/finalize`` is tried again after the back-off below; one
refused is ``NamespaceDeletionContentFailure`` (``ContentDeletionFailed``, ``Failed to
delete all resource types, <n> remaining: <errors>``, one error per resource) and the
namespace is looked at again after a back-off (5 ms doubling to 60 s, its workqueue's).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from kubeforge.apiserver.controllers.admitting import controller_user
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.eager import run_eagerly
from kubeforge.apiserver.controllers.podcontrol import Retries
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.deletion import DeleteOptions
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.storage.sqlite import Event, clone

__all__ = ["NamespaceFinalizer"]

_NAMESPACES = ("", "namespaces")
_MAX_BACKOFF = 60.0


def _conditions(
    remaining: Counter[str], finalizers: Counter[str], failed: dict[str, str]
) -> list[dict[str, str]]:
    """``(type, status, reason, message)`` of the real controller's termination conditions."""
    content = (
        "NamespaceDeletionContentFailure",
        "False",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    )
    if failed:  # makeDeleteContentCondition: the errors sorted, joined by ", "
        errors = ", ".join(sorted(failed.values()))
        message = f"Failed to delete all resource types, {len(failed)} remaining: {errors}"
        content = ("NamespaceDeletionContentFailure", "True", "ContentDeletionFailed", message)
    rows = [
        (
            "NamespaceDeletionDiscoveryFailure",
            "False",
            "ResourcesDiscovered",
            "All resources successfully discovered",
        ),
        (
            "NamespaceDeletionGroupVersionParsingFailure",
            "False",
            "ParsedGroupVersions",
            "All legacy kube types successfully parsed",
        ),
        content,
    ]
    if remaining:
        listed = ", ".join(f"{r} has {n} resource instances" for r, n in sorted(remaining.items()))
        rows.append(
            (
                "NamespaceContentRemaining",
                "True",
                "SomeResourcesRemain",
                f"Some resources are remaining: {listed}",
            )
        )
    else:
        rows.append(
            (
                "NamespaceContentRemaining",
                "False",
                "ContentRemoved",
                "All content successfully removed",
            )
        )
    if finalizers:
        listed = ", ".join(f"{f} in {n} resource instances" for f, n in sorted(finalizers.items()))
        rows.append(
            (
                "NamespaceFinalizersRemaining",
                "True",
                "SomeFinalizersRemain",
                f"Some content in the namespace has finalizers remaining: {listed}",
            )
        )
    else:
        rows.append(
            (
                "NamespaceFinalizersRemaining",
                "False",
                "ContentHasNoFinalizers",
                "All content-preserving finalizers finished",
            )
        )
    return [
        {"type": type_, "status": status, "reason": reason, "message": message}
        for type_, status, reason, message in rows
    ]


class NamespaceFinalizer:
    """Empties a deleted namespace, then removes its ``kubernetes`` finalizer."""

    def __init__(self, cluster: Cluster) -> None:
        self._engine = cluster.engine
        self._registry = cluster.registry
        self._api = ControllerRequests(cluster, controller_user("namespace-controller"))
        self._retries = Retries(cap=_MAX_BACKOFF)
        self._waiting: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[str] = set()
        self._terminating: set[str] = set()  # kept from events: checked on every write
        self._unsubscribe: Any = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self._engine.storage.subscribe(self._on_event)
        for ns in self._engine.storage.objects(_NAMESPACES):
            if ns["metadata"].get("deletionTimestamp"):
                self._terminating.add(ns["metadata"]["name"])
                self._schedule(ns["metadata"]["name"])

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._waiting):  # passes still waiting on admission end here
            task.cancel()

    def _on_event(self, event: Event) -> None:
        meta = event.object["metadata"]
        if event.resource == _NAMESPACES:
            if event.type == "DELETED":
                self._terminating.discard(meta["name"])
            elif meta.get("deletionTimestamp"):
                self._terminating.add(meta["name"])
                self._schedule(meta["name"])
        elif event.type != "ADDED" and meta.get("namespace") in self._terminating:
            # A deletion, or a finalizer removed from content: look at what remains.
            self._schedule(meta["namespace"])

    def _schedule(self, name: str) -> None:
        if name in self._pending or self._loop is None:
            return
        self._pending.add(name)
        self._loop.call_later(0.0, self._finalize, name)

    def _finalize(self, name: str) -> None:
        self._pending.discard(name)
        ran = run_eagerly(self._empty(name))
        if isinstance(ran, asyncio.Task):  # waiting on admission: keep it alive till done
            self._waiting.add(ran)
            ran.add_done_callback(self._waiting.discard)

    async def _empty(self, name: str) -> None:
        ns = self._engine.storage.get(_NAMESPACES, "", name)
        if ns is None or not ns["metadata"].get("deletionTimestamp"):
            return
        remaining: Counter[str] = Counter()
        finalizers: Counter[str] = Counter()
        failed: dict[str, str] = {}
        for served in self._registry.resources():
            if not served.info.namespaced or not served.storage:
                continue
            for obj in list(self._engine.storage.objects(served.storage_key, name)):
                if not obj["metadata"].get("deletionTimestamp"):
                    # Gone meanwhile or refused: counted below, and the next pass sees it.
                    try:
                        await self._delete(served, name, obj["metadata"]["name"])
                    except StatusError as error:
                        if error.code != 404:
                            failed.setdefault(served.info.group_resource, str(error))
                current = self._engine.storage.get(
                    served.storage_key, name, obj["metadata"]["name"]
                )
                if current is not None:
                    remaining[served.info.group_resource] += 1
                    finalizers.update(current["metadata"].get("finalizers") or [])
        await self._set_conditions(ns, remaining, finalizers, failed)
        if remaining:
            self._back_off(name, bool(failed))
            return  # DELETED events of the contents bring us back here
        ns = self._engine.storage.get(_NAMESPACES, "", name) or ns
        body = clone(ns)
        body.setdefault("spec", {})["finalizers"] = [
            f for f in (ns.get("spec") or {}).get("finalizers") or [] if f != "kubernetes"
        ]
        try:
            await self._api.finalize(body)
        except StatusError as error:
            # Refused (or raced): Delete fails and the key is queued again after a back-off.
            self._back_off(name, error.code != 404)
            return
        self._back_off(name, bool(failed))

    def _back_off(self, name: str, failed: bool) -> None:
        """Look at ``name`` again after its queue's back-off when this pass failed (no
        event will bring us back); forget its failures otherwise."""
        if failed and self._loop is not None:
            self._loop.call_later(self._retries.failed(name), self._schedule, name)
        else:
            self._retries.forget(name)

    async def _delete(self, served: ServedResource, namespace: str, name: str) -> None:
        options = DeleteOptions(propagation_policy="Background")
        await self._api.admit_delete(served, namespace, name, options)
        deletion.delete(self._engine, served, namespace, name, options)

    async def _set_conditions(
        self,
        ns: dict[str, Any],
        remaining: Counter[str],
        finalizers: Counter[str],
        failed: dict[str, str],
    ) -> None:
        wanted = _conditions(remaining, finalizers, failed)
        old = {c.get("type"): c for c in (ns.get("status") or {}).get("conditions") or []}
        now = self._engine.now()
        merged = []
        for condition in wanted:
            before = old.get(condition["type"])
            if before is not None and all(before.get(k) == v for k, v in condition.items()):
                merged.append(before)  # unchanged: keep its transition time
            else:
                merged.append({**condition, "lastTransitionTime": now})
        if merged == list(old.values()):
            return
        body = clone(ns)
        body.setdefault("status", {})["conditions"] = merged
        try:
            await self._api.update_status(_NAMESPACES, body)
        except StatusError as error:
            # A conflict is a race with a client: look again. Anything else (a webhook's
            # refusal) the real controller only logs, and carries on deleting.
            if error.code == 409:
                self._schedule(ns["metadata"]["name"])
