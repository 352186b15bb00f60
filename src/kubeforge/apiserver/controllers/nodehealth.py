"""Node health as the node lifecycle controller judges it: a node whose kubelet stopped
posting is ``Unknown``, and the pods of a node that stops being Ready are not ready.

The controller remembers, per node, when it last saw the kubelet's heartbeat change
(the Lease's ``renewTime``, the ``Ready`` condition's ``lastHeartbeatTime`` or status),
by its own clock, as ``tryUpdateNodeHealth`` does. Once ``--node-monitor-grace-period``
(50 s; ``--node-startup-grace-period``, 60 s, for a node that never posted ``Ready``)
passes without one, the ``Ready``, ``MemoryPressure``, ``DiskPressure`` and
``PIDPressure`` conditions become ``Unknown``: reason ``NodeStatusUnknown``, message
``Kubelet stopped posting node status.``, ``lastHeartbeatTime`` kept and
``lastTransitionTime`` now (or ``NodeStatusNeverUpdated`` / ``Kubelet never posted node
status.`` for one never posted). When ``Ready`` leaves ``True`` the node gets the
``NodeNotReady`` Event (``Node <name> status is now: NodeNotReady``) and each of its pods
``Ready=False`` and the Warning ``NodeNotReady`` (``Node is not ready``), as
``MarkPodsNotReady`` does.

Entry point: ``await NodeHealth(api, timing).check(node)`` (its writes are requests, ``requests``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.heartbeat import HeartbeatTiming
from kubeforge.apiserver.controllers.nodes import HEALTHY_CONDITIONS
from kubeforge.apiserver.controllers.ranking import is_active
from kubeforge.apiserver.controllers.requests import ControllerRequests

__all__ = ["NodeHealth"]

_NODES = ("", "nodes")
_PODS = ("", "pods")
_LEASES = ("coordination.k8s.io", "leases")
_COMPONENT = "node-controller"
_KUBELET_CONDITIONS = tuple(kind for kind, *_ in HEALTHY_CONDITIONS)


@dataclass
class _Seen:
    heartbeat: tuple[Any, ...]
    at: float
    ready: str


class NodeHealth:
    """What the controller last heard from each node, and when."""

    def __init__(self, api: ControllerRequests, timing: HeartbeatTiming) -> None:
        self._api = api
        self._cluster = api.cluster
        self._timing = timing
        self._seen: dict[str, _Seen] = {}

    def forget(self, name: str) -> None:
        self._seen.pop(name, None)

    async def check(self, node: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """The node as it stands after this look (marked ``Unknown`` if its kubelet went
        silent) and the seconds after which to look again."""
        name = node["metadata"]["name"]
        now = self._cluster.wall_time()
        heartbeat = self._heartbeat(node)
        seen = self._seen.get(name)
        if seen is None or seen.heartbeat != heartbeat:
            seen = self._seen[name] = _Seen(heartbeat, now, seen.ready if seen else "")
        ready = _condition(node, "Ready")
        grace = (
            self._timing.monitor_grace_period
            if ready is not None
            else self._timing.startup_grace_period
        )
        if now - seen.at >= grace and any(
            (_condition(node, kind) or {}).get("status") != "Unknown"
            for kind in _KUBELET_CONDITIONS
        ):
            node = await self._mark_unknown(node)
            seen.heartbeat = self._heartbeat(node)
        status = str((_condition(node, "Ready") or {}).get("status", "Unknown"))
        if seen.ready == "True" and status != "True":
            await self._not_ready(node)
        seen.ready = status
        return node, max(seen.at + grace - now, 0.0) + 0.01

    def _heartbeat(self, node: dict[str, Any]) -> tuple[Any, ...]:
        ready = _condition(node, "Ready") or {}
        lease = self._cluster.get(_LEASES, "kube-node-lease", node["metadata"]["name"]) or {}
        renewed = (lease.get("spec") or {}).get("renewTime")
        return ready.get("lastHeartbeatTime"), ready.get("status"), renewed

    async def _mark_unknown(self, node: dict[str, Any]) -> dict[str, Any]:
        now = self._cluster.now()
        body = copy(node)
        status = body.setdefault("status", {})
        conditions = list(status.get("conditions") or [])
        for kind in _KUBELET_CONDITIONS:
            current = next((c for c in conditions if c.get("type") == kind), None)
            if current is None:
                conditions.append(
                    {
                        "type": kind,
                        "status": "Unknown",
                        "lastHeartbeatTime": node["metadata"].get("creationTimestamp"),
                        "lastTransitionTime": now,
                        "reason": "NodeStatusNeverUpdated",
                        "message": "Kubelet never posted node status.",
                    }
                )
            elif current.get("status") != "Unknown":
                current.update(
                    status="Unknown",
                    reason="NodeStatusUnknown",
                    message="Kubelet stopped posting node status.",
                    lastTransitionTime=now,
                )
        status["conditions"] = conditions
        return await self._api.update_status(_NODES, body)

    async def _not_ready(self, node: dict[str, Any]) -> None:
        name = node["metadata"]["name"]
        message = f"Node {name} status is now: NodeNotReady"
        self._cluster.record(node, "Normal", "NodeNotReady", message, component=_COMPONENT)
        for pod in self._cluster.list(_PODS):
            if (pod.get("spec") or {}).get("nodeName") == name and is_active(pod):
                await self._mark_pod_not_ready(pod)

    async def _mark_pod_not_ready(self, pod: dict[str, Any]) -> None:
        body = copy(pod)
        ready = _condition(body, "Ready")
        if ready is None or ready.get("status") == "False":
            return
        ready.update(status="False", lastTransitionTime=self._cluster.now())
        await self._api.update_status(_PODS, body)
        self._cluster.record(
            pod, "Warning", "NodeNotReady", "Node is not ready", component=_COMPONENT
        )


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == kind:
            return condition
    return None
