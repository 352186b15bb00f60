"""Which pods a ReplicaSet deletes first when it scales down: ``controller.ActivePodsWithRanks``.

The order of ``pkg/controller/controller_utils.go`` (1.32, LogarithmicScaleDown on):
unassigned before assigned; Pending before Unknown before Running; not ready before
ready; lower ``controller.kubernetes.io/pod-deletion-cost`` first; more pods of the same
owner on the node first; ready for less time first (compared on a log2 scale); more
restarts first; newer first.

Entry points: ``deletion_order(pods, related)``, ``is_active(pod)``, ``is_ready(pod)``,
``ready_since(pod)``.
"""

from __future__ import annotations

import math
from collections import Counter
from datetime import datetime
from typing import Any

__all__ = ["deletion_order", "is_active", "is_available", "is_ready", "ready_since"]

_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def is_active(pod: dict[str, Any]) -> bool:
    """Not finished and not being deleted (``controller.IsPodActive``)."""
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed") and not pod[
        "metadata"
    ].get("deletionTimestamp")


def is_ready(pod: dict[str, Any]) -> bool:
    return _ready_condition(pod).get("status") == "True"


def _ready_condition(pod: dict[str, Any]) -> dict[str, Any]:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return dict(condition)
    return {}


def ready_since(pod: dict[str, Any]) -> float | None:
    """When the pod last became ready (seconds since the epoch), if it is ready."""
    condition = _ready_condition(pod)
    if condition.get("status") != "True":
        return None
    return parse_time(condition.get("lastTransitionTime"))


def is_available(pod: dict[str, Any], min_ready_seconds: int, now: float) -> bool:
    """Ready for at least ``minReadySeconds`` (``podutil.IsPodAvailable``)."""
    since = ready_since(pod)
    if since is None:
        return False
    return min_ready_seconds == 0 or since + min_ready_seconds <= now


def parse_time(text: Any) -> float | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _cost(pod: dict[str, Any]) -> int:
    try:
        return int((pod["metadata"].get("annotations") or {}).get(_DELETION_COST, 0))
    except ValueError:
        return 0


def _restarts(pod: dict[str, Any]) -> int:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return max((int(s.get("restartCount") or 0) for s in statuses), default=0)


def deletion_order(
    pods: list[dict[str, Any]], related: list[dict[str, Any]], now: float
) -> list[dict[str, Any]]:
    """``pods`` sorted so the first are the ones to delete; ``related`` ranks by node."""
    per_node = Counter((p.get("spec") or {}).get("nodeName") for p in related if is_active(p))

    def key(pod: dict[str, Any]) -> tuple[Any, ...]:
        spec, status = pod.get("spec") or {}, pod.get("status") or {}
        assigned = bool(spec.get("nodeName"))
        since = ready_since(pod)
        ready_bucket = math.floor(math.log2(max(now - since, 1))) if since is not None else -1
        created = parse_time(pod["metadata"].get("creationTimestamp")) or 0.0
        return (
            assigned,
            _PHASE_RANK.get(status.get("phase", "Pending"), 0),
            is_ready(pod),
            _cost(pod),
            -per_node[spec.get("nodeName")] if assigned else 0,
            ready_bucket,
            -_restarts(pod),
            -created,
        )

    return sorted(pods, key=key)
