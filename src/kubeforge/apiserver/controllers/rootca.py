"""The ``kube-root-ca.crt`` ConfigMap of every namespace, as kube-controller-manager's
root-CA publisher keeps it: ``ca.crt`` holds the CA that signs the server's certificate
(the one the kubeconfig trusts), created in each live namespace, created again when
deleted and put back when changed. Pods' ``kube-api-access-*`` volumes project it.

Entry point: ``RootCAPublisher(engine, registry, ca_pem)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import TRUSTED
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["ROOT_CA_CONFIGMAP", "ROOT_CA_CONTROLLER", "RootCAPublisher"]

ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
ROOT_CA_CONTROLLER = "root-ca-certificate-publisher-controller"
_NAMESPACES = ("", "namespaces")
_CONFIGMAPS = ("", "configmaps")
_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters."
)


class RootCAPublisher:
    """Keeps ``kube-root-ca.crt`` in every namespace equal to the server's CA."""

    def __init__(self, engine: Engine, registry: Registry, ca_pem: str) -> None:
        self._engine = engine
        self._registry = registry
        self._data = {"ca.crt": ca_pem}
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
        elif (
            event.resource == _CONFIGMAPS
            and meta["name"] == ROOT_CA_CONFIGMAP
            and (event.type == "DELETED" or event.object.get("data") != self._data)
        ):
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
        served = self._registry.lookup("", "v1", "configmaps")
        assert served is not None  # built-in
        current = self._engine.storage.get(_CONFIGMAPS, namespace, ROOT_CA_CONFIGMAP)
        try:
            if current is None:
                body = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {
                        "name": ROOT_CA_CONFIGMAP,
                        "annotations": {"kubernetes.io/description": _DESCRIPTION},
                    },
                    "data": dict(self._data),
                }
                self._engine.create(served, namespace, body, TRUSTED)
            elif current.get("data") != self._data:
                fixed = {**current, "data": dict(self._data)}
                self._engine.update(served, namespace, ROOT_CA_CONFIGMAP, fixed, TRUSTED)
        except StatusError:
            return  # raced with a client, or the namespace started terminating
