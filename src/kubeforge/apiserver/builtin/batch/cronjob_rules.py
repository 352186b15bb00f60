"""A CronJob's spec checked as 1.32's ``validateCronJobSpec`` checks it, in its order and
words: the schedule (robfig/cron's parser; ``TZ``/``CRON_TZ`` only where the stored
schedule already had it, never with ``timeZone``), ``startingDeadlineSeconds``, the
``timeZone`` (on create, or when it changes), ``concurrencyPolicy``, the job template
(a Job's spec rules; its selector is generated, so none may be given), the history
limits; on create the name is at most 52 characters (its Jobs add 11).

Entry point: ``cronjob_errors(pods, obj, old)`` (``old`` is None on create).
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.builtin.batch.cronschedule import load_location, parse_standard
from kubeforge.apiserver.builtin.batch.failurepolicy import non_negative
from kubeforge.apiserver.builtin.batch.jobspec import go_label_selector, job_spec_errors
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.failures import FieldError

__all__ = ["cronjob_errors"]

_POLICIES = ("Allow", "Forbid", "Replace")
_NAME_MAX = 63 - 11
_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")
_EXPLICIT_ZONE = (
    "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
)


def _schedule_errors(schedule: str, allow_tz: bool, zone: Any) -> list[FieldError]:
    """``validateScheduleFormat``."""
    path = "spec.schedule"
    errors: list[FieldError] = []
    try:
        parse_standard(schedule)
    except ValueError as error:
        errors.append(FieldError.invalid(path, schedule, str(error)))
    if allow_tz and "TZ" in schedule and zone is not None:
        detail = "cannot use both timeZone field and TZ or CRON_TZ in schedule"
        errors.append(FieldError.invalid(path, schedule, detail))
    elif not allow_tz and "TZ" in schedule:
        detail = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
        errors.append(FieldError.invalid(path, schedule, detail))
    return errors


def _zone_errors(zone: Any) -> list[FieldError]:
    """``validateTimeZone``: a name the IANA database has, never ``Local``."""
    path = "spec.timeZone"
    if zone is None:
        return []
    name = str(zone)
    if not name:
        return [FieldError.invalid(path, name, "timeZone must be nil or non-empty string")]
    for part in name.split("/"):
        if part in (".", "..") or part.startswith("-") or not _ZONE_PART.fullmatch(part):
            return [FieldError.invalid(path, name, f"unknown time zone {name}")]
    errors = []
    if name.lower() == "local":
        errors.append(FieldError.invalid(path, name, _EXPLICIT_ZONE))
    try:
        load_location(name)
    except ValueError as error:
        errors.append(FieldError.invalid(path, name, str(error)))
    return errors


def _template_errors(pods: PodStrategy, spec: dict[str, Any]) -> list[FieldError]:
    """``ValidateJobTemplateSpec``."""
    path = "spec.jobTemplate.spec"
    job = (spec.get("jobTemplate") or {}).get("spec")
    job = job if isinstance(job, dict) else {}
    errors = job_spec_errors(pods, job, path)
    if job.get("selector") is not None:
        detail = "`selector` will be auto-generated"
        shown = go_label_selector(job["selector"])
        errors.append(FieldError.invalid(f"{path}.selector", shown, detail))
    if job.get("manualSelector") is True:
        errors.append(FieldError.not_supported(f"{path}.manualSelector", True, ("nil", "false")))
    return errors


def _spec_errors(
    pods: PodStrategy, spec: dict[str, Any], old: dict[str, Any] | None
) -> list[FieldError]:
    """``validateCronJobSpec``; ``old`` is the stored spec on update."""
    errors: list[FieldError] = []
    schedule = str(spec.get("schedule") or "")
    if not schedule:
        errors.append(FieldError.required("spec.schedule"))
    else:
        allow_tz = old is not None and "TZ" in str(old.get("schedule") or "")
        errors += _schedule_errors(schedule, allow_tz, spec.get("timeZone"))
    errors += non_negative(spec.get("startingDeadlineSeconds"), "spec.startingDeadlineSeconds")
    if old is None or old.get("timeZone") != spec.get("timeZone"):
        errors += _zone_errors(spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        errors.append(FieldError.required("spec.concurrencyPolicy"))
    elif policy not in _POLICIES:
        errors.append(FieldError.not_supported("spec.concurrencyPolicy", policy, _POLICIES))
    errors += _template_errors(pods, spec)
    for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        errors += non_negative(spec.get(key), f"spec.{key}")
    return errors


def cronjob_errors(
    pods: PodStrategy, obj: dict[str, Any], old: dict[str, Any] | None
) -> list[FieldError]:
    """``ValidateCronJobCreate`` (``old`` None) or ``ValidateCronJobUpdate``'s spec rules."""
    spec = obj.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    old_spec = None if old is None else (old.get("spec") or {})
    errors = _spec_errors(pods, spec, old_spec)
    name = str(obj["metadata"].get("name") or "")
    if old is None and len(name) > _NAME_MAX:
        detail = f"must be no more than {_NAME_MAX} characters"
        errors.append(FieldError.invalid("metadata.name", name, detail))
    return errors
