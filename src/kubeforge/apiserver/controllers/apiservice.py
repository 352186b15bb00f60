"""The ``default/kubernetes`` Service, its Endpoints and its EndpointSlice, as 1.32 keeps them.

kube-apiserver's ``kubernetesservice`` controller (``pkg/controlplane/controller``) and
its ``lease`` endpoint reconciler (``pkg/controlplane/reconcilers``, 1.32's default), every
10 s (``--endpoint-reconciler-type=lease``'s interval):

- the Service is created when missing: port 443 named ``https`` (TCP) to the server's
  secure port, ``clusterIP`` the first address of the service range, ``SingleStack``,
  ``sessionAffinity: None``, labels ``component=apiserver`` and ``provider=kubernetes``;
  once it exists it is left alone (1.32 passes ``reconcile=false``: an edited Service
  stays edited, a deleted one comes back);
- the Endpoints hold one subset with this server's address and port; the reconciler
  puts back the ``endpointslice.kubernetes.io/skip-mirror=true`` label, a lost or
  extra subset and other addresses, but not edited ports (``reconcilePorts`` is false);
- the EndpointSlice ``kubernetes`` (label ``kubernetes.io/service-name=kubernetes``) is
  made from those Endpoints (``EnsureEndpointSliceFromEndpoints``): its endpoints,
  ports and labels are put back when they differ, and a slice of another address
  type is replaced.

Entry point: ``KubernetesService(api, address, port)``, a ``poststart`` keeper.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kubeforge.apiserver.builtin.core.service_alloc import SERVICE_CIDR
from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError

__all__ = ["ENDPOINT_INTERVAL", "KUBERNETES_SERVICE", "KubernetesService"]

KUBERNETES_SERVICE = "kubernetes"
ENDPOINT_INTERVAL = 10.0
"""Seconds between passes (``DefaultEndpointReconcilerInterval``)."""
_NAMESPACE = "default"
_SERVICES = ("", "services")
_ENDPOINTS = ("", "endpoints")
_SLICES = ("discovery.k8s.io", "endpointslices")
_NAMESPACES = ("", "namespaces")
_SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror"
_SERVICE_NAME = "kubernetes.io/service-name"


def _meta(**extra: Any) -> dict[str, Any]:
    return {"name": KUBERNETES_SERVICE, "namespace": _NAMESPACE, **extra}


class KubernetesService:
    """Keeps ``default/kubernetes`` pointing at this server."""

    interval = ENDPOINT_INTERVAL

    def __init__(self, api: ControllerRequests, address: str, port: int) -> None:
        self.api = api
        self.address = address
        self.port = port
        self.ports = [{"name": "https", "port": port, "protocol": "TCP"}]

    async def sync(self) -> None:
        cluster = self.api.cluster
        default = cluster.get(_NAMESPACES, "", _NAMESPACE)
        if default is None or default["metadata"].get("deletionTimestamp"):
            return  # 1.32 waits for the namespace (the system-namespaces controller makes it)
        try:
            if cluster.get(_SERVICES, _NAMESPACE, KUBERNETES_SERVICE) is None:
                await self.api.create(_SERVICES, _NAMESPACE, self.service())
            endpoints = await self._endpoints()
            await self._slice(endpoints)
        except StatusError:
            return  # raced with a client; the next pass tries again

    def service(self) -> dict[str, Any]:
        labels = {"provider": "kubernetes", "component": "apiserver"}
        first = str(ipaddress.ip_address(int(SERVICE_CIDR.network_address) + 1))
        port = {"name": "https", "protocol": "TCP", "port": 443, "targetPort": self.port}
        spec = {
            "ports": [port],
            "clusterIP": first,
            "ipFamilyPolicy": "SingleStack",
            "sessionAffinity": "None",
            "type": "ClusterIP",
        }
        return {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(labels=labels),
            "spec": spec,
        }

    async def _endpoints(self) -> dict[str, Any]:
        """``leaseEndpointReconciler.doReconcile`` for the one address this server has."""
        current = self.api.cluster.get(_ENDPOINTS, _NAMESPACE, KUBERNETES_SERVICE)
        wanted: dict[str, Any] = copy(current) if current is not None else {"metadata": _meta()}
        wanted["apiVersion"], wanted["kind"] = "v1", "Endpoints"
        labels = dict(wanted["metadata"].get("labels") or {})
        changed = labels.get(_SKIP_MIRROR) != "true"
        labels[_SKIP_MIRROR] = "true"
        wanted["metadata"]["labels"] = labels
        subsets: list[dict[str, Any]] = wanted.get("subsets") or []
        if len(subsets) != 1:
            subsets = [{"addresses": [], "ports": self.ports}]
            changed = True
        addresses = [a.get("ip") for a in subsets[0].get("addresses") or [] if isinstance(a, dict)]
        if addresses != [self.address]:
            subsets[0]["addresses"] = [{"ip": self.address}]
            changed = True
        wanted["subsets"] = subsets
        if current is None:
            return await self.api.create(_ENDPOINTS, _NAMESPACE, wanted)
        if changed:
            return await self.api.update(_ENDPOINTS, wanted)
        return current

    async def _slice(self, endpoints: dict[str, Any]) -> None:
        """``EnsureEndpointSliceFromEndpoints``."""
        wanted = _slice_from(endpoints)
        current = self.api.cluster.get(_SLICES, _NAMESPACE, KUBERNETES_SERVICE)
        if current is not None and current.get("addressType") != wanted["addressType"]:
            await self.api.delete(_SLICES, _NAMESPACE, KUBERNETES_SERVICE)
            current = None
        if current is None:
            await self.api.create(_SLICES, _NAMESPACE, wanted)
            return
        keys = ("endpoints", "ports")
        same = all((current.get(k) or []) == (wanted.get(k) or []) for k in keys)
        if same and (current["metadata"].get("labels") or {}) == wanted["metadata"]["labels"]:
            return
        fixed = copy(current)
        fixed["metadata"]["labels"] = wanted["metadata"]["labels"]
        for key in keys:
            fixed[key] = wanted[key]
        await self.api.update(_SLICES, fixed)


def _slice_from(endpoints: dict[str, Any]) -> dict[str, Any]:
    """``endpointSliceFromEndpoints``: the first subset's ports and addresses (ready ones,
    then not-ready ones), IPv6 only when every address is."""
    subsets = endpoints.get("subsets") or [{}]
    subset = subsets[0]
    ready = [a for a in subset.get("addresses") or [] if isinstance(a, dict)]
    not_ready = [a for a in subset.get("notReadyAddresses") or [] if isinstance(a, dict)]
    everyone = ready + not_ready
    v6 = bool(everyone) and all(":" in str(a.get("ip") or "") for a in everyone)
    ports = [
        {"name": p.get("name", ""), "port": p.get("port"), "protocol": p.get("protocol")}
        for p in subset.get("ports") or []
        if isinstance(p, dict)
    ]
    listed = [_endpoint(a, True) for a in ready] + [_endpoint(a, False) for a in not_ready]
    meta = _meta(labels={_SERVICE_NAME: endpoints["metadata"]["name"]})
    body: dict[str, Any] = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": meta,
        "addressType": "IPv6" if v6 else "IPv4",
        "endpoints": listed,
        "ports": ports,
    }
    return body


def _endpoint(address: dict[str, Any], ready: bool) -> dict[str, Any]:
    endpoint: dict[str, Any] = {"addresses": [address.get("ip")], "conditions": {"ready": ready}}
    if address.get("targetRef"):
        endpoint["targetRef"] = address["targetRef"]
    if address.get("nodeName"):
        endpoint["nodeName"] = address["nodeName"]
    return endpoint
