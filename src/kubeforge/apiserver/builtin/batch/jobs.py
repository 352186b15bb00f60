"""``batch/v1`` Jobs: defaults, selector generation and validation.

A Job is defaulted as ``pkg/apis/batch/v1`` does it (parallelism and completions 1,
``backoffLimit`` 6, ``completionMode`` NonIndexed, ``suspend`` false,
``podReplacementPolicy``), and unless ``spec.manualSelector`` is true the server
generates its selector from the Job's uid and labels the pod template with
``batch.kubernetes.io/controller-uid``/``job-name`` (and the legacy unprefixed pair),
as the real job strategy does. Its pod template gets the pod defaults workload
templates get. The simulated job and cronjob controllers (``controllers``) run them;
with those off a Job's status changes only through ``/status``.

Entry points: ``JobStrategy`` (listed in ``kinds``); ``template_errors`` and
``non_negative``, the job spec rules a CronJob's job template follows too.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kubeforge.apiserver.builtin.apps.workload import default_pod_template
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.podspec.template_warnings import (
    job_create_warnings,
    job_update_warnings,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import selector_matches, validate_selector
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import nested_str

__all__ = ["JobStrategy", "non_negative", "template_errors"]

_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_JOB_RESTART = 'valid values: "OnFailure", "Never"'


def _default_job_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_Job`` on the spec (for a Job, not a CronJob's job template)."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = 2147483647 if spec.get("backoffLimitPerIndex") is not None else 6
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    if spec.get("podReplacementPolicy") is None:
        failed_only = spec.get("podFailurePolicy") is not None
        spec["podReplacementPolicy"] = "Failed" if failed_only else "TerminatingOrFailed"
    default_pod_template(spec.get("template"))


def template_errors(pods: PodStrategy, template: Any, path: str, selector: Any) -> list[FieldError]:
    """``ValidateJobSpec``'s selector, template and restart policy rules under ``path``."""
    errors: list[FieldError] = []
    if selector is None:
        errors.append(FieldError("Required", f"{path}.selector"))
    else:
        errors += validate_selector(selector, f"{path}.selector")
    if not isinstance(template, dict):
        return [*errors, FieldError("Required", f"{path}.template")]
    labels = (template.get("metadata") or {}).get("labels") or {}
    if selector is not None and not errors and not selector_matches(selector, labels):
        errors.append(
            FieldError(
                "Invalid",
                f"{path}.template.metadata.labels",
                "`selector` does not match template `labels`",
                labels,
            )
        )
    pod = {"metadata": template.get("metadata") or {}, "spec": template.get("spec")}
    for error in pods.validate(pod):
        if error.field != "spec.restartPolicy":
            errors.append(dataclasses.replace(error, field=f"{path}.template.{error.field}"))
    policy = (template.get("spec") or {}).get("restartPolicy")
    if policy not in ("OnFailure", "Never"):
        errors.append(FieldError("Required", f"{path}.template.spec.restartPolicy", _JOB_RESTART))
    return errors


def non_negative(spec: dict[str, Any], path: str, *keys: str) -> list[FieldError]:
    errors = []
    for key in keys:
        value = spec.get(key)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(FieldError("Invalid", f"{path}.{key}", "must be an integer", value))
        elif value < 0:
            errors.append(
                FieldError("Invalid", f"{path}.{key}", "must be greater than or equal to 0", value)
            )
    return errors


class JobStrategy(CatalogStrategy):
    """``pkg/registry/batch/job`` reduced to what clients observe."""

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
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
        if not meta.get("labels") and labels:
            # Reading a Job back applies the defaults again: it takes its template's labels.
            meta["labels"] = dict(labels)

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None:
            _default_job_spec(spec)

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
        for key in _NAME_LABELS:
            labels.setdefault(key, str(meta.get("name") or ""))
        for key in _UID_LABELS:
            labels.setdefault(key, str(meta.get("uid") or ""))
        selector = spec.get("selector")
        if not isinstance(selector, dict):
            selector = spec["selector"] = {}
        match = selector.get("matchLabels")
        if not isinstance(match, dict):
            match = selector["matchLabels"] = {}
        match.setdefault(_UID_LABELS[1], str(meta.get("uid") or ""))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj)
        if spec is None:
            return [
                FieldError("Required", "spec.selector"),
                FieldError("Required", "spec.template"),
            ]
        errors = self._generated_selector_errors(obj, spec)
        errors += non_negative(
            spec, "spec", "parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"
        )
        errors += template_errors(self._pods, spec.get("template"), "spec", spec.get("selector"))
        return errors

    @staticmethod
    def _generated_selector_errors(obj: dict[str, Any], spec: dict[str, Any]) -> list[FieldError]:
        selector = spec.get("selector")
        if spec.get("manualSelector") is True or not isinstance(selector, dict):
            return []
        uid = str(obj["metadata"].get("uid") or "")
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        errors = []
        for key in _UID_LABELS:
            if labels.get(key) != uid:
                errors.append(
                    FieldError(
                        "Invalid", "spec.template.metadata.labels", f"must be '{uid}'", labels
                    )
                )
                break
        if (selector.get("matchLabels") or {}).get(_UID_LABELS[1]) != uid:
            errors.append(
                FieldError("Invalid", "spec.selector", "`selector` not auto-generated", selector)
            )
        return errors

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return job_create_warnings(obj, ("spec",))

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return job_update_warnings(new, old, ("spec",))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        spec, old_spec = spec_of(new) or {}, spec_of(old) or {}
        for key in ("selector", "completionMode", "podFailurePolicy"):
            if spec.get(key) != old_spec.get(key):
                errors.append(
                    FieldError("Invalid", f"spec.{key}", "field is immutable", spec.get(key))
                )
        # The template may change only while the Job is (and was) suspended.
        if spec.get("template") != old_spec.get("template") and not old_spec.get("suspend"):
            errors.append(
                FieldError("Invalid", "spec.template", "field is immutable", spec.get("template"))
            )
        return errors
