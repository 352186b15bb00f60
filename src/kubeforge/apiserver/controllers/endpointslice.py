"""The EndpointSlice controller: a Service's pods as ``discovery.k8s.io/v1`` EndpointSlices.

For each Service with a selector, slices named ``<service>-xxxxx`` labelled
``kubernetes.io/service-name`` and ``endpointslice.kubernetes.io/managed-by:
endpointslice-controller.k8s.io``, owned by the Service, hold one endpoint per selected
pod with an IP (at most 100 a slice), grouped by resolved ports: ``addresses``, the
``ready``/``serving``/``terminating`` conditions (a terminating pod stays, not ready),
``nodeName`` and a ``targetRef``. A Service that selects nothing keeps one empty slice,
as the real controller's placeholder.

Entry point: ``EndpointSliceController(cluster)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.cluster import (
    copy,
    owner_reference,
)
from kubeforge.apiserver.controllers.endpoints import (
    located,
    resolve_ports,
    service_mappers,
    service_pods,
)
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper
from kubeforge.apiserver.controllers.ranking import is_ready
from kubeforge.apiserver.storage.sqlite import ResourceKey

__all__ = ["EndpointSliceController"]

_SERVICES = ("", "services")
_SLICES = ("discovery.k8s.io", "endpointslices")
_NAME_LABEL = "kubernetes.io/service-name"
_MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
_CONTROLLER = "endpointslice-controller.k8s.io"
_PER_SLICE = 100


def _endpoint(pod: dict[str, Any], publish: bool) -> dict[str, Any]:
    terminating = bool(pod["metadata"].get("deletionTimestamp"))
    serving = is_ready(pod) or publish
    conditions = {
        "ready": serving and not terminating,
        "serving": serving,
        "terminating": terminating,
    }
    return located(pod, {"addresses": [pod["status"]["podIP"]], "conditions": conditions})


class EndpointSliceController(ControllerLoop):
    resource = _SERVICES
    account = "endpointslice-controller"

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        owner: KeyMapper = lambda event: self.owned_keys(event.object, "Service")  # noqa: E731
        return {**service_mappers(self.cluster), _SLICES: owner}

    async def sync(self, key: Key) -> float | None:
        service = self.cluster.get(_SERVICES, *key)
        if service is None or service["metadata"].get("deletionTimestamp"):
            return None  # the garbage collector takes its slices with it
        if not (service.get("spec") or {}).get("selector"):
            return None
        wanted = self._desired(service)
        mine = [
            s
            for s in self.cluster.list(_SLICES, key[0])
            if (s["metadata"].get("labels") or {}).get(_NAME_LABEL) == key[1]
            and (s["metadata"].get("labels") or {}).get(_MANAGED_BY) == _CONTROLLER
        ]
        mine.sort(key=lambda s: s["metadata"]["name"])
        for slice_, (ports, endpoints) in zip(mine, wanted, strict=False):
            await self._write(service, slice_, ports, endpoints)
        for ports, endpoints in wanted[len(mine) :]:
            await self._write(service, None, ports, endpoints)
        for extra in mine[len(wanted) :]:
            meta = extra["metadata"]
            await self.api.delete(_SLICES, meta["namespace"], meta["name"], uid=meta["uid"])
        return None

    def _desired(
        self, service: dict[str, Any]
    ) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
        publish = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
        groups: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        for pod in sorted(service_pods(self.cluster, service), key=lambda p: p["metadata"]["name"]):
            ports = resolve_ports(service, pod)
            groups.setdefault(repr(ports), (ports, []))[1].append(_endpoint(pod, publish))
        wanted = [
            (ports, endpoints[i : i + _PER_SLICE])
            for ports, endpoints in groups.values()
            for i in range(0, len(endpoints), _PER_SLICE)
        ]
        return wanted or [([], [])]

    async def _write(
        self,
        service: dict[str, Any],
        current: dict[str, Any] | None,
        ports: list[dict[str, Any]],
        endpoints: list[dict[str, Any]],
    ) -> None:
        meta = service["metadata"]
        labels = {
            **(meta.get("labels") or {}),
            _NAME_LABEL: meta["name"],
            _MANAGED_BY: _CONTROLLER,
        }
        if (service.get("spec") or {}).get("clusterIP") == "None":
            labels["service.kubernetes.io/headless"] = ""
        if (
            current is not None
            and current.get("endpoints", []) == endpoints
            and current.get("ports", []) == ports
            and (current["metadata"].get("labels") or {}) == labels
        ):
            return
        body: dict[str, Any] = (
            copy(current)
            if current is not None
            else {
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "generateName": f"{meta['name']}-",
                    "ownerReferences": [owner_reference(service)],
                },
                "addressType": "IPv4",
            }
        )
        body["metadata"]["labels"] = labels
        body["metadata"].setdefault("annotations", {})[
            "endpoints.kubernetes.io/last-change-trigger-time"
        ] = self.cluster.now()
        for field, value in (("endpoints", endpoints), ("ports", ports)):
            if value:
                body[field] = value
            else:
                body.pop(field, None)
        if current is None:
            await self.api.create(_SLICES, meta["namespace"], body)
        else:
            await self.api.update(_SLICES, body)
