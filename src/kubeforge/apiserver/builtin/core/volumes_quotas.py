"""Rules of the core/v1 kinds served with the generic rules plus their own defaults:
volumes and claims, ReplicationControllers, PodTemplates, quotas and limit ranges.

Entry points: the strategy classes, listed in ``core.kinds``.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.apps.deployments import ReplicaSetStrategy
from kubeforge.apiserver.builtin.apps.workload import (
    default_pod_template,
    int_field,
    labels_mismatch,
)
from kubeforge.apiserver.builtin.core.claims import (
    claim_errors,
    claim_status_errors,
    claim_update_errors,
    claim_warnings,
    prepare_claim,
)
from kubeforge.apiserver.builtin.core.limit_ranges import limit_range_errors
from kubeforge.apiserver.builtin.core.persistent_volumes import (
    stamp_phase,
    volume_errors,
    volume_update_errors,
    volume_warnings,
)
from kubeforge.apiserver.builtin.core.quota_rules import quota_spec_errors, quota_update_errors
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.podspec import validate_pod_spec
from kubeforge.apiserver.builtin.podspec.annotations import fields_match, pod_annotations
from kubeforge.apiserver.builtin.podspec.template_warnings import (
    template_create_warnings,
    template_update_warnings,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.scale import ScalePaths
from kubeforge.apiserver.registry.system_metadata import format_time

__all__ = [
    "LimitRangeStrategy",
    "PersistentVolumeClaimStrategy",
    "PersistentVolumeStrategy",
    "PodTemplateStrategy",
    "ReplicationControllerStrategy",
    "ResourceQuotaStrategy",
]


class PersistentVolumeClaimStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"phase": "Pending"}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None:
            spec.setdefault("volumeMode", "Filesystem")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        if spec_of(obj) is not None:
            prepare_claim(obj["spec"], None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        if spec_of(new) is not None:
            prepare_claim(new["spec"], spec_of(old) or {})

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return claim_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return claim_update_errors(new, old)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return claim_status_errors(new)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return claim_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return claim_warnings(new)


class PersistentVolumeStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"phase": "Pending"}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None:
            spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
            spec.setdefault("volumeMode", "Filesystem")
            host = spec.get("hostPath")
            if isinstance(host, dict):
                host.setdefault("type", "")  # SetDefaults_HostPathVolumeSource: HostPathUnset

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        stamp_phase(obj, None, format_time(time.time()))

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        stamp_phase(new, old, format_time(time.time()))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return volume_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return volume_update_errors(new, old)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return []  # ValidatePersistentVolumeStatusUpdate checks the metadata only

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return volume_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return volume_warnings(new)


class ReplicationControllerStrategy(ReplicaSetStrategy):
    """Like a ReplicaSet, with a plain label map for a selector (defaulted from the template)."""

    scale_paths = ScalePaths(".spec.replicas", ".status.replicas", ".spec.selector")
    immutable_selector = False
    template_is_pointer = True

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("replicas", 1)
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if not spec.get("selector") and labels:
            spec["selector"] = dict(labels)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        self._default_labels(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self._default_labels(new)

    @staticmethod
    def _default_labels(obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        labels = ((spec_of(obj) or {}).get("template") or {}).get("metadata", {}).get("labels")
        if not meta.get("labels") and labels:
            meta["labels"] = dict(labels)

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        """``ValidateReplicationControllerSpec``: a non-empty label-map selector that the
        template's labels match, and a template (a pointer here: it may be missing)."""
        errors = int_field(spec.get("minReadySeconds"), "spec.minReadySeconds")
        selector = spec.get("selector")
        if not selector:
            errors.append(FieldError.required("spec.selector"))
        errors += int_field(spec.get("replicas"), "spec.replicas")
        template = spec.get("template")
        if not isinstance(template, dict):
            return [*errors, FieldError.required("spec.template")]
        if selector:
            errors += labels_mismatch({"matchLabels": selector}, template)
        return errors + self.pod_template_errors(template)


class ResourceQuotaStrategy(CatalogStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return [*super().validate(obj), *quota_spec_errors(obj.get("spec"))]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = quota_update_errors(new.get("spec"), old.get("spec"))
        return [*super().validate_update(new, old), *errors]


class LimitRangeStrategy(CatalogStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return limit_range_errors(obj)

    def default(self, obj: dict[str, Any]) -> None:
        for item in (spec_of(obj) or {}).get("limits") or []:
            if not isinstance(item, dict) or item.get("type") != "Container":
                continue
            default = item.get("default") or {}
            for key, value in (item.get("max") or {}).items():
                default.setdefault(key, value)
            request = item.get("defaultRequest") or {}
            for key, value in default.items():
                request.setdefault(key, value)
            for key, value in (item.get("min") or {}).items():
                request.setdefault(key, value)
            if default:
                item["default"] = default
            if request:
                item["defaultRequest"] = request


class PodTemplateStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        default_pod_template(obj.get("template"))

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return template_create_warnings(obj, ("template",), None)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        # Go asks whether the generation moved, which a changed template moves.
        moved = new.get("template") != old.get("template")
        return template_update_warnings(new, old, ("template",), moved)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        template = obj.get("template")
        template = template if isinstance(template, dict) else {}
        spec = template.get("spec") or {}
        annotations = (template.get("metadata") or {}).get("annotations") or {}
        # ValidatePodTemplateSpec's order, and its paths ("template.annotations", sic).
        return [
            *super().validate(obj),
            *pod_annotations(annotations, spec, "template.annotations"),
            *validate_pod_spec(spec, "template.spec"),
            *fields_match(annotations, spec, "template.spec"),
        ]
