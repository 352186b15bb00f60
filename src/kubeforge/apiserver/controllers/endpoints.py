"""The Endpoints controller: a Service's pods as the ``v1`` Endpoints of the same name.

For a Service with a selector, every pod of its namespace that the selector matches and
that has an IP becomes an address (``addresses`` if ready or the Service publishes
not-ready addresses, else ``notReadyAddresses``), with its node and a ``targetRef``;
terminating pods are left out. Ports are the Service's, with ``targetPort`` resolved
against each pod's named container ports, so pods that resolve differently fall into
different subsets, as ``endpoints.RepackSubsets`` packs them. A Service without a
selector keeps whatever Endpoints its owner writes.

Entry points: ``EndpointsController(cluster)``; ``service_pods``, ``resolve_ports`` for
the EndpointSlice controller.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of, own_key
from kubeforge.apiserver.controllers.ranking import is_ready
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey

__all__ = [
    "EndpointsController",
    "located",
    "resolve_ports",
    "service_mappers",
    "service_pods",
]

_SERVICES = ("", "services")
_ENDPOINTS = ("", "endpoints")
_PODS = ("", "pods")
_TRIGGER = "endpoints.kubernetes.io/last-change-trigger-time"


def service_pods(cluster: Cluster, service: dict[str, Any]) -> list[dict[str, Any]]:
    """Pods the Service selects that have an IP and have not finished."""
    selector = (service.get("spec") or {}).get("selector") or {}
    return [
        pod
        for pod in cluster.list(_PODS, service["metadata"].get("namespace") or "")
        if selector_matches({"matchLabels": selector}, pod["metadata"].get("labels") or {})
        and (pod.get("status") or {}).get("podIP")
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    ]


def resolve_ports(service: dict[str, Any], pod: dict[str, Any]) -> list[dict[str, Any]]:
    """The Service's ports as this pod serves them (``podutil.FindPort``)."""
    ports = []
    for port in (service.get("spec") or {}).get("ports") or []:
        target = port.get("targetPort", port.get("port"))
        protocol = port.get("protocol", "TCP")
        if isinstance(target, str) and not target.isdigit():
            found = [
                p.get("containerPort")
                for c in (pod.get("spec") or {}).get("containers") or []
                for p in c.get("ports") or []
                if p.get("name") == target and p.get("protocol", "TCP") == protocol
            ]
            if not found:
                continue
            target = found[0]
        entry = {"port": int(target), "protocol": protocol}
        if port.get("name"):
            entry["name"] = port["name"]
        if port.get("appProtocol"):
            entry["appProtocol"] = port["appProtocol"]
        ports.append(entry)
    return ports


def service_mappers(cluster: Cluster) -> dict[ResourceKey, KeyMapper]:
    """The Services a storage event may change the endpoints of: a Service's own, and
    those selecting a pod's labels before or after its write."""

    def pod_keys(event: Event) -> list[Key]:
        namespace = event.object["metadata"].get("namespace") or ""
        if not cluster.has(_SERVICES, namespace):
            return []
        labels = [
            (obj["metadata"].get("labels") or {})
            for obj in (event.object, event.previous)
            if obj is not None
        ]
        return [
            key_of(service)
            for service in cluster.list(_SERVICES, namespace)
            if (service.get("spec") or {}).get("selector")
            and any(
                selector_matches({"matchLabels": service["spec"]["selector"]}, label)
                for label in labels
            )
        ]

    return {_SERVICES: own_key, _PODS: pod_keys}


def located(pod: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` (an address or endpoint) with the pod's ``targetRef`` and ``nodeName``."""
    meta = pod["metadata"]
    entry["targetRef"] = {
        "kind": "Pod",
        "namespace": meta.get("namespace"),
        "name": meta["name"],
        "uid": meta.get("uid"),
    }
    if (pod.get("spec") or {}).get("nodeName"):
        entry["nodeName"] = pod["spec"]["nodeName"]
    return entry


def _address(pod: dict[str, Any]) -> dict[str, Any]:
    return located(pod, {"ip": pod["status"]["podIP"]})


class EndpointsController(ControllerLoop):
    resource = _SERVICES
    account = "endpoint-controller"

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return service_mappers(self.cluster)

    async def sync(self, key: Key) -> float | None:
        service = self.cluster.get(_SERVICES, *key)
        current = self.cluster.get(_ENDPOINTS, *key)
        if service is None or service["metadata"].get("deletionTimestamp"):
            if current is not None and service is None:
                meta = current["metadata"]
                await self.api.delete(_ENDPOINTS, *key, uid=meta.get("uid", ""))
            return None
        if not (service.get("spec") or {}).get("selector"):
            return None  # endpoints of a Service without a selector are its owner's to write
        subsets = self._subsets(service)
        labels = dict(service["metadata"].get("labels") or {})
        if (service.get("spec") or {}).get("clusterIP") == "None":
            labels["service.kubernetes.io/headless"] = ""
        if (
            current is not None
            and current.get("subsets", []) == subsets
            and (current["metadata"].get("labels") or {}) == labels
        ):
            return None
        body: dict[str, Any] = (
            copy(current)
            if current
            else {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": key[1], "namespace": key[0]},
            }
        )
        body["metadata"]["labels"] = labels
        body["metadata"].setdefault("annotations", {})[_TRIGGER] = self.cluster.now()
        if subsets:
            body["subsets"] = subsets
        else:
            body.pop("subsets", None)
        if current is None:
            await self.api.create(_ENDPOINTS, key[0], body)
        else:
            await self.api.update(_ENDPOINTS, body)
        return None

    def _subsets(self, service: dict[str, Any]) -> list[dict[str, Any]]:
        publish = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
        groups: dict[str, dict[str, Any]] = {}
        for pod in sorted(service_pods(self.cluster, service), key=lambda p: p["status"]["podIP"]):
            if pod["metadata"].get("deletionTimestamp") and not publish:
                continue
            ports = resolve_ports(service, pod)
            if (service.get("spec") or {}).get("ports") and not ports:
                continue
            group = groups.setdefault(repr(ports), {"ports": ports})
            field = "addresses" if publish or is_ready(pod) else "notReadyAddresses"
            group.setdefault(field, []).append(_address(pod))
        subsets: list[dict[str, Any]] = []
        for group in groups.values():
            kinds = ("addresses", "notReadyAddresses")
            subset: dict[str, Any] = {k: group[k] for k in kinds if k in group}
            if group["ports"]:
                subset["ports"] = group["ports"]
            subsets.append(subset)
        return subsets
