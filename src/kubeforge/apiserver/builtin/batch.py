"""``batch/v1`` Jobs and CronJobs: defaults, selector generation and validation.

A Job is defaulted as ``pkg/apis/batch/v1`` does it (parallelism and completions 1,
``backoffLimit`` 6, ``completionMode`` NonIndexed, ``suspend`` false,
``podReplacementPolicy``), and unless ``spec.manualSelector`` is true the server
generates its selector from the Job's uid and labels the pod template with
``batch.kubernetes.io/controller-uid``/``job-name`` (and the legacy unprefixed pair),
as the real job strategy does. Its pod template gets the pod defaults workload
templates get. The simulated job and cronjob controllers (``controllers``) run them;
with those off a Job's status changes only through ``/status``.

Entry point: ``KINDS``, the group's kinds with their strategies.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kubeforge.apiserver.builtin.apps import default_pod_template
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import selector_matches, validate_selector
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import nested_str

__all__ = ["KINDS", "CronJobStrategy", "JobStrategy"]

_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_JOB_RESTART = 'valid values: "OnFailure", "Never"'
# A CronJob's name is suffixed with a schedule stamp to name its Jobs (11 characters).
_CRONJOB_NAME_MAX = 52


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


def _template_errors(
    pods: PodStrategy, template: Any, path: str, selector: Any
) -> list[FieldError]:
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


def _non_negative(spec: dict[str, Any], path: str, *keys: str) -> list[FieldError]:
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
        errors += _non_negative(
            spec, "spec", "parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"
        )
        errors += _template_errors(self._pods, spec.get("template"), "spec", spec.get("selector"))
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


def _schedule_errors(schedule: Any) -> list[FieldError]:
    if not schedule:
        return [FieldError("Required", "spec.schedule")]
    text = str(schedule)
    if "TZ=" in text or "CRON_TZ=" in text:
        return [
            FieldError(
                "Invalid",
                "spec.schedule",
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
                text,
            )
        ]
    if text.startswith("@"):
        if text in (
            "@yearly",
            "@annually",
            "@monthly",
            "@weekly",
            "@daily",
            "@midnight",
            "@hourly",
        ):
            return []
        if text.startswith("@every "):
            return []
        return [FieldError("Invalid", "spec.schedule", f"unrecognized descriptor: {text}", text)]
    fields = text.split()
    if len(fields) != 5:
        return [
            FieldError(
                "Invalid",
                "spec.schedule",
                f"expected exactly 5 fields, found {len(fields)}: {text}",
                text,
            )
        ]
    return []


class CronJobStrategy(CatalogStrategy):
    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        self._pods = PodStrategy(served)

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is None:
            return
        spec.setdefault("concurrencyPolicy", "Allow")
        spec.setdefault("suspend", False)
        spec.setdefault("successfulJobsHistoryLimit", 3)
        spec.setdefault("failedJobsHistoryLimit", 1)
        job = (spec.get("jobTemplate") or {}).get("spec")
        if isinstance(job, dict):
            default_pod_template(job.get("template"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        name = str(obj["metadata"].get("name") or "")
        if len(name) > _CRONJOB_NAME_MAX:
            errors.append(
                FieldError(
                    "Invalid",
                    "metadata.name",
                    f"must be no more than {_CRONJOB_NAME_MAX} characters",
                    name,
                )
            )
        spec = spec_of(obj)
        if spec is None:
            return [*errors, FieldError("Required", "spec.schedule")]
        errors += _schedule_errors(spec.get("schedule"))
        policy = spec.get("concurrencyPolicy")
        if policy not in ("Allow", "Forbid", "Replace"):
            errors.append(
                FieldError.not_supported(
                    "spec.concurrencyPolicy", policy, ("Allow", "Forbid", "Replace")
                )
            )
        errors += _non_negative(
            spec,
            "spec",
            "startingDeadlineSeconds",
            "successfulJobsHistoryLimit",
            "failedJobsHistoryLimit",
        )
        job = (spec.get("jobTemplate") or {}).get("spec")
        if not isinstance(job, dict):
            return [*errors, FieldError("Required", "spec.jobTemplate.spec.template")]
        path = "spec.jobTemplate.spec"
        errors += _non_negative(
            job, path, "parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"
        )
        template_errors = _template_errors(
            self._pods, job.get("template"), path, job.get("selector") or {}
        )
        # A job template's selector is generated when its Jobs are made: only its shape counts.
        errors += [
            e for e in template_errors if not e.field.startswith(f"{path}.template.metadata")
        ]
        return errors


KINDS = (
    Kind(
        "batch",
        "v1",
        "CronJob",
        "cronjobs",
        short=("cj",),
        subresources=STATUS,
        categories=("all",),
        strategy=CronJobStrategy,
    ),
    Kind(
        "batch", "v1", "Job", "jobs", subresources=STATUS, categories=("all",), strategy=JobStrategy
    ),
)
"""The batch/v1 kinds."""
