"""Server-side columns of Jobs, CronJobs, PersistentVolumeClaims, PersistentVolumes,
ReplicationControllers and ResourceQuotas, as ``kubectl get`` shows them from a
Kubernetes 1.32 cluster (``pkg/printers/internalversion``).

Entry point: ``PRINTERS`` (``(group, kind)`` -> ``Printer``), consulted by
``apps_rbac.printer_for_builtin``; its cell helpers are shared with ``cluster``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.meta.labelselector import format_labels, format_selector
from kubeforge.apiserver.printers.core import (
    AGE_COLUMN,
    NAME_COLUMN,
    Printer,
    age,
    column,
    human_duration,
    parse_time,
)

__all__ = [
    "NONE",
    "PRINTERS",
    "UNSET",
    "created",
    "dict_at",
    "integer",
    "name_of",
    "simple_columns",
]

NONE, UNSET = "<none>", "<unset>"
_MODES = {
    "ReadWriteOnce": "RWO",
    "ReadOnlyMany": "ROX",
    "ReadWriteMany": "RWX",
    "ReadWriteOncePod": "RWOP",
}


def dict_at(obj: Any, *keys: str) -> dict[str, Any]:
    """``obj[k1][k2]...`` when every step is a dict, else ``{}``."""
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}


def name_of(obj: dict[str, Any]) -> str:
    return str(dict_at(obj, "metadata").get("name") or "")


def created(obj: dict[str, Any], now: datetime) -> str:
    return age(dict_at(obj, "metadata").get("creationTimestamp"), now)


def integer(value: Any) -> int:
    """An int field as printed: ``0`` when unset or not an int."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _bool_ptr(value: Any) -> str:
    if not isinstance(value, bool):
        return UNSET
    return "True" if value else "False"


def _containers(pod_spec: dict[str, Any]) -> tuple[str, str]:
    containers = [c for c in pod_spec.get("containers") or [] if isinstance(c, dict)]
    names = ",".join(str(c.get("name") or "") for c in containers)
    return names, ",".join(str(c.get("image") or "") for c in containers)


def _conditions(obj: dict[str, Any]) -> set[str]:
    return {
        str(c.get("type"))
        for c in dict_at(obj, "status").get("conditions") or []
        if isinstance(c, dict) and c.get("status") == "True"
    }


def _access_modes(modes: Any) -> str:
    seen = [str(m) for m in modes or [] if isinstance(m, str)]
    return ",".join(short for long, short in _MODES.items() if long in seen)


_CONTAINERS = column("Containers", "string", "Names of each container in the template.", priority=1)
_IMAGES = column(
    "Images", "string", "Images referenced by each container in the template.", priority=1
)


# --- batch -----------------------------------------------------------------------------------


def _job_status(obj: dict[str, Any]) -> str:
    conditions = _conditions(obj)
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


def _job_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    succeeded = integer(status.get("succeeded"))
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    if isinstance(completions, int):
        done = f"{succeeded}/{completions}"
    elif isinstance(parallelism, int) and parallelism > 1:
        done = f"{succeeded}/1 of {parallelism}"
    else:
        done = f"{succeeded}/1"
    start, end = parse_time(status.get("startTime")), parse_time(status.get("completionTime"))
    duration = ""
    if start is not None:
        duration = human_duration(((end or now) - start).total_seconds())
    names, images = _containers(dict_at(spec, "template", "spec"))
    return [
        name_of(obj),
        _job_status(obj),
        done,
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
    names, images = _containers(dict_at(job, "template", "spec"))
    return [
        name_of(obj),
        str(spec.get("schedule") or ""),
        str(spec.get("timeZone") or NONE),
        _bool_ptr(spec.get("suspend")),
        len(status.get("active") or []),
        age(last, now) if last else NONE,
        created(obj, now),
        names,
        images,
        format_selector(job.get("selector")),
    ]


# --- core ------------------------------------------------------------------------------------


def _pvc_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    phase = str(status.get("phase") or "")
    if dict_at(obj, "metadata").get("deletionTimestamp"):
        phase = "Terminating"
    volume = str(spec.get("volumeName") or "")
    capacity = modes = ""
    if volume:
        modes = _access_modes(status.get("accessModes"))
        capacity = str(dict_at(status, "capacity").get("storage") or "0")
    annotations = dict_at(obj, "metadata", "annotations")
    storage_class = annotations.get("volume.beta.kubernetes.io/storage-class")
    return [
        name_of(obj),
        phase,
        volume,
        capacity,
        modes,
        str(storage_class if storage_class is not None else spec.get("storageClassName") or ""),
        str(spec.get("volumeAttributesClassName") or UNSET),
        created(obj, now),
        str(spec.get("volumeMode") or UNSET),
    ]


def _pv_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    claim = dict_at(spec, "claimRef")
    phase = str(status.get("phase") or "")
    if dict_at(obj, "metadata").get("deletionTimestamp"):
        phase = "Terminating"
    annotations = dict_at(obj, "metadata", "annotations")
    storage_class = annotations.get("volume.beta.kubernetes.io/storage-class")
    return [
        name_of(obj),
        str(dict_at(spec, "capacity").get("storage") or "0"),
        _access_modes(spec.get("accessModes")),
        str(spec.get("persistentVolumeReclaimPolicy") or ""),
        phase,
        f"{claim.get('namespace', '')}/{claim.get('name', '')}" if claim else "",
        str(storage_class if storage_class is not None else spec.get("storageClassName") or ""),
        str(spec.get("volumeAttributesClassName") or UNSET),
        str(status.get("reason") or ""),
        created(obj, now),
        str(spec.get("volumeMode") or UNSET),
    ]


def _rc_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(dict_at(spec, "template", "spec"))
    return [
        name_of(obj),
        integer(spec.get("replicas")),
        integer(status.get("replicas")),
        integer(status.get("readyReplicas")),
        created(obj, now),
        names,
        images,
        format_labels(spec.get("selector")),
    ]


def _quota_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    hard, used = dict_at(obj, "status", "hard"), dict_at(obj, "status", "used")
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        cell = f"{resource}: {used.get(resource, '0')}/{hard[resource]}"
        (limits if resource.startswith("limits.") else requests).append(cell)
    return [name_of(obj), ", ".join(requests), ", ".join(limits), created(obj, now)]


def simple_columns(*cells: tuple[str, str, str]) -> tuple[dict[str, Any], ...]:
    return (NAME_COLUMN, *(column(n, k, d) for n, k, d in cells))


PRINTERS: dict[tuple[str, str], Printer] = {
    ("batch", "Job"): Printer(
        (
            NAME_COLUMN,
            column("Status", "string", "Status of the job."),
            column("Completions", "string", "Succeeded pods out of the completions wanted."),
            column("Duration", "string", "Time required to complete the job."),
            AGE_COLUMN,
            _CONTAINERS,
            _IMAGES,
            column("Selector", "string", "The label selector of the pods.", priority=1),
        ),
        _job_row,
    ),
    ("batch", "CronJob"): Printer(
        (
            NAME_COLUMN,
            column("Schedule", "string", "The schedule in Cron format."),
            column("Timezone", "string", "The time zone the schedule is read in."),
            column("Suspend", "boolean", "Whether new runs are suspended."),
            column("Active", "integer", "Jobs running now."),
            column("Last Schedule", "string", "Time since a job was last scheduled."),
            AGE_COLUMN,
            _CONTAINERS,
            _IMAGES,
            column("Selector", "string", "The label selector of the jobs' pods.", priority=1),
        ),
        _cronjob_row,
    ),
    ("", "PersistentVolumeClaim"): Printer(
        (
            *simple_columns(
                ("Status", "string", "Phase of the claim."),
                ("Volume", "string", "The volume bound to the claim."),
                ("Capacity", "string", "Storage of the bound volume."),
                ("Access Modes", "string", "Access modes of the bound volume."),
                ("StorageClass", "string", "StorageClass of the pvc"),
                ("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
            ),
            AGE_COLUMN,
            column("VolumeMode", "string", "Filesystem or Block.", priority=1),
        ),
        _pvc_row,
    ),
    ("", "PersistentVolume"): Printer(
        (
            *simple_columns(
                ("Capacity", "string", "Storage of the volume."),
                ("Access Modes", "string", "How the volume can be mounted."),
                ("Reclaim Policy", "string", "What happens once its claim is released."),
                ("Status", "string", "Phase of the volume."),
                ("Claim", "string", "The claim bound to the volume."),
                ("StorageClass", "string", "StorageClass of the pv"),
                ("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
                ("Reason", "string", "Why the volume is in its phase."),
            ),
            AGE_COLUMN,
            column("VolumeMode", "string", "Filesystem or Block.", priority=1),
        ),
        _pv_row,
    ),
    ("", "ReplicationController"): Printer(
        (
            *simple_columns(
                ("Desired", "integer", "Desired replicas."),
                ("Current", "integer", "Replicas created."),
                ("Ready", "integer", "Replicas ready."),
            ),
            AGE_COLUMN,
            _CONTAINERS,
            _IMAGES,
            column("Selector", "string", "The labels of the pods.", priority=1),
        ),
        _rc_row,
    ),
    ("", "ResourceQuota"): Printer(
        (
            *simple_columns(
                ("Request", "string", "Used out of hard limits, for requests."),
                ("Limit", "string", "Used out of hard limits, for limits."),
            ),
            AGE_COLUMN,
        ),
        _quota_row,
    ),
}
