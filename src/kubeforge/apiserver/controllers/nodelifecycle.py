"""Node lifecycle: a node that is not Ready is tainted, and its pods are evicted.

When a node's ``Ready`` condition turns ``False`` (or ``Unknown``) the node lifecycle
controller taints it ``node.kubernetes.io/not-ready`` (or ``unreachable``) with effects
``NoSchedule`` and ``NoExecute``; when it is Ready again the taints go. A cordoned node
(``spec.unschedulable``) gets ``node.kubernetes.io/unschedulable:NoSchedule`` until
uncordoned. The taint eviction controller then deletes every pod on the node that does
not tolerate a ``NoExecute`` taint, or once its ``tolerationSeconds`` have passed since
the taint was added: it marks the pod ``DisruptionTarget`` (``DeletionByTaintManager``) and records
``TaintManagerEviction`` (``Marking for deletion Pod <ns>/<name>``) first.

Simulated nodes report Ready until told otherwise: write their status, as a test does
with ``kubectl patch node --subresource=status``.

Entry point: ``NodeLifecycle(cluster)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, key_of
from kubeforge.apiserver.controllers.ranking import is_active, parse_time
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["NodeLifecycle"]

_NODES = ("", "nodes")
_PODS = ("", "pods")
_BY_STATUS = {"False": "node.kubernetes.io/not-ready", "Unknown": "node.kubernetes.io/unreachable"}
_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_OURS = frozenset({*_BY_STATUS.values(), _UNSCHEDULABLE})


def _ready(node: dict[str, Any]) -> str:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return str(condition.get("status"))
    return "Unknown"


def _toleration_seconds(pod: dict[str, Any], taint: dict[str, Any]) -> float | None:
    """None: not tolerated; inf: tolerated for ever; else seconds tolerated."""
    best: float | None = None
    for toleration in (pod.get("spec") or {}).get("tolerations") or []:
        if toleration.get("effect") not in (None, "", taint.get("effect")):
            continue
        key = toleration.get("key")
        if toleration.get("operator") == "Exists":
            matches = not key or key == taint.get("key")
        else:
            matches = key == taint.get("key") and (toleration.get("value") or "") == (
                taint.get("value") or ""
            )
        if matches:
            seconds = toleration.get("tolerationSeconds")
            value = float("inf") if seconds is None else max(float(seconds), 0.0)
            best = value if best is None else max(best, value)
    return best


class NodeLifecycle(ControllerLoop):
    resource = _NODES

    def keys_for(self, event: Event) -> Iterable[Key]:
        if event.resource == _NODES:
            return (key_of(event.object),)
        if event.resource == _PODS and event.type != "DELETED":
            node = (event.object.get("spec") or {}).get("nodeName")
            if node:
                return (("", str(node)),)
        return ()

    def sync(self, key: Key) -> float | None:
        node = self.cluster.get(_NODES, *key)
        if node is None:
            return None
        node = self._taint(node)
        taints = [
            t
            for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") == "NoExecute"
        ]
        if not taints:
            return None
        now = self.cluster.wall_time()
        again: float | None = None
        for pod in self.cluster.list(_PODS):
            if (pod.get("spec") or {}).get("nodeName") != key[1] or not is_active(pod):
                continue
            due = self._eviction_time(pod, taints, now)
            if due is None:
                continue
            if due <= now:
                self._evict(pod)
            else:
                again = due - now if again is None else min(again, due - now)
        return again

    def _taint(self, node: dict[str, Any]) -> dict[str, Any]:
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
        return self.cluster.update(_NODES, body)

    @staticmethod
    def _eviction_time(
        pod: dict[str, Any], taints: list[dict[str, Any]], now: float
    ) -> float | None:
        due: float | None = None
        for taint in taints:
            seconds = _toleration_seconds(pod, taint)
            if seconds == float("inf"):
                continue
            added = parse_time(taint.get("timeAdded")) or now
            when = now if seconds is None else added + seconds
            due = when if due is None else min(due, when)
        return due

    def _evict(self, pod: dict[str, Any]) -> None:
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
        self.cluster.update_status(_PODS, body)
        message = f"Marking for deletion Pod {meta['namespace']}/{meta['name']}"
        self.cluster.record(
            pod, "Normal", "TaintManagerEviction", message, component="taint-eviction-controller"
        )
        self.cluster.delete(_PODS, meta["namespace"], meta["name"], uid=meta["uid"])
