"""``batch/v1`` CronJobs: defaults, the schedule's shape and the job template's rules.

The schedule is checked as ``pkg/apis/batch/validation`` of Kubernetes 1.32 does it: a
descriptor (``@daily``, ``@every 5m``) or five fields, never a ``TZ=`` prefix (the
``timeZone`` field says that). The job template follows a Job's rules except for its
selector, which is generated when its Jobs are made.

Entry point: ``CronJobStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.apps.workload import default_pod_template
from kubeforge.apiserver.builtin.batch.jobs import non_negative, template_errors
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.podspec.template_warnings import (
    job_create_warnings,
    job_update_warnings,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.served import ServedResource

__all__ = ["CronJobStrategy"]

# A CronJob's name is suffixed with a schedule stamp to name its Jobs (11 characters).
_CRONJOB_NAME_MAX = 52


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


_JOB_SPEC = ("spec", "jobTemplate", "spec")


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

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return job_create_warnings(obj, _JOB_SPEC)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return job_update_warnings(new, old, _JOB_SPEC)

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
        errors += non_negative(
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
        errors += non_negative(
            job, path, "parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"
        )
        job_errors = template_errors(
            self._pods, job.get("template"), path, job.get("selector") or {}
        )
        # A job template's selector is generated when its Jobs are made: only its shape counts.
        errors += [e for e in job_errors if not e.field.startswith(f"{path}.template.metadata")]
        return errors
