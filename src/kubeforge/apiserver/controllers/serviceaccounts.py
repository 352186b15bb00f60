"""The ``default`` ServiceAccount of every namespace, as kube-controller-manager keeps it.

Part of the simulated control plane (off with ``--no-simulate-node``, as under envtest):
every namespace that is not terminating gets a ``default`` ServiceAccount, created
again if it is deleted, so ``kubectl create token default`` and pods running "as
default" find it as on a real cluster.

Entry point: ``DefaultServiceAccounts(engine, registry)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["DefaultServiceAccounts"]

_NAMESPACES = ("", "namespaces")
_ACCOUNTS = ("", "serviceaccounts")
_NAME = "default"


class DefaultServiceAccounts:
    """Creates the ``default`` ServiceAccount wherever it is missing."""

    def __init__(self, engine: Engine, registry: Registry) -> None:
        self._engine = engine
        self._registry = registry
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[str] = set()
        self._unsubscribe: Any = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self._engine.storage.subscribe(self._on_event)
        for namespace in self._engine.storage.objects(_NAMESPACES):
            self._schedule(namespace["metadata"]["name"])

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_event(self, event: Event) -> None:
        meta = event.object["metadata"]
        if event.resource == _NAMESPACES and event.type == "ADDED":
            self._schedule(meta["name"])
        elif event.resource == _ACCOUNTS and event.type == "DELETED" and meta["name"] == _NAME:
            self._schedule(meta.get("namespace") or "")

    def _schedule(self, namespace: str) -> None:
        # Never write from inside a storage listener: run once the current write is done.
        if namespace not in self._pending and self._loop is not None:
            self._pending.add(namespace)
            self._loop.call_soon(self._ensure, namespace)

    def _ensure(self, namespace: str) -> None:
        self._pending.discard(namespace)
        ns = self._engine.storage.get(_NAMESPACES, "", namespace)
        if ns is None or ns["metadata"].get("deletionTimestamp"):
            return  # gone or terminating: its contents are going, not coming
        if self._engine.storage.get(_ACCOUNTS, namespace, _NAME) is not None:
            return
        served = self._registry.lookup("", "v1", "serviceaccounts")
        assert served is not None  # built-in
        body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": _NAME}}
        try:
            self._engine.create(served, namespace, body)
        except StatusError:
            return  # raced with a client creating it, or the namespace started terminating
