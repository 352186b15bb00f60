"""A Deployment's status and its Available / Progressing conditions (``sync.go``, ``progress.go``).

Counts are summed over its ReplicaSets' statuses (``updatedReplicas`` from the new one).
``Available`` is ``MinimumReplicasAvailable`` once at most ``maxUnavailable`` pods are
missing. ``Progressing`` says ``NewReplicaSetCreated``, ``FoundNewReplicaSet``,
``ReplicaSetUpdated`` while pods move, ``NewReplicaSetAvailable`` when complete,
``ProgressDeadlineExceeded`` once ``progressDeadlineSeconds`` pass without progress, and
``DeploymentPaused`` / ``DeploymentResumed`` around a pause; messages as the real ones.
During a rollout (``syncRolloutStatus``) a ReplicaSet's ``ReplicaFailure`` condition (the
new set's first, then the old ones') is copied onto the Deployment, and removed once no
set has one.

Entry points: ``write_status``, ``calculate_status``, ``set_condition``,
``rollout_progress``, ``condition``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.ranking import parse_time
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.controllers.rollout import surge_and_unavailable

__all__ = [
    "calculate_status",
    "complete",
    "condition",
    "replica_failure",
    "rollout_progress",
    "set_condition",
    "write_status",
]

_DEPLOYMENTS = ("apps", "deployments")

_UNLIMITED = 2**31 - 1


def condition(status: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for item in status.get("conditions") or []:
        if item.get("type") == kind:
            return dict(item)
    return None


def set_condition(
    status: dict[str, Any],
    kind: str,
    state: str,
    reason: str,
    message: str,
    now: str,
    *,
    refresh: bool = False,
) -> None:
    """``SetDeploymentCondition``: a condition of the same status and reason stays as it is
    (unless ``refresh``, as progress does); one of the same status keeps its transition
    time; the new condition goes last."""
    current = condition(status, kind)
    same_status = current is not None and current.get("status") == state
    if same_status and current is not None and current.get("reason") == reason and not refresh:
        return
    since = current.get("lastTransitionTime") if same_status and current is not None else now
    new = {
        "type": kind,
        "status": state,
        "lastUpdateTime": now,
        "lastTransitionTime": since or now,
        "reason": reason,
        "message": message,
    }
    others = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    status["conditions"] = [*others, new]


def calculate_status(
    deployment: dict[str, Any], all_sets: list[dict[str, Any]], new: dict[str, Any] | None, now: str
) -> dict[str, Any]:
    spec = deployment.get("spec") or {}
    old_status = deployment.get("status") or {}

    def total(field: str, sets: list[dict[str, Any]]) -> int:
        return sum(int((rs.get("status") or {}).get(field) or 0) for rs in sets)

    replicas = int(spec.get("replicas", 1))
    available = total("availableReplicas", all_sets)
    counts = {
        "observedGeneration": deployment["metadata"].get("generation") or 0,
        "replicas": total("replicas", all_sets),
        "updatedReplicas": total("replicas", [new] if new else []),
        "readyReplicas": total("readyReplicas", all_sets),
        "availableReplicas": available,
        "unavailableReplicas": max(replicas - available, 0),
        "collisionCount": old_status.get("collisionCount") or 0,
    }
    status: dict[str, Any] = {k: v for k, v in counts.items() if v}
    status["conditions"] = [dict(c) for c in old_status.get("conditions") or []]
    _, unavailable = surge_and_unavailable(deployment)
    if available >= replicas - unavailable:
        set_condition(
            status,
            "Available",
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            now,
        )
    else:
        set_condition(
            status,
            "Available",
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
            now,
        )
    return status


def complete(deployment: dict[str, Any], status: dict[str, Any]) -> bool:
    """``DeploymentComplete``: every replica updated and available, nothing old left."""
    replicas = int((deployment.get("spec") or {}).get("replicas", 1))
    return bool(
        status.get("updatedReplicas", 0) == replicas
        and status.get("replicas", 0) == replicas
        and status.get("availableReplicas", 0) == replicas
        and status.get("observedGeneration", 0) >= (deployment["metadata"].get("generation") or 0)
    )


def _progressing(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return bool(
        new.get("updatedReplicas", 0) > old.get("updatedReplicas", 0)
        or new.get("replicas", 0) < old.get("replicas", 0)
        or new.get("readyReplicas", 0) > old.get("readyReplicas", 0)
        or new.get("availableReplicas", 0) > old.get("availableReplicas", 0)
    )


def rollout_progress(
    deployment: dict[str, Any],
    status: dict[str, Any],
    new: dict[str, Any] | None,
    now: str,
    wall: float,
) -> float | None:
    """Update ``status``'s Progressing condition; seconds until the deadline, if one runs."""
    deadline = (deployment.get("spec") or {}).get("progressDeadlineSeconds", 600)
    if deadline is None or deadline == _UNLIMITED:
        status["conditions"] = [c for c in status["conditions"] if c.get("type") != "Progressing"]
        return None
    current = condition(status, "Progressing")
    if (
        current is not None
        and current.get("reason") == "NewReplicaSetAvailable"
        and status.get("replicas", 0) == status.get("updatedReplicas", 0)
    ):
        return None
    name = new["metadata"]["name"] if new else ""
    if complete(deployment, status):
        message = (
            f'ReplicaSet "{name}" has successfully progressed.'
            if new
            else "Deployment has successfully progressed."
        )
        set_condition(status, "Progressing", "True", "NewReplicaSetAvailable", message, now)
        return None
    if _progressing(deployment.get("status") or {}, status):
        message = f'ReplicaSet "{name}" is progressing.'
        set_condition(
            status, "Progressing", "True", "ReplicaSetUpdated", message, now, refresh=True
        )
        return float(deadline)
    if current is not None and current.get("reason") != "ProgressDeadlineExceeded":
        since = parse_time(current.get("lastUpdateTime")) or wall
        if since + deadline <= wall:
            set_condition(
                status,
                "Progressing",
                "False",
                "ProgressDeadlineExceeded",
                f'ReplicaSet "{name}" has timed out progressing.',
                now,
            )
            return None
        return float(since + deadline - wall)
    return None


def replica_failure(
    sets: list[dict[str, Any]], new: dict[str, Any] | None
) -> dict[str, Any] | None:
    """``getReplicaFailures``: the new set's ``ReplicaFailure``, else an old set's, as a
    Deployment condition (both times are the set condition's transition time)."""
    ordered = ([new] if new is not None else []) + [
        rs for rs in sets if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]
    ]
    for rs in ordered:
        found = condition(rs.get("status") or {}, "ReplicaFailure")
        if found is not None:
            since = found.get("lastTransitionTime")
            return {
                "type": "ReplicaFailure",
                "status": found.get("status"),
                "lastUpdateTime": since,
                "lastTransitionTime": since,
                "reason": found.get("reason"),
                "message": found.get("message"),
            }
    return None


def _move_replica_failure(
    status: dict[str, Any], sets: list[dict[str, Any]], new: dict[str, Any] | None
) -> None:
    failure = replica_failure(sets, new)
    conditions = status.get("conditions") or []
    current = condition(status, "ReplicaFailure")
    if failure is None:
        status["conditions"] = [c for c in conditions if c.get("type") != "ReplicaFailure"]
        return
    if current is not None and current.get("status") == failure["status"]:
        if current.get("reason") == failure["reason"]:
            return  # SetDeploymentCondition keeps a condition of the same status and reason
        failure["lastTransitionTime"] = current.get("lastTransitionTime")
    others = [c for c in conditions if c.get("type") != "ReplicaFailure"]
    status["conditions"] = [*others, failure]


async def write_status(
    api: ControllerRequests,
    deployment: dict[str, Any],
    sets: list[dict[str, Any]],
    new: dict[str, Any] | None,
    *,
    rolling: bool,
) -> float | None:
    """Write the Deployment's status from its sets (``syncRolloutStatus`` when ``rolling``,
    else ``syncDeploymentStatus``); seconds until the progress deadline, if one runs."""
    meta = deployment["metadata"]
    cluster = api.cluster
    current = cluster.get(_DEPLOYMENTS, meta.get("namespace") or "", meta["name"]) or deployment
    now = cluster.now()
    status = calculate_status(current, sets, new, now)
    again: float | None = None
    paused = bool((current.get("spec") or {}).get("paused"))
    before = condition(status, "Progressing")
    if paused and (before is None or before.get("reason") != "DeploymentPaused"):
        set_condition(
            status, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", now
        )
    elif not paused and before is not None and before.get("reason") == "DeploymentPaused":
        set_condition(
            status, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", now
        )
    elif rolling and not paused:
        again = rollout_progress(current, status, new, now, cluster.wall_time())
        _move_replica_failure(status, sets, new)
    if status != (current.get("status") or {}):
        body = copy(current)
        body["status"] = status
        await api.update_status(_DEPLOYMENTS, body)
    return again
