"""Deployments and ReplicaSets: their defaults (replicas, rolling update) and rules.

Entry points: ``DeploymentStrategy``, ``ReplicaSetStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.builtin.apps.workload import (
    SCALE,
    WorkloadStrategy,
    default_rolling_update,
    int_field,
    rolling_update_errors,
)
from kubeforge.apiserver.failures import FieldError

__all__ = ["DeploymentStrategy", "ReplicaSetStrategy"]


class DeploymentStrategy(WorkloadStrategy):
    scale_paths = SCALE

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("replicas", 1)
        default_rolling_update(spec, "strategy", {"maxUnavailable": "25%", "maxSurge": "25%"})
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        strategy = spec.get("strategy") or {}
        kind = strategy.get("type")
        if kind == "Recreate":
            if strategy.get("rollingUpdate") is not None:
                errors.append(
                    FieldError(
                        "Forbidden",
                        "spec.strategy.rollingUpdate",
                        "may not be specified when strategy `type` is 'Recreate'",
                    )
                )
        elif kind == "RollingUpdate":
            rolling = strategy.get("rollingUpdate") or {}
            errors += rolling_update_errors(rolling, "spec.strategy.rollingUpdate")
        else:
            errors.append(
                FieldError.not_supported("spec.strategy.type", kind, ("Recreate", "RollingUpdate"))
            )
        deadline = spec.get("progressDeadlineSeconds")
        errors += int_field(deadline, "spec.progressDeadlineSeconds")
        min_ready = spec.get("minReadySeconds") or 0
        if isinstance(deadline, int) and isinstance(min_ready, int) and deadline <= min_ready:
            errors.append(
                FieldError(
                    "Invalid",
                    "spec.progressDeadlineSeconds",
                    "must be greater than minReadySeconds",
                    deadline,
                )
            )
        return errors


class ReplicaSetStrategy(WorkloadStrategy):
    scale_paths = SCALE
    empty_status: ClassVar[dict[str, Any]] = {"replicas": 0}
    extra_fields = ("status.replicas",)

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("replicas", 1)
