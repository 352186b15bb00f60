"""Deployments and ReplicaSets: their defaults (replicas, rolling update), spec rules in
1.32's order (``ValidateDeploymentSpec``, ``ValidateReplicaSetSpec``) and status rules.

Entry points: ``DeploymentStrategy``, ``ReplicaSetStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.builtin.apps.rolling import deployment_strategy_errors
from kubeforge.apiserver.builtin.apps.status_rules import (
    deployment_status_errors,
    replicaset_status_errors,
)
from kubeforge.apiserver.builtin.apps.workload import (
    SCALE,
    WorkloadStrategy,
    default_rolling_update,
    int_field,
    selector_errors,
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
        errors = int_field(spec.get("replicas"), "spec.replicas")
        errors += selector_errors(spec.get("selector"), "deployment")
        errors += self.replica_set_template_errors(spec)
        errors += deployment_strategy_errors(spec.get("strategy"), "spec.strategy")
        errors += int_field(spec.get("minReadySeconds"), "spec.minReadySeconds")
        errors += int_field(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
        deadline = spec.get("progressDeadlineSeconds")
        if isinstance(deadline, int):
            errors += int_field(deadline, "spec.progressDeadlineSeconds")
            min_ready = spec.get("minReadySeconds")
            if deadline <= (min_ready if isinstance(min_ready, int) else 0):
                detail = "must be greater than minReadySeconds"
                errors.append(FieldError.invalid("spec.progressDeadlineSeconds", deadline, detail))
        return errors

    def status_errors(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return deployment_status_errors(new, old)


class ReplicaSetStrategy(WorkloadStrategy):
    scale_paths = SCALE
    empty_status: ClassVar[dict[str, Any]] = {"replicas": 0}
    extra_fields = ("status.replicas",)

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("replicas", 1)

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        errors = int_field(spec.get("replicas"), "spec.replicas")
        errors += int_field(spec.get("minReadySeconds"), "spec.minReadySeconds")
        # Go words a ReplicaSet's empty selector as a Deployment's (a copy of that code).
        errors += selector_errors(spec.get("selector"), "deployment")
        return errors + self.replica_set_template_errors(spec)

    def status_errors(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return replicaset_status_errors(new, old)
