"""StatefulSets and DaemonSets: their update strategies, defaults and update rules.

Entry points: ``StatefulSetStrategy``, ``DaemonSetStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.apps.rolling import (
    daemonset_strategy_errors,
    statefulset_strategy_errors,
)
from kubeforge.apiserver.builtin.apps.status_rules import (
    daemonset_status_errors,
    statefulset_status_errors,
)
from kubeforge.apiserver.builtin.apps.workload import (
    SCALE,
    WorkloadStrategy,
    default_rolling_update,
    int_field,
    labels_mismatch,
    selector_errors,
    selector_usable,
    template_meta_errors,
)
from kubeforge.apiserver.builtin.govalues import go_label_selector
from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.annotations import pod_annotations
from kubeforge.apiserver.builtin.podspec.container_warnings import claim_spec_warnings
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.core.names import dns1123_label

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
    # ValidateStatefulSetName: a DNS label since 1.27, as the name becomes pods' hostnames.
    name_validator = staticmethod(dns1123_label)

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
        if not spec.get("podManagementPolicy"):
            spec["podManagementPolicy"] = "OrderedReady"
        _default_statefulset_strategy(spec)
        policy = spec.get("persistentVolumeClaimRetentionPolicy")
        if not isinstance(policy, dict):
            policy = spec["persistentVolumeClaimRetentionPolicy"] = {}
        policy.setdefault("whenDeleted", "Retain")
        policy.setdefault("whenScaled", "Retain")
        spec.setdefault("replicas", 1)
        spec.setdefault("revisionHistoryLimit", 10)

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        """``ValidateStatefulSetSpec``, in its order."""
        errors = _pod_management_errors(spec.get("podManagementPolicy"))
        errors += statefulset_strategy_errors(spec.get("updateStrategy"), "spec.updateStrategy")
        errors += _retention_errors(spec.get("persistentVolumeClaimRetentionPolicy"))
        errors += int_field(spec.get("replicas"), "spec.replicas")
        errors += int_field(spec.get("minReadySeconds"), "spec.minReadySeconds")
        ordinals = spec.get("ordinals")
        if isinstance(ordinals, dict):
            errors += int_field(ordinals.get("start"), "spec.ordinals.start")
        selector = spec.get("selector")
        errors += selector_errors(selector, "statefulset")
        template = spec.get("template")
        template = template if isinstance(template, dict) else {}
        if not selector_usable(selector):
            errors.append(FieldError.invalid("spec.selector", go_label_selector(selector), ""))
            return errors + self.restart_and_deadline_errors(template)
        return errors + labels_mismatch(selector, template) + self.pod_template_errors(template)

    def status_errors(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return statefulset_status_errors(new, old)

    def pod_template_errors(self, template: dict[str, Any]) -> list[FieldError]:
        """``ValidatePodTemplateSpecForStatefulSet``: 1.32 checks the template's labels and
        annotations but not its pod spec (a bad one fails at the pods' own creation)."""
        meta = template.get("metadata") or {}
        annotations = meta.get("annotations")
        errors = template_meta_errors(meta)
        at = "spec.template.annotations"
        errors += pod_annotations(
            annotations if isinstance(annotations, dict) else {}, template.get("spec"), at
        )
        return errors + self.restart_and_deadline_errors(template)

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

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        _set_template_generation(obj, max(_template_generation(obj), 1))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        # "update is not allowed to set TemplateGeneration": the stored one, moved on by a
        # template change (so Go's templateGeneration update rules can never fire).
        super().prepare_for_update(new, old)
        generation = _template_generation(old) + int(self.template_moved(new, old))
        _set_template_generation(new, generation)

    def template_moved(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        # Go asks whether the internal templateGeneration moved: the template changed.
        return bool(
            (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template")
        )

    def default_spec(self, spec: dict[str, Any]) -> None:
        default_rolling_update(spec, "updateStrategy", {"maxUnavailable": 1, "maxSurge": 0})
        spec.setdefault("revisionHistoryLimit", 10)

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        """``ValidateDaemonSetSpec``, in its order: a missing selector is no "Required"
        but a selector matching no labels."""
        selector = spec.get("selector")
        template = spec.get("template")
        template = template if isinstance(template, dict) else {}
        errors = validate_selector(selector, "spec.selector", check_values=True)
        if selector_usable(selector):
            errors += labels_mismatch(selector, template)
        if isinstance(selector, dict) and not (
            selector.get("matchLabels") or selector.get("matchExpressions")
        ):
            detail = "empty selector is invalid for daemonset"
            errors.append(FieldError.invalid("spec.selector", go_label_selector(selector), detail))
        errors += self.pod_template_errors(template)
        errors += int_field(spec.get("minReadySeconds"), "spec.minReadySeconds")
        errors += daemonset_strategy_errors(spec.get("updateStrategy"), "spec.updateStrategy")
        errors += int_field(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
        return errors

    def status_errors(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return daemonset_status_errors(new, old)


_RETENTION = ("Retain", "Delete")
# apps/v1 has no spec.templateGeneration: the conversion keeps it in this annotation.
_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _template_generation(obj: dict[str, Any]) -> int:
    value = (obj["metadata"].get("annotations") or {}).get(_TEMPLATE_GENERATION)
    # strconv.ParseInt's syntax (Go's conversion refuses any other, not handled here).
    return int(value) if isinstance(value, str) and _INTEGER.fullmatch(value) else 0


def _set_template_generation(obj: dict[str, Any], generation: int) -> None:
    meta = obj["metadata"]
    meta["annotations"] = {**(meta.get("annotations") or {}), _TEMPLATE_GENERATION: str(generation)}


def _pod_management_errors(policy: Any) -> list[FieldError]:
    if not policy:
        return [FieldError.required("spec.podManagementPolicy")]
    if policy in ("OrderedReady", "Parallel"):
        return []
    detail = "must be 'OrderedReady' or 'Parallel'"
    return [FieldError.invalid("spec.podManagementPolicy", policy, detail)]


def _retention_errors(policy: Any) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimRetentionPolicy``: each rule Retain or Delete."""
    if not isinstance(policy, dict):
        return []
    at = "spec.persistentVolumeClaimRetentionPolicy"
    return [
        FieldError.not_supported(f"{at}.{rule}", policy.get(rule) or "", _RETENTION)
        for rule in ("whenDeleted", "whenScaled")
        if policy.get(rule) not in _RETENTION
    ]


def _default_statefulset_strategy(spec: dict[str, Any]) -> None:
    """``SetDefaults_StatefulSet``'s strategy part: a missing type becomes RollingUpdate with
    a ``rollingUpdate``; a given RollingUpdate without one keeps none; a partition defaults
    to 0 where there is a ``rollingUpdate``."""
    strategy = spec.get("updateStrategy")
    if not isinstance(strategy, dict):
        strategy = spec["updateStrategy"] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
        if not isinstance(strategy.get("rollingUpdate"), dict):
            strategy["rollingUpdate"] = {}
    rolling = strategy.get("rollingUpdate")
    if not isinstance(rolling, dict) or strategy["type"] != "RollingUpdate":
        return
    if rolling.get("partition") is None:
        rolling["partition"] = 0


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
