"""``apps/v1`` workloads as stored resources: Deployments, ReplicaSets, StatefulSets, DaemonSets.

They are stored, defaulted and validated as the real server does it (``pkg/apis/apps/v1``
defaults, ``pkg/apis/apps/validation``), with ``/status`` and ``/scale`` subresources
and a ``generation`` that moves on spec changes. The simulated controllers
(``controllers``) act on them; with those off (``--controllers=-*``), a status changes
only when a client writes ``/status``, exactly as under envtest.

Entry point: ``KINDS``, the group's kinds with their strategies.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.core.pods_services import PodStrategy, default_container
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import selector_matches, validate_selector
from kubeforge.apiserver.registry.scale import ScalePaths
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = [
    "KINDS",
    "DaemonSetStrategy",
    "DeploymentStrategy",
    "ReplicaSetStrategy",
    "StatefulSetStrategy",
    "default_pod_template",
]

_PERCENT = re.compile(r"[0-9]+%")
_SCALE = ScalePaths(".spec.replicas", ".status.replicas", ".spec.selector")


def default_pod_template(template: Any) -> None:
    """``SetDefaults_PodSpec`` on a pod template (pod-only defaults such as priority stay off)."""
    if not isinstance(template, dict):
        return
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                default_container(container)


def _int_field(value: Any, field: str, *, minimum: int = 0) -> list[FieldError]:
    if value is None:
        return []
    if not isinstance(value, int) or isinstance(value, bool):
        return [FieldError("Invalid", field, "must be an integer", value)]
    if value < minimum:
        return [FieldError("Invalid", field, f"must be greater than or equal to {minimum}", value)]
    return []


def _int_or_percent(value: Any, field: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` plus ``IsNotMoreThan100Percent``."""
    if isinstance(value, str):
        if not _PERCENT.fullmatch(value):
            return [
                FieldError(
                    "Invalid",
                    field,
                    "a valid percent string must be a numeric string followed by an ending '%' "
                    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
                    value,
                )
            ]
        if int(value[:-1]) > 100:
            return [FieldError("Invalid", field, "must not be greater than 100%", value)]
        return []
    return _int_field(value, field)


def _is_zero(value: Any) -> bool:
    return value in (0, "0%")


class _WorkloadStrategy(Strategy):
    """What every apps/v1 workload shares: selector, template, status and generation rules."""

    has_generation = True
    status_subresource = True
    top_level_fields: tuple[str, ...] | None = ("spec", "status")
    empty_status: ClassVar[dict[str, Any]] = {}
    """The status a new object gets: the Go status struct with its non-omitempty fields."""
    restart_policies: ClassVar[tuple[str, ...]] = ("Always",)
    immutable_selector = True

    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        self._pods = PodStrategy(served)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["status"] = dict(self.empty_status)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            self.default_spec(spec)
            default_pod_template(spec.get("template"))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        spec = new.get("spec")
        if isinstance(spec, dict):
            self.default_spec(spec)
            default_pod_template(spec.get("template"))

    def default_spec(self, spec: dict[str, Any]) -> None:
        """The kind's own ``SetDefaults_*`` (replicas, strategy, history limit ...)."""

    # --- validation -------------------------------------------------------------------------

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return [FieldError("Required", "spec.selector")]
        errors = _int_field(spec.get("replicas"), "spec.replicas")
        errors += _int_field(spec.get("minReadySeconds"), "spec.minReadySeconds")
        errors += _int_field(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
        errors += self._validate_selector_and_template(spec)
        errors += self.validate_spec(spec)
        return errors

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        """Kind-specific rules (strategies, policies)."""
        return []

    def _validate_selector_and_template(self, spec: dict[str, Any]) -> list[FieldError]:
        selector = spec.get("selector")
        template = spec.get("template")
        errors: list[FieldError] = []
        if selector is None:
            errors.append(FieldError("Required", "spec.selector"))
        else:
            errors += validate_selector(selector, "spec.selector")
            if not errors and not (selector.get("matchLabels") or selector.get("matchExpressions")):
                errors.append(
                    FieldError(
                        "Invalid",
                        "spec.selector",
                        f"empty selector is invalid for {self.kind.lower()}",
                        selector,
                    )
                )
        if not isinstance(template, dict):
            errors.append(FieldError("Required", "spec.template"))
            return errors
        labels = (template.get("metadata") or {}).get("labels") or {}
        if selector is not None and not errors and not selector_matches(selector, labels):
            errors.append(
                FieldError(
                    "Invalid",
                    "spec.template.metadata.labels",
                    "`selector` does not match template `labels`",
                    labels,
                )
            )
        pod = {"metadata": template.get("metadata") or {}, "spec": template.get("spec")}
        for error in self._pods.validate(pod):
            if error.field == "spec.restartPolicy":
                continue  # replaced by the workload's own rule below
            errors.append(dataclasses.replace(error, field=f"spec.template.{error.field}"))
        policy = (template.get("spec") or {}).get("restartPolicy")
        if policy not in self.restart_policies:
            errors.append(
                FieldError.not_supported(
                    "spec.template.spec.restartPolicy", policy, self.restart_policies
                )
            )
        if (template.get("spec") or {}).get("activeDeadlineSeconds") is not None:
            errors.append(
                FieldError(
                    "Forbidden",
                    "spec.template.spec.activeDeadlineSeconds",
                    "activeDeadlineSeconds in ReplicaSet is not Supported",
                )
            )
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        new_selector = (new.get("spec") or {}).get("selector")
        if self.immutable_selector and new_selector != (old.get("spec") or {}).get("selector"):
            errors.append(
                FieldError("Invalid", "spec.selector", "field is immutable", new_selector)
            )
        return errors


class DeploymentStrategy(_WorkloadStrategy):
    scale_paths = _SCALE

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("replicas", 1)
        strategy = spec.get("strategy")
        if not isinstance(strategy, dict):
            strategy = spec["strategy"] = {}
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.get("rollingUpdate")
            if not isinstance(rolling, dict):
                rolling = strategy["rollingUpdate"] = {}
            rolling.setdefault("maxUnavailable", "25%")
            rolling.setdefault("maxSurge", "25%")
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
            unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
            path = "spec.strategy.rollingUpdate"
            errors += _int_or_percent(unavailable, f"{path}.maxUnavailable")
            errors += _int_or_percent(surge, f"{path}.maxSurge")
            if _is_zero(unavailable) and _is_zero(surge):
                errors.append(
                    FieldError(
                        "Invalid",
                        f"{path}.maxUnavailable",
                        "may not be 0 when `maxSurge` is 0",
                        unavailable,
                    )
                )
        else:
            errors.append(
                FieldError.not_supported("spec.strategy.type", kind, ("Recreate", "RollingUpdate"))
            )
        deadline = spec.get("progressDeadlineSeconds")
        errors += _int_field(deadline, "spec.progressDeadlineSeconds")
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


class ReplicaSetStrategy(_WorkloadStrategy):
    scale_paths = _SCALE
    empty_status: ClassVar[dict[str, Any]] = {"replicas": 0}
    extra_fields = ("status.replicas",)

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("replicas", 1)


# Spec fields of a StatefulSet an update may change (ValidateStatefulSetUpdate).
_STATEFULSET_MUTABLE = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)


class StatefulSetStrategy(_WorkloadStrategy):
    scale_paths = _SCALE
    empty_status: ClassVar[dict[str, Any]] = {"replicas": 0, "availableReplicas": 0}

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("podManagementPolicy", "OrderedReady")
        update = spec.get("updateStrategy")
        if not isinstance(update, dict):
            update = spec["updateStrategy"] = {}
        update.setdefault("type", "RollingUpdate")
        if update["type"] == "RollingUpdate":
            rolling = update.get("rollingUpdate")
            if not isinstance(rolling, dict):
                rolling = update["rollingUpdate"] = {}
            rolling.setdefault("partition", 0)
        policy = spec.get("persistentVolumeClaimRetentionPolicy")
        if not isinstance(policy, dict):
            policy = spec["persistentVolumeClaimRetentionPolicy"] = {}
        policy.setdefault("whenDeleted", "Retain")
        policy.setdefault("whenScaled", "Retain")
        spec.setdefault("replicas", 1)
        spec.setdefault("revisionHistoryLimit", 10)

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        policy = spec.get("podManagementPolicy")
        if policy not in ("OrderedReady", "Parallel"):
            errors.append(
                FieldError(
                    "Invalid",
                    "spec.podManagementPolicy",
                    "must be 'OrderedReady' or 'Parallel'",
                    policy,
                )
            )
        kind = (spec.get("updateStrategy") or {}).get("type")
        if kind not in ("RollingUpdate", "OnDelete"):
            errors.append(
                FieldError(
                    "Invalid",
                    "spec.updateStrategy",
                    "must be 'RollingUpdate' or 'OnDelete'",
                    kind,
                )
            )
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        fixed_new = {
            k: v for k, v in (new.get("spec") or {}).items() if k not in _STATEFULSET_MUTABLE
        }
        fixed_old = {
            k: v for k, v in (old.get("spec") or {}).items() if k not in _STATEFULSET_MUTABLE
        }
        if fixed_new != fixed_old:
            errors.append(
                FieldError(
                    "Forbidden",
                    "spec",
                    "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                    "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
                    "'minReadySeconds' are forbidden",
                )
            )
        return errors


class DaemonSetStrategy(_WorkloadStrategy):
    empty_status: ClassVar[dict[str, Any]] = {
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 0,
        "numberReady": 0,
    }

    def default_spec(self, spec: dict[str, Any]) -> None:
        update = spec.get("updateStrategy")
        if not isinstance(update, dict):
            update = spec["updateStrategy"] = {}
        update.setdefault("type", "RollingUpdate")
        if update["type"] == "RollingUpdate":
            rolling = update.get("rollingUpdate")
            if not isinstance(rolling, dict):
                rolling = update["rollingUpdate"] = {}
            rolling.setdefault("maxUnavailable", 1)
            rolling.setdefault("maxSurge", 0)
        spec.setdefault("revisionHistoryLimit", 10)

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        update = spec.get("updateStrategy") or {}
        kind = update.get("type")
        if kind not in ("RollingUpdate", "OnDelete"):
            return [
                FieldError.not_supported(
                    "spec.updateStrategy.type", kind, ("OnDelete", "RollingUpdate")
                )
            ]
        if kind != "RollingUpdate":
            return []
        rolling = update.get("rollingUpdate") or {}
        path = "spec.updateStrategy.rollingUpdate"
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        errors = _int_or_percent(unavailable, f"{path}.maxUnavailable")
        errors += _int_or_percent(surge, f"{path}.maxSurge")
        if _is_zero(unavailable) and _is_zero(surge):
            errors.append(
                FieldError(
                    "Invalid",
                    f"{path}.maxUnavailable",
                    "may not be 0 when `maxSurge` is 0",
                    unavailable,
                )
            )
        return errors


_WORKLOAD = ("status", "scale")

KINDS = (
    Kind(
        "apps",
        "v1",
        "Deployment",
        "deployments",
        short=("deploy",),
        subresources=_WORKLOAD,
        categories=("all",),
        strategy=DeploymentStrategy,
    ),
    Kind(
        "apps",
        "v1",
        "ReplicaSet",
        "replicasets",
        short=("rs",),
        subresources=_WORKLOAD,
        categories=("all",),
        strategy=ReplicaSetStrategy,
    ),
    Kind(
        "apps",
        "v1",
        "StatefulSet",
        "statefulsets",
        short=("sts",),
        subresources=_WORKLOAD,
        categories=("all",),
        strategy=StatefulSetStrategy,
    ),
    Kind(
        "apps",
        "v1",
        "DaemonSet",
        "daemonsets",
        short=("ds",),
        subresources=STATUS,
        categories=("all",),
        strategy=DaemonSetStrategy,
    ),
    Kind("apps", "v1", "ControllerRevision", "controllerrevisions"),
)
"""The apps/v1 kinds."""
