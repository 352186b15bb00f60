"""The ``kube-root-ca.crt`` ConfigMap of every namespace, as kube-controller-manager's
root-CA publisher keeps it (``pkg/controller/certificates/rootcacertpublisher``, 1.32):
``ca.crt`` holds the CA that signs the server's certificate (the one the kubeconfig
trusts), created in each live namespace, created again when deleted, and put back when
its data or its ``kubernetes.io/description`` annotation is changed. On by default, as
in kube-controller-manager (``--controllers=*,-root-ca-cert-publisher`` turns it off).
Pods' ``kube-api-access-*`` volumes project it.

Entry point: ``RootCAPublisher(cluster, ca_pem)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.pernamespace import PerNamespace
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["ROOT_CA_CONFIGMAP", "ROOT_CA_CONTROLLER", "RootCAPublisher"]

ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
ROOT_CA_CONTROLLER = "root-ca-certificate-publisher-controller"
_CONFIGMAPS = ("", "configmaps")
_ANNOTATION = "kubernetes.io/description"
_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters."
)


class RootCAPublisher(PerNamespace):
    """Keeps ``kube-root-ca.crt`` in every namespace equal to the server's CA."""

    account = "root-ca-cert-publisher"

    def __init__(self, cluster: Cluster, ca_pem: str) -> None:
        super().__init__(cluster)
        self._data = {"ca.crt": ca_pem}

    def concerns(self, event: Event) -> bool:
        return (
            event.resource == _CONFIGMAPS
            and event.object["metadata"]["name"] == ROOT_CA_CONFIGMAP
            and (event.type == "DELETED" or not self._current(event.object))
        )

    def _current(self, configmap: dict[str, Any]) -> bool:
        """Its data is the CA and it still says what it is for (the publisher's check)."""
        annotations = configmap["metadata"].get("annotations") or {}
        return configmap.get("data") == self._data and bool(annotations.get(_ANNOTATION))

    async def ensure(self, namespace: str) -> None:
        current = self._engine.storage.get(_CONFIGMAPS, namespace, ROOT_CA_CONFIGMAP)
        try:
            if current is None:
                body = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {
                        "name": ROOT_CA_CONFIGMAP,
                        "annotations": {_ANNOTATION: _DESCRIPTION},
                    },
                    "data": dict(self._data),
                }
                await self.api.create(_CONFIGMAPS, namespace, body)
            elif not self._current(current):
                meta = dict(current["metadata"])
                meta["annotations"] = {**(meta.get("annotations") or {}), _ANNOTATION: _DESCRIPTION}
                fixed = {**current, "metadata": meta, "data": dict(self._data)}
                await self.api.update(_CONFIGMAPS, fixed)
        except StatusError:
            return  # raced with a client, or the namespace started terminating
