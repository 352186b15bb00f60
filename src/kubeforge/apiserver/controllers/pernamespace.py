"""``PerNamespace``: the skeleton of the controllers that keep one object in every live
namespace (the ``default`` ServiceAccount, the ``kube-root-ca.crt`` ConfigMap).

A namespace is looked at when it appears, when ``concerns`` says a storage event touched
its object, and once for each existing namespace at start; ``ensure`` then runs after
the write that triggered it (never from inside the storage listener), and only for a
namespace that exists and is not terminating.

Entry point: subclass ``PerNamespace`` with ``concerns(event)`` and ``ensure(namespace)``
(a coroutine: its writes go through ``self.api`` as the ServiceAccount ``account``, and
admission sees them), constructed with the control plane's ``Cluster``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from kubeforge.apiserver.controllers.admitting import controller_user
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.eager import run_eagerly
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["PerNamespace"]

_NAMESPACES = ("", "namespaces")


class PerNamespace:
    """Calls ``ensure(namespace)`` whenever a namespace may need its object (re)made."""

    account = ""
    """The controller's ServiceAccount in kube-system."""

    def __init__(self, cluster: Cluster) -> None:
        self._engine = cluster.engine
        self._registry = cluster.registry
        self.api = ControllerRequests(cluster, controller_user(self.account))
        self._waiting: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[str] = set()
        self._unsubscribe: Any = None

    def concerns(self, event: Event) -> bool:
        """Whether ``event`` (not a namespace's) touched the kept object of its namespace."""
        raise NotImplementedError

    def ensure(self, namespace: str) -> Coroutine[Any, Any, None]:
        """Make the namespace's object right; the namespace exists and is not terminating."""
        raise NotImplementedError

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self._engine.storage.subscribe(self._on_event)
        for namespace in self._engine.storage.objects(_NAMESPACES):
            self._schedule(namespace["metadata"]["name"])

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._waiting):  # passes still waiting on admission end here
            task.cancel()

    def _on_event(self, event: Event) -> None:
        meta = event.object["metadata"]
        if event.resource == _NAMESPACES:
            if event.type == "ADDED":
                self._schedule(meta["name"])
        elif self.concerns(event):
            self._schedule(meta.get("namespace") or "")

    def _schedule(self, namespace: str) -> None:
        # Never write from inside a storage listener: run once the current write is done.
        if namespace not in self._pending and self._loop is not None:
            self._pending.add(namespace)
            self._loop.call_soon(self._run, namespace)

    def _run(self, namespace: str) -> None:
        self._pending.discard(namespace)
        ns = self._engine.storage.get(_NAMESPACES, "", namespace)
        if ns is None or ns["metadata"].get("deletionTimestamp"):
            return  # gone or terminating: its contents are going, not coming
        ran = run_eagerly(self.ensure(namespace))
        if isinstance(ran, asyncio.Task):  # waiting on admission: keep it alive till done
            self._waiting.add(ran)
            ran.add_done_callback(self._waiting.discard)
