"""Node lifecycle: a node that is not Ready is tainted, and its pods are evicted.

When a node's ``Ready`` condition turns ``False`` (or ``Unknown``) the node lifecycle
controller taints it ``node.kubernetes.io/not-ready`` (or ``unreachable``) with effects
``NoSchedule`` and ``NoExecute``; when it is Ready again the taints go. A cordoned node
(``spec.unschedulable``) gets ``node.kubernetes.io/unschedulable:NoSchedule`` until
uncordoned. The taint eviction controller then deletes every pod on the node that does
not tolerate a ``NoExecute`` taint, or once the smallest ``tolerationSeconds`` that lets
it stay has passed since the node was tainted (``eviction_delay``): it marks the pod
``DisruptionTarget`` (``DeletionByTaintManager``) and records ``TaintManagerEviction``
(``Marking for deletion Pod <ns>/<name>``) first.

A node whose kubelet stops posting (``nodehealth``) turns ``Unknown``; a node's
``Ready`` can also be written by hand, as a test does with ``kubectl patch node
--subresource=status``.

Entry point: ``NodeLifecycle(cluster, timing)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.heartbeat import HeartbeatTiming
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of
from kubeforge.apiserver.controllers.nodehealth import NodeHealth
from kubeforge.apiserver.controllers.ranking import is_active
from kubeforge.apiserver.controllers.scheduling import toleration_matches
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey

__all__ = ["NodeLifecycle", "eviction_delay"]

_NODES = ("", "nodes")
_PODS = ("", "pods")
_LEASES = ("coordination.k8s.io", "leases")
_BY_STATUS = {"False": "node.kubernetes.io/not-ready", "Unknown": "node.kubernetes.io/unreachable"}
_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_OURS = frozenset({*_BY_STATUS.values(), _UNSCHEDULABLE})


def _sooner(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _ready(node: dict[str, Any]) -> str:
    """The ``Ready`` condition's status; "" for a node that never posted one, which is
    left untainted until its startup grace period makes it ``Unknown``."""
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return str(condition.get("status"))
    return ""


def eviction_delay(pod: dict[str, Any], taints: list[dict[str, Any]]) -> float | None:
    """Seconds a pod may stay on a node with these ``NoExecute`` taints: 0 when one is not
    tolerated, None when it may stay for ever.

    As the taint eviction controller decides (``GetMatchingTolerations`` then
    ``getMinTolerationTime``): each taint is matched by the first toleration of the pod
    that tolerates it, and the smallest ``tolerationSeconds`` among those wins; a
    toleration without one only means "for ever" when none of them has one.
    """
    tolerations = [
        t for t in (pod.get("spec") or {}).get("tolerations") or [] if isinstance(t, dict)
    ]
    used = []
    for taint in taints:
        first = next((t for t in tolerations if toleration_matches(t, taint)), None)
        if first is None:
            return 0.0
        used.append(first)
    seconds = [
        float(t["tolerationSeconds"]) for t in used if t.get("tolerationSeconds") is not None
    ]
    if not seconds:
        return None
    return max(min(seconds), 0.0)


class NodeLifecycle(ControllerLoop):
    resource = _NODES
    account = "node-controller"

    def __init__(self, cluster: Cluster, timing: HeartbeatTiming | None = None) -> None:
        super().__init__(cluster)
        self._health = NodeHealth(self.api, timing or HeartbeatTiming())
        self._scheduled: dict[str, dict[str, float]] = {}
        """Per node, when each pod's eviction was scheduled (pod uid -> wall time)."""

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_NODES: self._node_keys, _LEASES: self._lease_keys, _PODS: self._pod_keys}

    def _node_keys(self, event: Event) -> Iterable[Key]:
        if event.type == "DELETED":
            self._health.forget(event.object["metadata"]["name"])
        return (key_of(event.object),)

    @staticmethod
    def _lease_keys(event: Event) -> Iterable[Key]:
        if event.object["metadata"].get("namespace") == "kube-node-lease":
            return (("", event.object["metadata"]["name"]),)
        return ()

    def _pod_keys(self, event: Event) -> Iterable[Key]:
        """A pod's node, when the pod may have to leave it: only a ``NoExecute`` taint
        evicts (the node's health and taints follow its own events and timers)."""
        name = (event.object.get("spec") or {}).get("nodeName")
        if event.type == "DELETED" or not name:
            return ()
        node = self.cluster.get(_NODES, "", str(name)) or {}
        taints = (node.get("spec") or {}).get("taints") or []
        if any(t.get("effect") == "NoExecute" for t in taints if isinstance(t, dict)):
            return (("", str(name)),)
        return ()

    async def sync(self, key: Key) -> float | None:
        node = self.cluster.get(_NODES, *key)
        if node is None:
            return None
        node, recheck = await self._health.check(node)
        node = await self._taint(node)
        return _sooner(recheck, await self._evict_untolerating(node))

    async def _evict_untolerating(self, node: dict[str, Any]) -> float | None:
        """Evict the pods that do not tolerate the node's ``NoExecute`` taints (long
        enough); the seconds until the next one is due, if any."""
        taints = [
            t
            for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") == "NoExecute"
        ]
        name = node["metadata"]["name"]
        if not taints:
            self._scheduled.pop(name, None)
            return None
        scheduled = self._scheduled.setdefault(name, {})
        now = self.cluster.wall_time()
        again: float | None = None
        for pod in self.cluster.list(_PODS):
            if (pod.get("spec") or {}).get("nodeName") != name or not is_active(pod):
                continue
            uid = str(pod["metadata"].get("uid"))
            delay = eviction_delay(pod, taints)
            if delay is None:
                scheduled.pop(uid, None)  # tolerated for ever: any scheduled eviction is off
                continue
            # Counted from when the eviction was first scheduled, as the controller's timed
            # work is (a taint's timeAdded is not what it reads).
            due = scheduled.setdefault(uid, now) + delay
            if due <= now:
                await self._evict(pod)
            else:
                again = _sooner(again, due - now)
        return again

    async def _taint(self, node: dict[str, Any]) -> dict[str, Any]:
        wanted_key = _BY_STATUS.get(_ready(node))
        taints = list((node.get("spec") or {}).get("taints") or [])
        cordoned = bool((node.get("spec") or {}).get("unschedulable"))
        kept = [
            t
            for t in taints
            if t.get("key") not in _OURS
            or t.get("key") == wanted_key
            or (t.get("key") == _UNSCHEDULABLE and cordoned)
        ]
        if cordoned and not any(t.get("key") == _UNSCHEDULABLE for t in kept):
            # TaintNodesByCondition: a cordon is also the NoSchedule taint schedulers read
            kept.append({"key": _UNSCHEDULABLE, "effect": "NoSchedule"})
        if wanted_key is not None:
            have = {t.get("effect") for t in kept if t.get("key") == wanted_key}
            for effect in ("NoSchedule", "NoExecute"):
                if effect not in have:
                    taint = {"key": wanted_key, "effect": effect}
                    if effect == "NoExecute":
                        taint["timeAdded"] = self.cluster.now()
                    kept.append(taint)
        if kept == taints:
            return node
        body = copy(node)
        if kept:
            body.setdefault("spec", {})["taints"] = kept
        else:
            body.setdefault("spec", {}).pop("taints", None)
        return await self.api.update(_NODES, body)

    async def _evict(self, pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        body = copy(pod)
        conditions = [
            c
            for c in (body.get("status") or {}).get("conditions") or []
            if c.get("type") != "DisruptionTarget"
        ]
        conditions.append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": self.cluster.now(),
                "reason": "DeletionByTaintManager",
                "message": "Taint manager: deleting due to NoExecute taint",
            }
        )
        body.setdefault("status", {})["conditions"] = conditions
        await self.api.update_status(_PODS, body)
        message = f"Marking for deletion Pod {meta['namespace']}/{meta['name']}"
        self.cluster.record(
            pod, "Normal", "TaintManagerEviction", message, component="taint-eviction-controller"
        )
        await self.api.delete(_PODS, meta["namespace"], meta["name"], uid=meta["uid"])
