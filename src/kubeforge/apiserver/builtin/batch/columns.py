"""The ``kubectl get`` columns of Jobs and CronJobs, as a Kubernetes 1.32 server prints
them (``pkg/printers/internalversion``); ``kinds`` puts each on its ``Kind`` entry.

Entry points: ``JOB``, ``CRON_JOB``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.meta.labelselector import format_selector
from kubeforge.apiserver.printers.cells import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    NONE,
    SELECTOR_COLUMN,
    bool_ptr,
    created,
    dict_at,
    integer,
    name_of,
    template_containers,
    true_conditions,
)
from kubeforge.apiserver.printers.columns import (
    AGE_COLUMN,
    NAME_COLUMN,
    Printer,
    age,
    column,
    human_duration,
    parse_time,
)

__all__ = ["CRON_JOB", "JOB"]


def _job_status(obj: dict[str, Any]) -> str:
    conditions = true_conditions(obj)
    if "Complete" in conditions:
        return "Complete"
    if "Failed" in conditions:
        return "Failed"
    if dict_at(obj, "metadata").get("deletionTimestamp"):
        return "Terminating"
    for reason in ("FailureTarget", "Suspended", "SuccessCriteriaMet"):
        if reason in conditions:
            return reason
    return "Running"


def _completions(spec: dict[str, Any], status: dict[str, Any]) -> str:
    succeeded = integer(status.get("succeeded"))
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    if isinstance(completions, int):
        return f"{succeeded}/{completions}"
    if isinstance(parallelism, int) and parallelism > 1:
        return f"{succeeded}/1 of {parallelism}"
    return f"{succeeded}/1"


def _job_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    start, end = parse_time(status.get("startTime")), parse_time(status.get("completionTime"))
    duration = ""
    if start is not None:
        duration = human_duration(((end or now) - start).total_seconds())
    names, images = template_containers(dict_at(spec, "template", "spec"))
    return [
        name_of(obj),
        _job_status(obj),
        _completions(spec, status),
        duration,
        created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


def _cronjob_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    last = status.get("lastScheduleTime")
    job = dict_at(spec, "jobTemplate", "spec")
    names, images = template_containers(dict_at(job, "template", "spec"))
    return [
        name_of(obj),
        str(spec.get("schedule") or ""),
        str(spec.get("timeZone") or NONE),
        bool_ptr(spec.get("suspend")),
        len(status.get("active") or []),
        age(last, now) if last else NONE,
        created(obj, now),
        names,
        images,
        format_selector(job.get("selector")),
    ]


JOB = Printer(
    (
        NAME_COLUMN,
        column("Status", "string", "Status of the job."),
        column("Completions", "string", "Succeeded pods out of the completions wanted."),
        column("Duration", "string", "Time required to complete the job."),
        AGE_COLUMN,
        CONTAINERS_COLUMN,
        IMAGES_COLUMN,
        SELECTOR_COLUMN,
    ),
    _job_row,
)
CRON_JOB = Printer(
    (
        NAME_COLUMN,
        column("Schedule", "string", "The schedule in Cron format."),
        column("Timezone", "string", "The time zone the schedule is read in."),
        column("Suspend", "boolean", "Whether new runs are suspended."),
        column("Active", "integer", "Jobs running now."),
        column("Last Schedule", "string", "Time since a job was last scheduled."),
        AGE_COLUMN,
        CONTAINERS_COLUMN,
        IMAGES_COLUMN,
        column("Selector", "string", "The label selector of the jobs' pods.", priority=1),
    ),
    _cronjob_row,
)
