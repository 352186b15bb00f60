"""The disruption controller (kube-controller-manager's ``disruption-controller``): the
status of every PodDisruptionBudget, which the eviction subresource reads.

For each budget: the pods its selector matches (a nil selector matches none, an empty
one all, as policy/v1 says), how many are expected (the pod count for an integer
``minAvailable``; the scale of the pods' controllers otherwise), how many must stay
healthy, how many are (Ready, not being deleted, not just evicted), so
``disruptionsAllowed``, the ``DisruptionAllowed`` condition (SufficientPods or
InsufficientPods) and ``observedGeneration``. Evictions the controller has not yet seen
go (``disruptedPods``) once their pod is gone or after two minutes, as there.

Entry points: ``DisruptionController`` (a ``StorageLoop``), ``budget_status`` (pure).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from kubeforge.apiserver.controllers.admitting import controller_user
from kubeforge.apiserver.controllers.cluster import Cluster, controller_of
from kubeforge.apiserver.controllers.loop import StorageLoop
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["DISRUPTION_CONTROLLER", "DisruptionController", "budget_status", "is_ready"]

DISRUPTION_CONTROLLER = "disruption-controller"
_BUDGETS = ("policy", "poddisruptionbudgets")
_PODS = ("", "pods")
_SCALED = {
    "ReplicaSet": ("apps", "replicasets"),
    "StatefulSet": ("apps", "statefulsets"),
    "ReplicationController": ("", "replicationcontrollers"),
    "Deployment": ("apps", "deployments"),
}
_DISRUPTION_TIMEOUT = 120.0


def is_ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def matched_pods(budget: dict[str, Any], pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    selector = (budget.get("spec") or {}).get("selector")
    if selector is None:
        return []
    return [p for p in pods if selector_matches(selector, p["metadata"].get("labels"))]


def _scaled_value(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        share = int(value[:-1]) * total / 100
        return math.ceil(share) if round_up else math.floor(share)
    return int(value)


def _expected_scale(cluster: Cluster, pods: list[dict[str, Any]]) -> int:
    """The replicas of the pods' controllers (a Deployment's for its ReplicaSets' pods)."""
    seen: dict[tuple[str, str], int] = {}
    for pod in pods:
        ref = controller_of(pod)
        if ref is None or ref.get("kind") not in _SCALED:
            return len(pods)  # the real controller gives up here; counting the pods is closest
        owner = cluster.get(_SCALED[ref["kind"]], pod["metadata"]["namespace"], ref["name"])
        if owner is None:
            continue
        parent = controller_of(owner)
        if (
            ref["kind"] == "ReplicaSet"
            and parent is not None
            and parent.get("kind") == "Deployment"
        ):
            owner = (
                cluster.get(_SCALED["Deployment"], owner["metadata"]["namespace"], parent["name"])
                or owner
            )
        key = (owner.get("kind", ""), owner["metadata"]["name"])
        seen[key] = int((owner.get("spec") or {}).get("replicas", 1))
    return sum(seen.values())


def budget_status(
    budget: dict[str, Any], pods: list[dict[str, Any]], expected_scale: int, now: float
) -> dict[str, Any]:
    """The status the controller writes for ``budget`` given its matching ``pods``."""
    spec, status = budget.get("spec") or {}, budget.get("status") or {}
    names = {p["metadata"]["name"]: p for p in pods}
    disrupted = {
        name: when
        for name, when in (status.get("disruptedPods") or {}).items()
        if name in names
        and not names[name]["metadata"].get("deletionTimestamp")
        and _age(when, now) < _DISRUPTION_TIMEOUT
    }
    if spec.get("maxUnavailable") is not None:
        expected = expected_scale
        desired = max(0, expected - _scaled_value(spec["maxUnavailable"], expected, True))
    elif isinstance(spec.get("minAvailable"), int):
        expected = len(pods)
        desired = spec["minAvailable"]
    else:
        expected = expected_scale
        desired = _scaled_value(spec.get("minAvailable", "100%"), expected, True)
    healthy = sum(
        1
        for p in pods
        if is_ready(p)
        and not p["metadata"].get("deletionTimestamp")
        and p["metadata"]["name"] not in disrupted
    )
    allowed = max(0, healthy - desired) if expected > 0 else 0
    generation = budget["metadata"].get("generation", 1)
    result = {
        "observedGeneration": generation,
        "disruptionsAllowed": allowed,
        "currentHealthy": healthy,
        "desiredHealthy": desired,
        "expectedPods": expected,
        "conditions": [disruption_condition(allowed, generation, status.get("conditions"), now)],
    }
    if disrupted:
        result["disruptedPods"] = disrupted
    return result


def disruption_condition(allowed: int, generation: int, old: Any, now: float) -> dict[str, Any]:
    """``DisruptionAllowed`` as ``UpdateDisruptionAllowedCondition`` sets it (the transition
    time moves only when the status does)."""
    state = "True" if allowed > 0 else "False"
    previous = next((c for c in old or [] if c.get("type") == "DisruptionAllowed"), None)
    since = (
        previous["lastTransitionTime"]
        if previous and previous.get("status") == state
        else _stamp(now)
    )
    return {
        "type": "DisruptionAllowed",
        "status": state,
        "observedGeneration": generation,
        "lastTransitionTime": since,
        "reason": "SufficientPods" if allowed > 0 else "InsufficientPods",
        "message": "",
    }


def _stamp(now: float) -> str:
    return datetime.fromtimestamp(int(now), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _age(stamp: Any, now: float) -> float:
    try:
        when = datetime.strptime(str(stamp), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return _DISRUPTION_TIMEOUT
    return now - when.timestamp()


class DisruptionController(StorageLoop):
    """Recomputes every budget's status when budgets or pods change."""

    delay = 0.05

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster.engine, cluster.registry)
        self._cluster = cluster
        self._api = ControllerRequests(cluster, controller_user("disruption-controller"))

    def wants(self, event: Event) -> bool:
        return event.resource in (_BUDGETS, _PODS) and not (
            event.resource == _BUDGETS and event.type == "DELETED"
        )

    async def reconcile(self) -> None:
        cluster = self._cluster
        for budget in cluster.list(_BUDGETS):
            namespace = budget["metadata"]["namespace"]
            pods = matched_pods(budget, cluster.list(_PODS, namespace))
            status = budget_status(
                budget, pods, _expected_scale(cluster, pods), cluster.wall_time()
            )
            if status != budget.get("status"):
                await self._api.update_status(_BUDGETS, {**budget, "status": status})
