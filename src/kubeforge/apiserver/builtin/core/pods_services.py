"""Pod rules: defaults, validation, warnings and graceful deletion (Services: ``services``).

Pods are defaulted the way the real server's defaulting functions do it, so
``kubectl get pod -o yaml`` looks familiar: restart policy, DNS policy, scheduler,
grace period, per-container pull policy and termination message settings.
"""

from __future__ import annotations

import copy
from typing import Any

from kubeforge.apiserver.builtin.core.qos import pod_qos_class
from kubeforge.apiserver.builtin.podspec import validate_pod_spec
from kubeforge.apiserver.builtin.podspec.annotations import (
    annotation_updates,
    deletion_cost_valid,
    fields_match,
    pod_annotations,
)
from kubeforge.apiserver.builtin.podspec.defaults import default_pod_spec
from kubeforge.apiserver.builtin.podspec.ephemeral import ephemeral_containers, ephemeral_update
from kubeforge.apiserver.builtin.podspec.podonly import pod_create_only, pod_only, template_only
from kubeforge.apiserver.builtin.podspec.prepare import (
    apparmor_version_skew,
    default_host_ports,
    drop_disabled,
    merge_label_keys,
)
from kubeforge.apiserver.builtin.podspec.update import pod_spec_update
from kubeforge.apiserver.builtin.podspec.volumes import pod_volumes
from kubeforge.apiserver.builtin.podspec.warnings import dns_label_warning, pod_warnings
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["PodStrategy"]

_POD_FIELDS = (
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
)


def _default_pod_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_PodSpec`` and the pod-only part of ``SetDefaults_Pod``."""
    default_pod_spec(spec)
    spec.setdefault("enableServiceLinks", True)
    default_host_ports(spec)


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    annotations = (obj.get("metadata") or {}).get("annotations")
    return annotations if isinstance(annotations, dict) else {}


def _requests_from_limits(spec: dict[str, Any]) -> None:
    """``SetDefaults_Pod``: a container's limit is its request for what it does not request
    (pods only, never templates, as there)."""
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            resources = container.get("resources") if isinstance(container, dict) else None
            if not isinstance(resources, dict) or not isinstance(resources.get("limits"), dict):
                continue
            limits = resources["limits"]
            if limits:
                requests = resources.setdefault("requests", {})
                if isinstance(requests, dict):
                    for name, value in limits.items():
                        requests.setdefault(name, value)


class PodStrategy(Strategy):
    status_subresource = True
    return_deleted_object = True
    extra_fields = _POD_FIELDS
    top_level_fields = ("spec", "status")

    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        # The warnings of the write in progress: a write's prepare, validate and
        # take_warnings run back to back, with no await between them.
        self._warnings: list[str] = []

    def take_warnings(self) -> list[str]:
        warnings, self._warnings = self._warnings, []
        return warnings

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        fields = super().field_set(obj)
        fields["spec.hostNetwork"] = fields["spec.hostNetwork"] or "false"
        ips = (obj.get("status") or {}).get("podIPs") or []
        fields["status.podIPs"] = ",".join(
            str(ip.get("ip", "")) for ip in ips if isinstance(ip, dict)
        )
        return fields

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["status"] = {"phase": "Pending", "qosClass": "BestEffort"}
        self._warnings = []
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        # priority and preemptionPolicy are the Priority admission plugin's to set.
        _default_pod_spec(spec)
        _requests_from_limits(spec)
        obj["status"]["qosClass"] = pod_qos_class(spec)
        drop_disabled(spec, None)
        merge_label_keys(obj)
        self._warnings = apparmor_version_skew(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self._warnings = []  # a 1.32 server warns of nothing on a pod update
        spec = new.get("spec")
        if isinstance(spec, dict):
            # Every decode defaults, so an update that leaves a defaulted field out keeps it.
            _default_pod_spec(spec)
            _requests_from_limits(spec)
            drop_disabled(spec, old.get("spec"))
            # Ephemeral containers change only through their subresource.
            spec.pop("ephemeralContainers", None)
            kept = (old.get("spec") or {}).get("ephemeralContainers")
            if kept is not None:
                spec["ephemeralContainers"] = kept

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return [FieldError("Required", "spec.containers")]
        annotations = _annotations(obj)
        if obj.get("kind") != "Pod":  # a workload's template (its path is added by the caller)
            errors = pod_annotations(annotations, spec, "annotations")  # sic: no "metadata."
            errors += validate_pod_spec(spec, "spec") + fields_match(annotations, spec, "spec")
            return errors + template_only(spec)
        errors = pod_annotations(annotations, spec, "metadata.annotations")
        errors += validate_pod_spec(spec, "spec") + pod_only(spec) + pod_create_only(spec)
        return errors + fields_match(annotations, spec, "spec")

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        meta = obj["metadata"]
        warnings = dns_label_warning(str(meta.get("name") or ""), "the Pod's hostname")
        return warnings + pod_warnings(meta, obj.get("spec"), "")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        spec = new.get("spec")
        if not isinstance(spec, dict):
            return [FieldError("Required", "spec.containers")]
        _, volumes = pod_volumes(spec.get("volumes"), "spec.volumes")
        annotations, before_annotations = _annotations(new), _annotations(old)
        at = "metadata.annotations"
        allow = not deletion_cost_valid(before_annotations)
        errors = pod_annotations(annotations, spec, at, allow_invalid_cost=allow)
        errors += validate_pod_spec(spec, "spec") + pod_only(spec)
        errors += ephemeral_containers(spec, volumes)
        errors += ephemeral_update(spec, old.get("spec") or {})
        errors += annotation_updates(annotations, before_annotations, spec, at)
        # The stored spec is compared as a real server decodes it: with today's defaults,
        # so a pod kept in a data directory by an older version is not refused for them.
        before = copy.deepcopy(old.get("spec") or {})
        _default_pod_spec(before)
        _requests_from_limits(before)
        return errors + pod_spec_update(spec, before)

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        status = obj.get("status") or {}
        spec = obj.get("spec") or {}
        # Unscheduled or finished pods have nothing to stop: they go at once.
        if not spec.get("nodeName") or status.get("phase") in ("Failed", "Succeeded"):
            return 0
        grace = (
            requested if requested is not None else spec.get("terminationGracePeriodSeconds", 30)
        )
        grace = int(grace)
        return 1 if grace < 0 else grace
