"""What a ``/status`` write of an apps/v1 workload (and of a ReplicationController) must
meet: 1.32's ``ValidateDeploymentStatus``, ``ValidateReplicaSetStatus`` (the
ReplicationController's is the same), ``ValidateStatefulSetStatus`` and
``validateDaemonSetStatus``: counts non-negative, none above ``replicas``, available no
more than ready, and a ``collisionCount`` that never goes down.

Entry points: the ``*_status_errors(new, old)`` functions, one per kind.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.failures import FieldError

__all__ = [
    "daemonset_status_errors",
    "deployment_status_errors",
    "replicaset_status_errors",
    "statefulset_status_errors",
]

_ABOVE_REPLICAS = "cannot be greater than status.replicas"


def _status(obj: dict[str, Any]) -> dict[str, Any]:
    status = obj.get("status")
    return status if isinstance(status, dict) else {}


def _count(status: dict[str, Any], name: str) -> int:
    value = status.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _non_negative(status: dict[str, Any], names: tuple[str, ...]) -> list[FieldError]:
    """``ValidateNonnegativeField`` of each count, in ``names`` order (absent is 0)."""
    return [
        FieldError.invalid(
            f"status.{name}", _count(status, name), "must be greater than or equal to 0"
        )
        for name in names
        if _count(status, name) < 0
    ]


def _above(
    status: dict[str, Any], names: tuple[str, ...], limit: str, detail: str
) -> list[FieldError]:
    ceiling = _count(status, limit)
    return [
        FieldError.invalid(f"status.{name}", _count(status, name), detail)
        for name in names
        if _count(status, name) > ceiling
    ]


def _collision_count(status: dict[str, Any]) -> list[FieldError]:
    if status.get("collisionCount") is None:
        return []
    return _non_negative(status, ("collisionCount",))


def _collision_decremented(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``IsDecremented``: a set ``collisionCount`` may not go down nor be unset."""
    before, after = old.get("collisionCount"), new.get("collisionCount")
    if not isinstance(before, int) or (isinstance(after, int) and after >= before):
        return []
    value = after if isinstance(after, int) else 0
    return [FieldError.invalid("status.collisionCount", value, "cannot be decremented")]


def deployment_status_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateDeploymentStatusUpdate``."""
    status = _status(new)
    errors = _non_negative(
        status,
        (
            "observedGeneration",
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
            "unavailableReplicas",
        ),
    )
    errors += _collision_count(status)
    errors += _above(
        status,
        ("updatedReplicas", "readyReplicas", "availableReplicas"),
        "replicas",
        _ABOVE_REPLICAS,
    )
    errors += _above(
        status, ("availableReplicas",), "readyReplicas", "cannot be greater than readyReplicas"
    )
    return errors + _collision_decremented(status, _status(old))


def replicaset_status_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateReplicaSetStatusUpdate`` (and ``ValidateReplicationControllerStatusUpdate``)."""
    status = _status(new)
    errors = _non_negative(
        status,
        (
            "replicas",
            "fullyLabeledReplicas",
            "readyReplicas",
            "availableReplicas",
            "observedGeneration",
        ),
    )
    counted = ("fullyLabeledReplicas", "readyReplicas", "availableReplicas")
    errors += _above(status, counted, "replicas", _ABOVE_REPLICAS)
    errors += _above(
        status, ("availableReplicas",), "readyReplicas", "cannot be greater than readyReplicas"
    )
    return errors


def statefulset_status_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateStatefulSetStatusUpdate``."""
    status = _status(new)
    errors = _non_negative(
        status,
        ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"),
    )
    if status.get("observedGeneration") is not None:
        errors += _non_negative(status, ("observedGeneration",))
    errors += _collision_count(status)
    counted = ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")
    errors += _above(status, counted, "replicas", _ABOVE_REPLICAS)
    detail = "cannot be greater than status.readyReplicas"
    errors += _above(status, ("availableReplicas",), "readyReplicas", detail)
    return errors + _collision_decremented(status, _status(old))


def daemonset_status_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateDaemonSetStatusUpdate``: counts non-negative (no ordering rules)."""
    status = _status(new)
    errors = _non_negative(
        status,
        (
            "currentNumberScheduled",
            "numberMisscheduled",
            "desiredNumberScheduled",
            "numberReady",
            "observedGeneration",
            "updatedNumberScheduled",
            "numberAvailable",
            "numberUnavailable",
        ),
    )
    errors += _collision_count(status)
    return errors + _collision_decremented(status, _status(old))
