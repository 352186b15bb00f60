"""``batch/v1`` Jobs: defaults, selector generation and validation, as 1.32's job strategy.

A Job is defaulted by ``jobdefaults`` and, unless ``spec.manualSelector`` is true, the
server generates its selector from the Job's uid and labels the pod template with
``batch.kubernetes.io/controller-uid``/``job-name`` (and the legacy unprefixed pair).
``ValidateJob`` then checks that the generated labels are there and the selector selects
them, the spec (``jobspec``), and that an Indexed Job's last pod hostname is a DNS label;
an update adds ``jobupdate``'s rules, a ``/status`` write only ``jobstatus``'.

Entry point: ``JobStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.batch.jobdefaults import default_job_spec
from kubeforge.apiserver.builtin.batch.jobspec import (
    go_label_selector,
    go_string_map,
    job_selector_errors,
    job_spec_errors,
)
from kubeforge.apiserver.builtin.batch.jobstatus import job_status_errors
from kubeforge.apiserver.builtin.batch.jobupdate import job_update_errors
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.podspec.template_warnings import (
    job_create_warnings,
    job_update_warnings,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import nested_str
from kubeforge.core.names import dns1123_label

__all__ = ["JobStrategy"]

_LEGACY_UID, _LEGACY_NAME = "controller-uid", "job-name"
_UID, _NAME = "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name"


def _template_labels(spec: dict[str, Any]) -> Any:
    return ((spec.get("template") or {}).get("metadata") or {}).get("labels")


def _has_label(labels: Any, key: str, expected: str) -> list[FieldError]:
    """``ValidateHasLabel`` on the pod template's labels."""
    path = f"spec.template.metadata.labels[{key}]"
    present = labels if isinstance(labels, dict) else {}
    if key not in present:
        return [FieldError.required(path, f"must be '{expected}'")]
    if present[key] != expected:
        return [FieldError.invalid(path, go_string_map(labels), f"must be '{expected}'")]
    return []


def _generated_selector_errors(obj: dict[str, Any], prefixed: bool) -> list[FieldError]:
    """``validateGeneratedSelector``."""
    spec = obj.get("spec") or {}
    selector = spec.get("selector")
    if spec.get("manualSelector") is True or selector is None:
        return []
    meta = obj["metadata"]
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    errors = [] if uid else [FieldError.required("metadata.uid")]
    labels = _template_labels(spec)
    expected = {_LEGACY_UID: uid, _LEGACY_NAME: name}
    errors += _has_label(labels, _LEGACY_UID, uid) + _has_label(labels, _LEGACY_NAME, name)
    if prefixed:
        errors += _has_label(labels, _UID, uid) + _has_label(labels, _NAME, name)
        expected |= {_UID: uid, _NAME: name}
    if isinstance(selector, dict) and not selector_matches(selector, expected):
        shown = go_label_selector(selector)
        errors.append(FieldError.invalid("spec.selector", shown, "`selector` not auto-generated"))
    return errors


def _hostname_errors(obj: dict[str, Any]) -> list[FieldError]:
    """An Indexed Job's pods are named ``<job>-<index>``: the last must be a DNS label."""
    spec = obj.get("spec") or {}
    completions = spec.get("completions")
    if spec.get("completionMode") != "Indexed" or not isinstance(completions, int):
        return []
    if completions <= 0:
        return []
    name = str(obj["metadata"].get("name") or "")
    hostname = f"{name}-{completions - 1}"
    if not dns1123_label(hostname):
        return []
    detail = f"will not able to create pod with invalid DNS label: {hostname}"
    return [FieldError.invalid("metadata.name", name, detail)]


class JobStrategy(CatalogStrategy):
    """``pkg/registry/batch/job``'s strategy and status strategy."""

    extra_fields = ("status.successful",)

    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        self._pods = PodStrategy(served)

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        fields = super().field_set(obj)
        fields["status.successful"] = nested_str(obj, "status.succeeded") or "0"
        return fields

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec = spec_of(obj)
        if spec is None:
            return
        if spec.get("manualSelector") is not True:
            self._generate_selector(obj, spec)
        meta = obj["metadata"]
        labels = _template_labels(spec)
        if not meta.get("labels") and labels:
            # Reading a Job back applies the defaults again: it takes its template's labels.
            meta["labels"] = dict(labels)

    def default(self, obj: dict[str, Any]) -> None:
        if spec_of(obj) is None:
            obj["spec"] = {}  # Go's empty JobSpec: defaulted, then refused field by field
        default_job_spec(obj["spec"])

    @staticmethod
    def _generate_selector(obj: dict[str, Any], spec: dict[str, Any]) -> None:
        meta = obj["metadata"]
        template = spec.get("template")
        if not isinstance(template, dict):
            return
        template_meta = template.get("metadata")
        if not isinstance(template_meta, dict):
            template_meta = template["metadata"] = {}
        labels = template_meta.get("labels")
        if not isinstance(labels, dict):
            labels = template_meta["labels"] = {}
        # A label the user set is kept: a wrong value then fails validation, as for real.
        for key in (_LEGACY_NAME, _NAME):
            labels.setdefault(key, str(meta.get("name") or ""))
        for key in (_LEGACY_UID, _UID):
            labels.setdefault(key, str(meta.get("uid") or ""))
        selector = spec.get("selector")
        if not isinstance(selector, dict):
            selector = spec["selector"] = {}
        match = selector.get("matchLabels")
        if not isinstance(match, dict):
            match = selector["matchLabels"] = {}
        match.setdefault(_UID, str(meta.get("uid") or ""))

    def _validate_job(self, obj: dict[str, Any], prefixed: bool) -> list[FieldError]:
        """``ValidateJob`` (the object meta rules are the engine's)."""
        spec = spec_of(obj) or {}
        errors = _generated_selector_errors(obj, prefixed)
        errors += job_spec_errors(self._pods, spec, "spec") + job_selector_errors(spec, "spec")
        return errors + _hostname_errors(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return self._validate_job(obj, prefixed=True)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        if (new.get("status") or {}) != (old.get("status") or {}):
            # Only /status changes the status (a main write keeps the stored one).
            return job_status_errors(new, old)
        # Jobs made before the prefixed labels existed keep validating without them.
        labels = _template_labels(spec_of(old) or {}) or {}
        prefixed = _UID in labels and _NAME in labels
        return self._validate_job(new, prefixed) + job_update_errors(self._pods, new, old)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return job_create_warnings(obj, ("spec",))

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return job_update_warnings(new, old, ("spec",))
