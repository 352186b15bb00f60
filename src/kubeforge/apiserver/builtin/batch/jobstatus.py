"""A Job's ``/status`` write checked as 1.32's ``ValidateJobUpdateStatus``, with the options
``getStatusValidationOptions`` turns on while ``JobManagedBy`` (beta, on by default in
1.32) is enabled.

Counts are non-negative, uncounted pods non-empty and unique; most transition rules run
only when the fields they concern changed, so a Job already stored in a state they
refuse can still have its other status fields written: Complete and Failed exclude each
other and need their interim conditions (SuccessCriteriaMet, FailureTarget); a finished
Job has a start time, no active, ready-beyond-active, terminating or uncounted pods;
``completionTime`` only with Complete, not before ``startTime``, never changed once set;
index lists well formed, below ``completions``, Indexed-only, not overlapping; terminal
conditions are never withdrawn; counters never decrease (``succeeded`` may for an Indexed
Job with ``completions == parallelism``, which scales down).

Entry point: ``job_status_errors(new, old)``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.builtin.batch.failurepolicy import non_negative
from kubeforge.apiserver.builtin.batch.indexes import indexes_total, overlap_error
from kubeforge.apiserver.builtin.batch.jobupdate import semantic
from kubeforge.apiserver.failures import FieldError, GoValue

__all__ = ["job_status_errors", "true_condition"]


def true_condition(job: dict[str, Any], kind: str) -> bool:
    """``IsConditionTrue``: the Job has a ``kind`` condition whose status is True."""
    conditions = (job.get("status") or {}).get("conditions")
    listed = conditions if isinstance(conditions, list) else []
    return any(
        isinstance(c, dict) and c.get("type") == kind and c.get("status") == "True" for c in listed
    )


def _finished(job: dict[str, Any]) -> bool:
    return true_condition(job, "Complete") or true_condition(job, "Failed")


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _go_time(value: Any) -> GoValue | None:
    """A ``metav1.Time`` as Go prints it in a field error (``time.Time.String()``)."""
    moment = _time(value)
    return None if moment is None else GoValue(f"{moment:%Y-%m-%d %H:%M:%S} +0000 UTC")


def _int(status: dict[str, Any], key: str) -> int:
    value = status.get(key)
    return value if isinstance(value, int) else 0


def _uncounted_errors(status: dict[str, Any]) -> list[FieldError]:
    uncounted = status.get("uncountedTerminatedPods")
    if not isinstance(uncounted, dict):
        return []
    errors, seen = [], set()
    for key in ("succeeded", "failed"):
        for index, uid in enumerate(uncounted.get(key) or []):
            path = f"status.uncountedTerminatedPods.{key}[{index}]"
            if uid == "":
                errors.append(FieldError.invalid(path, uid, "must not be empty"))
            elif uid in seen:
                errors.append(FieldError.duplicate(path, uid))
            else:
                seen.add(uid)
    return errors


def _changes(new: dict[str, Any], old: dict[str, Any]) -> set[str]:
    """Which of the status facts the options look at changed in this write."""
    status, before = new.get("status") or {}, old.get("status") or {}
    changed = {
        kind
        for kind in ("Complete", "Failed", "FailureTarget", "SuccessCriteriaMet")
        if true_condition(new, kind) != true_condition(old, kind)
    }
    if _finished(new) != _finished(old):
        changed.add("finished")
    for key in (
        "completedIndexes",
        "failedIndexes",
        "active",
        "startTime",
        "completionTime",
        "ready",
        "terminating",
    ):
        if status.get(key) != before.get(key):
            changed.add(key)
    completed, before_completed = (
        status.get("completedIndexes") or "",
        before.get("completedIndexes") or "",
    )
    if completed == before_completed:
        changed.discard("completedIndexes")  # a string: absent and empty are the same
    if semantic(status.get("uncountedTerminatedPods")) != semantic(
        before.get("uncountedTerminatedPods")
    ):
        changed.add("uncounted")
    return changed


def _options(new: dict[str, Any], old: dict[str, Any]) -> dict[str, bool]:
    """``getStatusValidationOptions`` with ``JobManagedBy`` on: which rules this write gets."""
    c = _changes(new, old)
    spec = new.get("spec") or {}
    indexed = spec.get("completionMode") == "Indexed"
    return {
        "decreasing_succeeded": not indexed or spec.get("completions") != spec.get("parallelism"),
        "invalid_completed": "completedIndexes" in c,
        "invalid_failed": "failedIndexes" in c,
        "overlap": bool(c & {"completedIndexes", "failedIndexes"}),
        "failed_without_target": bool(c & {"Failed", "failedIndexes"}),
        "complete_without_met": bool(c & {"Complete", "SuccessCriteriaMet"}),
        "finished_active": bool(c & {"finished", "active"}),
        "finished_no_start": bool(c & {"finished", "startTime"}),
        "finished_uncounted": bool(c & {"finished", "uncounted"}),
        "start_update": "startTime" in c,
        "before_start": bool(c & {"startTime", "completionTime"}),
        "completion_time": bool(c & {"Complete", "completionTime"}),
        "complete_failed": bool(c & {"Complete", "Failed"}),
        "complete_target": bool(c & {"Complete", "FailureTarget"}),
        "ready": bool(c & {"ready", "active"}),
        "finished_terminating": bool(c & {"finished", "terminating"}),
    }


def _invalid(field: str, value: Any, detail: str) -> FieldError:
    return FieldError.invalid(f"status.{field}", value, detail)


def _conditions(detail: str) -> FieldError:
    return FieldError("Invalid", "status.conditions", detail)


def _terminal_errors(job: dict[str, Any], opts: dict[str, bool]) -> list[FieldError]:
    """The rules on conditions and times, in ``validateJobStatus``'s order."""
    status = job.get("status") or {}
    complete, failed = true_condition(job, "Complete"), true_condition(job, "Failed")
    target, met = true_condition(job, "FailureTarget"), true_condition(job, "SuccessCriteriaMet")
    started, ended = _time(status.get("startTime")), _time(status.get("completionTime"))
    shown_end = _go_time(status.get("completionTime"))
    errors: list[FieldError] = []
    if opts["complete_failed"] and complete and failed:
        errors.append(_conditions("cannot set Complete=True and Failed=true conditions"))
    if opts["complete_target"] and complete and target:
        errors.append(_conditions("cannot set Complete=True and FailureTarget=true conditions"))
    if opts["completion_time"] and ended is not None and not complete:
        detail = "cannot set completionTime when there is no Complete=True condition"
        errors.append(_invalid("completionTime", shown_end, detail))
    if opts["completion_time"] and ended is None and complete:
        detail = "completionTime is required for Complete jobs"
        errors.append(FieldError.required("status.completionTime", detail))
    if opts["before_start"] and started and ended and ended < started:
        errors.append(
            _invalid("completionTime", shown_end, "completionTime cannot be set before startTime")
        )
    if opts["failed_without_target"] and failed and not target:
        errors.append(
            _conditions("cannot set Failed=True condition without the FailureTarget=true condition")
        )
    if opts["complete_without_met"] and complete and not met:
        errors.append(
            _conditions(
                "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"
            )
        )
    return errors


def _finished_errors(job: dict[str, Any], opts: dict[str, bool]) -> list[FieldError]:
    status = job.get("status") or {}
    if not _finished(job):
        return []
    errors: list[FieldError] = []
    if opts["finished_active"] and _int(status, "active") > 0:
        errors.append(_invalid("active", status["active"], "active>0 is invalid for finished job"))
    if opts["finished_no_start"] and status.get("startTime") is None:
        errors.append(
            FieldError.required("status.startTime", "startTime is required for finished job")
        )
    uncounted = status.get("uncountedTerminatedPods")
    if opts["finished_uncounted"] and semantic(uncounted):
        detail = "uncountedTerminatedPods needs to be empty for finished job"
        errors.append(_invalid("uncountedTerminatedPods", uncounted, detail))
    return errors


def _index_errors(job: dict[str, Any], opts: dict[str, bool]) -> list[FieldError]:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    completions = spec.get("completions")
    completed, failed = status.get("completedIndexes") or "", status.get("failedIndexes")
    per_index = spec.get("backoffLimitPerIndex")
    errors: list[FieldError] = []
    for rule, key, text, needs in (
        ("invalid_completed", "completedIndexes", completed, True),
        ("invalid_failed", "failedIndexes", failed, per_index is not None and failed is not None),
    ):
        if opts[rule] and isinstance(completions, int) and needs:
            try:
                indexes_total(str(text), completions)
            except ValueError as error:
                errors.append(_invalid(key, text, f"error parsing {key}: {error}"))
    if opts["invalid_completed"] and completed and spec.get("completionMode") != "Indexed":
        detail = "cannot set non-empty completedIndexes when non-indexed completion mode"
        errors.append(_invalid("completedIndexes", completed, detail))
    if opts["invalid_failed"] and per_index is None and failed is not None:
        detail = "cannot set non-null failedIndexes when backoffLimitPerIndex is null"
        errors.append(_invalid("failedIndexes", failed, detail))
    if opts["overlap"] and isinstance(completions, int) and failed is not None:
        overlap = overlap_error(completed, str(failed), completions)
        if overlap:
            errors.append(_invalid("failedIndexes", failed, overlap))
    return errors


def _pod_count_errors(job: dict[str, Any], opts: dict[str, bool]) -> list[FieldError]:
    status = job.get("status") or {}
    errors: list[FieldError] = []
    terminating = status.get("terminating")
    if (
        opts["finished_terminating"]
        and _finished(job)
        and isinstance(terminating, int)
        and terminating > 0
    ):
        errors.append(
            _invalid("terminating", terminating, "terminating>0 is invalid for finished job")
        )
    ready = status.get("ready")
    if opts["ready"] and isinstance(ready, int) and ready > _int(status, "active"):
        errors.append(_invalid("ready", ready, "cannot set more ready pods than active"))
    return errors


def _success_errors(job: dict[str, Any]) -> list[FieldError]:
    """The SuccessCriteriaMet rules every status write gets."""
    met = true_condition(job, "SuccessCriteriaMet")
    errors: list[FieldError] = []
    if met and true_condition(job, "Failed"):
        errors.append(_conditions("cannot set SuccessCriteriaMet=True and Failed=true conditions"))
    if met and true_condition(job, "FailureTarget"):
        errors.append(
            _conditions("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions")
        )
    has_policy = (job.get("spec") or {}).get("successPolicy") is not None
    if has_policy and not met and true_condition(job, "Complete"):
        detail = (
            "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"
        )
        errors.append(_conditions(detail))
    return errors


def _status_errors(job: dict[str, Any], opts: dict[str, bool]) -> list[FieldError]:
    """``validateJobStatus``."""
    status = job.get("status") or {}
    errors: list[FieldError] = []
    for key in ("active", "succeeded", "failed", "ready", "terminating"):
        errors += non_negative(status.get(key), f"status.{key}")
    errors += _uncounted_errors(status)
    errors += _terminal_errors(job, opts) + _finished_errors(job, opts)
    errors += _index_errors(job, opts) + _pod_count_errors(job, opts)
    return errors + _success_errors(job)


def _transition_errors(
    new: dict[str, Any], old: dict[str, Any], opts: dict[str, bool]
) -> list[FieldError]:
    """The rules ``ValidateJobStatusUpdate`` adds over the old status."""
    status, before = new.get("status") or {}, old.get("status") or {}
    errors: list[FieldError] = []
    for kind in ("Failed", "Complete", "FailureTarget"):
        if true_condition(old, kind) and not true_condition(new, kind):
            errors.append(_conditions(f"cannot disable the terminal {kind}=True condition"))
    if _int(status, "failed") < _int(before, "failed"):
        errors.append(
            _invalid("failed", _int(status, "failed"), "cannot decrease the failed counter")
        )
    if opts["decreasing_succeeded"] and _int(status, "succeeded") < _int(before, "succeeded"):
        detail = "cannot decrease the succeeded counter"
        errors.append(_invalid("succeeded", _int(status, "succeeded"), detail))
    ended, ended_before = _time(status.get("completionTime")), _time(before.get("completionTime"))
    if ended and ended_before and ended != ended_before:
        detail = "completionTime cannot be mutated"
        errors.append(_invalid("completionTime", _go_time(status.get("completionTime")), detail))
    started, started_before = _time(status.get("startTime")), _time(before.get("startTime"))
    suspended = (new.get("spec") or {}).get("suspend") is True
    if opts["start_update"] and started_before and started != started_before and not suspended:
        detail = "startTime cannot be removed for unsuspended job"
        errors.append(FieldError.required("status.startTime", detail))
    met, met_before = (
        true_condition(new, "SuccessCriteriaMet"),
        true_condition(old, "SuccessCriteriaMet"),
    )
    if met_before and not met:
        errors.append(_conditions("cannot disable the SuccessCriteriaMet=True condition"))
    if true_condition(old, "Complete") and not met_before and met:
        detail = "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"
        errors.append(_conditions(detail))
    return errors


def job_status_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateJobStatusUpdate`` of a ``/status`` write (``new``) over ``old``."""
    opts = _options(new, old)
    return _status_errors(new, opts) + _transition_errors(new, old, opts)
