"""StatefulSets and DaemonSets: their update strategies, defaults and update rules.

Entry points: ``StatefulSetStrategy``, ``DaemonSetStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.builtin.apps.workload import (
    SCALE,
    WorkloadStrategy,
    default_rolling_update,
    rolling_update_errors,
)
from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.container_warnings import claim_spec_warnings
from kubeforge.apiserver.failures import FieldError

__all__ = ["DaemonSetStrategy", "StatefulSetStrategy"]

# Spec fields of a StatefulSet an update may change (ValidateStatefulSetUpdate).
_STATEFULSET_MUTABLE = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)


class StatefulSetStrategy(WorkloadStrategy):
    scale_paths = SCALE
    name_warning = None  # its pods are named <set>-<ordinal>, which validation checks

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return super().warnings_on_create(obj) + _claim_template_warnings(obj, "")

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        # Go's update path names the claim's spec "Spec" (sic), and warns on every update.
        return super().warnings_on_update(new, old) + _claim_template_warnings(new, ".Spec")

    empty_status: ClassVar[dict[str, Any]] = {"replicas": 0, "availableReplicas": 0}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        _drop_max_unavailable(obj, None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        _drop_max_unavailable(new, old)

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("podManagementPolicy", "OrderedReady")
        default_rolling_update(spec, "updateStrategy", {"partition": 0})
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


class DaemonSetStrategy(WorkloadStrategy):
    empty_status: ClassVar[dict[str, Any]] = {
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 0,
        "numberReady": 0,
    }
    name_warning = None  # its pods' names are generated

    def template_moved(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        # Go asks whether the internal templateGeneration moved: the template changed.
        return bool(
            (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template")
        )

    def default_spec(self, spec: dict[str, Any]) -> None:
        default_rolling_update(spec, "updateStrategy", {"maxUnavailable": 1, "maxSurge": 0})
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
        return rolling_update_errors(rolling, "spec.updateStrategy.rollingUpdate")


def _claim_template_warnings(obj: dict[str, Any], spec_child: str) -> list[str]:
    """What ``GetWarningsForPersistentVolumeClaimSpec`` says of each claim template, at
    ``spec.volumeClaimTemplates[i]`` as Go names it (not ``...[i].spec``)."""
    templates = (obj.get("spec") or {}).get("volumeClaimTemplates")
    return [
        warning
        for i, claim in dict_items(templates)
        for warning in claim_spec_warnings(
            claim.get("spec"), f"spec.volumeClaimTemplates[{i}]{spec_child}"
        )
    ]


def _rolling_update(obj: dict[str, Any] | None) -> dict[str, Any]:
    spec = (obj or {}).get("spec")
    update = spec.get("updateStrategy") if isinstance(spec, dict) else None
    rolling = update.get("rollingUpdate") if isinstance(update, dict) else None
    return rolling if isinstance(rolling, dict) else {}


def _drop_max_unavailable(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    """``dropStatefulSetDisabledFields``: the MaxUnavailableStatefulSet gate is alpha and off
    in 1.32, so ``maxUnavailable`` goes unless the stored object already uses it."""
    if _rolling_update(old).get("maxUnavailable") is None:
        _rolling_update(new).pop("maxUnavailable", None)
