"""Server-side columns of the GA built-ins in ``builtins_catalog``: Jobs, CronJobs, claims and
volumes, Ingresses, HPAs, PDBs, quotas, classes and the rest, as ``kubectl get`` shows
them from a Kubernetes 1.32 cluster (``pkg/printers/internalversion``).

Entry point: ``PRINTERS`` (``(group, kind)`` -> ``Printer``), consulted first by
``_printers_extra.printer_for_builtin``. Kinds not listed get the generic
``Name``/``Created At`` table.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver._labelselector import format_labels, format_selector
from kubeforge.apiserver._printers import (
    AGE_COLUMN,
    NAME_COLUMN,
    Printer,
    age,
    column,
    human_duration,
    parse_time,
)

__all__ = ["PRINTERS"]

_NONE, _UNSET = "<none>", "<unset>"
_MODES = {
    "ReadWriteOnce": "RWO",
    "ReadOnlyMany": "ROX",
    "ReadWriteMany": "RWX",
    "ReadWriteOncePod": "RWOP",
}
_MAX_HOSTS = 3


def _dict(obj: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}


def _name(obj: dict[str, Any]) -> str:
    return str(_dict(obj, "metadata").get("name") or "")


def _created(obj: dict[str, Any], now: datetime) -> str:
    return age(_dict(obj, "metadata").get("creationTimestamp"), now)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _bool_ptr(value: Any) -> str:
    if not isinstance(value, bool):
        return _UNSET
    return "True" if value else "False"


def _containers(pod_spec: dict[str, Any]) -> tuple[str, str]:
    containers = [c for c in pod_spec.get("containers") or [] if isinstance(c, dict)]
    names = ",".join(str(c.get("name") or "") for c in containers)
    return names, ",".join(str(c.get("image") or "") for c in containers)


def _conditions(obj: dict[str, Any]) -> set[str]:
    return {
        str(c.get("type"))
        for c in _dict(obj, "status").get("conditions") or []
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
    if _dict(obj, "metadata").get("deletionTimestamp"):
        return "Terminating"
    for reason in ("FailureTarget", "Suspended", "SuccessCriteriaMet"):
        if reason in conditions:
            return reason
    return "Running"


def _job_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = _dict(obj, "spec"), _dict(obj, "status")
    succeeded = _int(status.get("succeeded"))
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
    names, images = _containers(_dict(spec, "template", "spec"))
    return [
        _name(obj),
        _job_status(obj),
        done,
        duration,
        _created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


def _cronjob_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = _dict(obj, "spec"), _dict(obj, "status")
    last = status.get("lastScheduleTime")
    job = _dict(spec, "jobTemplate", "spec")
    names, images = _containers(_dict(job, "template", "spec"))
    return [
        _name(obj),
        str(spec.get("schedule") or ""),
        str(spec.get("timeZone") or _NONE),
        _bool_ptr(spec.get("suspend")),
        len(status.get("active") or []),
        age(last, now) if last else _NONE,
        _created(obj, now),
        names,
        images,
        format_selector(job.get("selector")),
    ]


# --- core ------------------------------------------------------------------------------------


def _pvc_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = _dict(obj, "spec"), _dict(obj, "status")
    phase = str(status.get("phase") or "")
    if _dict(obj, "metadata").get("deletionTimestamp"):
        phase = "Terminating"
    volume = str(spec.get("volumeName") or "")
    capacity = modes = ""
    if volume:
        modes = _access_modes(status.get("accessModes"))
        capacity = str(_dict(status, "capacity").get("storage") or "0")
    annotations = _dict(obj, "metadata", "annotations")
    storage_class = annotations.get("volume.beta.kubernetes.io/storage-class")
    return [
        _name(obj),
        phase,
        volume,
        capacity,
        modes,
        str(storage_class if storage_class is not None else spec.get("storageClassName") or ""),
        str(spec.get("volumeAttributesClassName") or _UNSET),
        _created(obj, now),
        str(spec.get("volumeMode") or _UNSET),
    ]


def _pv_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = _dict(obj, "spec"), _dict(obj, "status")
    claim = _dict(spec, "claimRef")
    phase = str(status.get("phase") or "")
    if _dict(obj, "metadata").get("deletionTimestamp"):
        phase = "Terminating"
    annotations = _dict(obj, "metadata", "annotations")
    storage_class = annotations.get("volume.beta.kubernetes.io/storage-class")
    return [
        _name(obj),
        str(_dict(spec, "capacity").get("storage") or "0"),
        _access_modes(spec.get("accessModes")),
        str(spec.get("persistentVolumeReclaimPolicy") or ""),
        phase,
        f"{claim.get('namespace', '')}/{claim.get('name', '')}" if claim else "",
        str(storage_class if storage_class is not None else spec.get("storageClassName") or ""),
        str(spec.get("volumeAttributesClassName") or _UNSET),
        str(status.get("reason") or ""),
        _created(obj, now),
        str(spec.get("volumeMode") or _UNSET),
    ]


def _rc_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = _dict(obj, "spec"), _dict(obj, "status")
    names, images = _containers(_dict(spec, "template", "spec"))
    return [
        _name(obj),
        _int(spec.get("replicas")),
        _int(status.get("replicas")),
        _int(status.get("readyReplicas")),
        _created(obj, now),
        names,
        images,
        format_labels(spec.get("selector")),
    ]


def _quota_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    hard, used = _dict(obj, "status", "hard"), _dict(obj, "status", "used")
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        cell = f"{resource}: {used.get(resource, '0')}/{hard[resource]}"
        (limits if resource.startswith("limits.") else requests).append(cell)
    return [_name(obj), ", ".join(requests), ", ".join(limits), _created(obj, now)]


# --- networking, autoscaling, policy -------------------------------------------------------


def _ingress_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = _dict(obj, "spec")
    hosts = [
        str(r.get("host")) for r in spec.get("rules") or [] if isinstance(r, dict) and r.get("host")
    ]
    shown = ",".join(hosts[:_MAX_HOSTS]) or "*"
    if len(hosts) > _MAX_HOSTS:
        shown += f" + {len(hosts) - _MAX_HOSTS} more..."
    addresses = [
        str(i.get("ip") or i.get("hostname") or "")
        for i in _dict(obj, "status", "loadBalancer").get("ingress") or []
        if isinstance(i, dict)
    ]
    return [
        _name(obj),
        str(spec.get("ingressClassName") or _NONE),
        shown,
        ",".join(a for a in addresses if a),
        "80, 443" if spec.get("tls") else "80",
        _created(obj, now),
    ]


def _hpa_targets(obj: dict[str, Any]) -> str:
    spec = _dict(obj, "spec")
    if "targetCPUUtilizationPercentage" in spec or "metrics" not in spec:  # autoscaling/v1
        current = _dict(obj, "status").get("currentCPUUtilizationPercentage")
        shown = f"{current}%" if isinstance(current, int) else "<unknown>"
        target = spec.get("targetCPUUtilizationPercentage")
        return f"cpu: {shown}/{target}%" if isinstance(target, int) else "<none>"
    metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
    statuses = _dict(obj, "status").get("currentMetrics") or []
    cells = []
    for i, metric in enumerate(metrics):
        kind = str(metric.get("type") or "")
        source = _dict(metric, kind[:1].lower() + kind[1:])
        target = _dict(source, "target")
        current = _dict(statuses[i] if i < len(statuses) else {}, kind[:1].lower() + kind[1:])
        now_value = _dict(current, "current")
        if target.get("averageUtilization") is not None:
            have = now_value.get("averageUtilization")
            shown = f"{have}%" if have is not None else "<unknown>"
            cell = f"{shown}/{target['averageUtilization']}%"
        else:
            want = target.get("averageValue") or target.get("value") or "<auto>"
            have = now_value.get("averageValue") or now_value.get("value") or "<unknown>"
            cell = f"{have}/{want}"
        name = source.get("name") if kind in ("Resource", "ContainerResource") else None
        cells.append(f"{name}: {cell}" if name else cell)
    return ", ".join(cells) or _NONE


def _hpa_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = _dict(obj, "spec"), _dict(obj, "status")
    ref = _dict(spec, "scaleTargetRef")
    low = spec.get("minReplicas")
    return [
        _name(obj),
        f"{ref.get('kind', '')}/{ref.get('name', '')}",
        _hpa_targets(obj),
        str(low) if isinstance(low, int) else _UNSET,
        str(_int(spec.get("maxReplicas"))),
        str(_int(status.get("currentReplicas"))),
        _created(obj, now),
    ]


def _pdb_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = _dict(obj, "spec")
    low, high = spec.get("minAvailable"), spec.get("maxUnavailable")
    return [
        _name(obj),
        "N/A" if low is None else str(low),
        "N/A" if high is None else str(high),
        _int(_dict(obj, "status").get("disruptionsAllowed")),
        _created(obj, now),
    ]


def _storage_class_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    name = _name(obj)
    annotations = _dict(obj, "metadata", "annotations")
    default_keys = (
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    )
    if any(annotations.get(k) == "true" for k in default_keys):
        name += " (default)"
    expansion = obj.get("allowVolumeExpansion")
    return [
        name,
        str(obj.get("provisioner") or ""),
        str(obj.get("reclaimPolicy") or "Delete"),
        str(obj.get("volumeBindingMode") or "Immediate"),
        "true" if expansion is True else "false",
        _created(obj, now),
    ]


def _endpoint_slice_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    ports = [
        str(p.get("port")) for p in obj.get("ports") or [] if isinstance(p, dict) and "port" in p
    ]
    addresses = [
        str(a)
        for e in obj.get("endpoints") or []
        if isinstance(e, dict)
        for a in e.get("addresses") or []
    ]
    shown = ",".join(addresses[:3]) or "<unset>"
    if len(addresses) > 3:
        shown += f" + {len(addresses) - 3} more..."
    return [
        _name(obj),
        str(obj.get("addressType") or ""),
        ",".join(ports) or "<unset>",
        shown,
        _created(obj, now),
    ]


def _simple(*cells: tuple[str, str, str]) -> tuple[dict[str, Any], ...]:
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
            *_simple(
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
            *_simple(
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
            *_simple(
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
            *_simple(
                ("Request", "string", "Used out of hard limits, for requests."),
                ("Limit", "string", "Used out of hard limits, for limits."),
            ),
            AGE_COLUMN,
        ),
        _quota_row,
    ),
    ("networking.k8s.io", "Ingress"): Printer(
        (
            *_simple(
                ("Class", "string", "The IngressClass the ingress asks for."),
                ("Hosts", "string", "Hosts the rules match."),
                ("Address", "string", "Where the load balancer listens."),
                ("Ports", "string", "Ports opened (443 too with TLS)."),
            ),
            AGE_COLUMN,
        ),
        _ingress_row,
    ),
    ("networking.k8s.io", "IngressClass"): Printer(
        (
            *_simple(
                ("Controller", "string", "The controller handling the class."),
                ("Parameters", "string", "A reference to further parameters."),
            ),
            AGE_COLUMN,
        ),
        lambda obj, now: [
            _name(obj),
            str(_dict(obj, "spec").get("controller") or ""),
            _parameters(_dict(obj, "spec", "parameters")),
            _created(obj, now),
        ],
    ),
    ("networking.k8s.io", "NetworkPolicy"): Printer(
        (*_simple(("Pod-Selector", "string", "Pods the policy applies to.")), AGE_COLUMN),
        lambda obj, now: [
            _name(obj),
            format_selector(_dict(obj, "spec", "podSelector")),
            _created(obj, now),
        ],
    ),
    ("autoscaling", "HorizontalPodAutoscaler"): Printer(
        (
            *_simple(
                ("Reference", "string", "The scaled workload."),
                ("Targets", "string", "Current and target value of each metric."),
                ("MinPods", "string", "Lower replica limit."),
                ("MaxPods", "string", "Upper replica limit."),
                ("Replicas", "string", "Current replicas."),
            ),
            AGE_COLUMN,
        ),
        _hpa_row,
    ),
    ("policy", "PodDisruptionBudget"): Printer(
        (
            *_simple(
                ("Min Available", "string", "Pods that must stay available."),
                ("Max Unavailable", "string", "Pods that may be unavailable."),
                ("Allowed Disruptions", "integer", "Evictions allowed now."),
            ),
            AGE_COLUMN,
        ),
        _pdb_row,
    ),
    ("scheduling.k8s.io", "PriorityClass"): Printer(
        (
            *_simple(
                ("Value", "integer", "The priority of pods using the class."),
                ("Global-Default", "boolean", "Whether pods without a class get this one."),
            ),
            AGE_COLUMN,
            column("PreemptionPolicy", "string", "Whether pods of the class preempt others."),
        ),
        lambda obj, now: [
            _name(obj),
            _int(obj.get("value")),
            obj.get("globalDefault") is True,
            _created(obj, now),
            str(obj.get("preemptionPolicy") or ""),
        ],
    ),
    ("node.k8s.io", "RuntimeClass"): Printer(
        (*_simple(("Handler", "string", "The CRI handler the class selects.")), AGE_COLUMN),
        lambda obj, now: [_name(obj), str(obj.get("handler") or ""), _created(obj, now)],
    ),
    ("storage.k8s.io", "StorageClass"): Printer(
        (
            *_simple(
                ("Provisioner", "string", "The volume plugin provisioning volumes."),
                ("ReclaimPolicy", "string", "What happens to released volumes."),
                ("VolumeBindingMode", "string", "When volumes are bound."),
                ("AllowVolumeExpansion", "string", "Whether volumes may grow."),
            ),
            AGE_COLUMN,
        ),
        _storage_class_row,
    ),
    ("discovery.k8s.io", "EndpointSlice"): Printer(
        (
            *_simple(
                ("AddressType", "string", "IPv4, IPv6 or FQDN."),
                ("Ports", "string", "Ports of the endpoints."),
                ("Endpoints", "string", "Addresses of the endpoints."),
            ),
            AGE_COLUMN,
        ),
        _endpoint_slice_row,
    ),
}


def _parameters(ref: dict[str, Any]) -> str:
    if not ref:
        return _NONE
    group = ref.get("apiGroup")
    kind = f"{ref.get('kind', '')}.{group}" if group else str(ref.get("kind", ""))
    return f"{kind}/{ref.get('name', '')}"
