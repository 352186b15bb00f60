"""The ``kubectl get`` columns of the core group's kinds other than Pods (``pod_columns``).

Each printer is what a Kubernetes 1.32 server prints for the kind
(``pkg/printers/internalversion``); ``kinds`` puts each on its ``Kind`` entry. A core
kind listed without one (LimitRanges, PodTemplates, ...) prints ``Name`` and
``Created At``.

Entry points: the printers, one per kind (``SERVICE``, ``NODE``, ``EVENT``, ...).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.meta.labelselector import format_labels
from kubeforge.apiserver.printers.cells import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    NONE,
    UNSET,
    created,
    dict_at,
    integer,
    list_at,
    name_of,
    template_containers,
)
from kubeforge.apiserver.printers.columns import (
    AGE_COLUMN,
    NAME_COLUMN,
    Printer,
    age,
    column,
    simple_columns,
)

__all__ = [
    "CONFIG_MAP",
    "ENDPOINTS",
    "EVENT",
    "NAMESPACE",
    "NODE",
    "PERSISTENT_VOLUME",
    "PERSISTENT_VOLUME_CLAIM",
    "REPLICATION_CONTROLLER",
    "RESOURCE_QUOTA",
    "SECRET",
    "SERVICE",
    "SERVICE_ACCOUNT",
]

_MAX_ENDPOINTS = 3
_MODES = {
    "ReadWriteOnce": "RWO",
    "ReadOnlyMany": "ROX",
    "ReadWriteMany": "RWX",
    "ReadWriteOncePod": "RWOP",
}


def _external_ips(svc: dict[str, Any], spec: dict[str, Any], kind: str) -> list[str]:
    external: list[str] = [str(ip) for ip in list_at(spec, "externalIPs")]
    if kind == "ExternalName":
        return [str(spec.get("externalName") or "")]
    if kind == "LoadBalancer":
        ingress = list_at(svc, "status", "loadBalancer", "ingress")
        found = [
            str(i.get("ip") or i.get("hostname"))
            for i in ingress
            if isinstance(i, dict) and (i.get("ip") or i.get("hostname"))
        ]
        # printService: the load balancer's addresses first, then the external IPs.
        return found + external or ["<pending>"]
    return external


def _service_row(svc: dict[str, Any], now: datetime) -> list[Any]:
    spec = dict_at(svc, "spec")
    kind = str(spec.get("type") or "ClusterIP")
    ports = []
    for port in list_at(spec, "ports"):
        if not isinstance(port, dict):
            continue
        node_port = f":{port['nodePort']}" if port.get("nodePort") else ""
        ports.append(f"{port.get('port')}{node_port}/{port.get('protocol') or 'TCP'}")
    selector = dict_at(spec, "selector")
    return [
        name_of(svc),
        kind,
        spec.get("clusterIP") or NONE,
        ",".join(_external_ips(svc, spec, kind)) or NONE,
        ",".join(ports) or NONE,
        created(svc, now),
        ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or NONE,
    ]


def _node_row(node: dict[str, Any], now: datetime) -> list[Any]:
    ready = [
        c.get("status")
        for c in list_at(node, "status", "conditions")
        if isinstance(c, dict) and c.get("type") == "Ready"
    ]
    status = "Ready" if ready == ["True"] else "NotReady" if ready else "Unknown"
    if dict_at(node, "spec").get("unschedulable"):
        status += ",SchedulingDisabled"
    prefix = "node-role.kubernetes.io/"
    labels = dict_at(node, "metadata", "labels")
    roles = sorted(k[len(prefix) :] for k in labels if k.startswith(prefix) and k != prefix)
    version = dict_at(node, "status", "nodeInfo").get("kubeletVersion") or ""
    return [name_of(node), status, ",".join(roles) or NONE, created(node, now), version]


def _event_row(event: dict[str, Any], now: datetime) -> list[Any]:
    seen = event.get("lastTimestamp") or event.get("eventTime") or event.get("firstTimestamp")
    involved = dict_at(event, "involvedObject")
    target = f"{str(involved.get('kind') or '').lower()}/{involved.get('name') or ''}"
    return [
        age(seen, now),
        event.get("type") or "",
        event.get("reason") or "",
        target,
        str(event.get("message") or "").strip(),
    ]


def _data_count(obj: dict[str, Any]) -> int:
    return len(dict_at(obj, "data")) + len(dict_at(obj, "binaryData"))


def _endpoints(obj: dict[str, Any]) -> str:
    """``ip:port`` pairs, at most three, then ``+ N more...`` (``formatEndpoints``)."""
    pairs: list[str] = []
    total = 0
    for subset in obj.get("subsets") or []:
        if not isinstance(subset, dict):
            continue
        ports = [p for p in subset.get("ports") or [] if isinstance(p, dict)]
        for address in subset.get("addresses") or []:
            ip = str((address or {}).get("ip") or "")
            for entry in [f"{ip}:{p.get('port')}" for p in ports] or [ip]:
                total += 1
                if len(pairs) < _MAX_ENDPOINTS:
                    pairs.append(entry)
    if not pairs:
        return "<none>"
    text = ",".join(pairs)
    return f"{text} + {total - len(pairs)} more..." if total > len(pairs) else text


def _access_modes(modes: Any) -> str:
    seen = [str(m) for m in modes or [] if isinstance(m, str)]
    return ",".join(short for long, short in _MODES.items() if long in seen)


def _volume_phase(obj: dict[str, Any]) -> str:
    if dict_at(obj, "metadata").get("deletionTimestamp"):
        return "Terminating"
    return str(dict_at(obj, "status").get("phase") or "")


def _storage_class(obj: dict[str, Any]) -> str:
    """The beta annotation when present, else ``spec.storageClassName``."""
    annotation = dict_at(obj, "metadata", "annotations").get(
        "volume.beta.kubernetes.io/storage-class"
    )
    if annotation is not None:
        return str(annotation)
    return str(dict_at(obj, "spec").get("storageClassName") or "")


def _pvc_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    volume = str(spec.get("volumeName") or "")
    capacity = modes = ""
    if volume:
        modes = _access_modes(status.get("accessModes"))
        capacity = str(dict_at(status, "capacity").get("storage") or "0")
    return [
        name_of(obj),
        _volume_phase(obj),
        volume,
        capacity,
        modes,
        _storage_class(obj),
        str(spec.get("volumeAttributesClassName") or UNSET),
        created(obj, now),
        str(spec.get("volumeMode") or UNSET),
    ]


def _pv_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    claim = dict_at(spec, "claimRef")
    return [
        name_of(obj),
        str(dict_at(spec, "capacity").get("storage") or "0"),
        _access_modes(spec.get("accessModes")),
        str(spec.get("persistentVolumeReclaimPolicy") or ""),
        _volume_phase(obj),
        f"{claim.get('namespace', '')}/{claim.get('name', '')}" if claim else "",
        _storage_class(obj),
        str(spec.get("volumeAttributesClassName") or UNSET),
        str(status.get("reason") or ""),
        created(obj, now),
        str(spec.get("volumeMode") or UNSET),
    ]


def _rc_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = template_containers(dict_at(spec, "template", "spec"))
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


NAMESPACE = Printer(
    (NAME_COLUMN, column("Status", "string", "Active or Terminating."), AGE_COLUMN),
    lambda ns, now: [name_of(ns), dict_at(ns, "status").get("phase") or "", created(ns, now)],
)
CONFIG_MAP = Printer(
    (NAME_COLUMN, column("Data", "integer", "Number of keys."), AGE_COLUMN),
    lambda cm, now: [name_of(cm), _data_count(cm), created(cm, now)],
)
SECRET = Printer(
    (
        NAME_COLUMN,
        column("Type", "string", "How the secret is used."),
        column("Data", "integer", "Number of keys."),
        AGE_COLUMN,
    ),
    lambda s, now: [name_of(s), s.get("type") or "Opaque", _data_count(s), created(s, now)],
)
SERVICE = Printer(
    (
        NAME_COLUMN,
        column("Type", "string", "ClusterIP, NodePort, LoadBalancer or ExternalName."),
        column("Cluster-IP", "string", "The service's virtual IP."),
        column("External-IP", "string", "Addresses reachable from outside the cluster."),
        column("Port(s)", "string", "Exposed ports."),
        AGE_COLUMN,
        column("Selector", "string", "Labels of the pods behind the service.", priority=1),
    ),
    _service_row,
)
NODE = Printer(
    (
        NAME_COLUMN,
        column("Status", "string", "Readiness of the node."),
        column("Roles", "string", "Roles from node-role.kubernetes.io labels."),
        AGE_COLUMN,
        column("Version", "string", "Kubelet version."),
    ),
    _node_row,
)
EVENT_COLUMNS = (
    column("Last Seen", "string", "Time since the latest occurrence."),
    column("Type", "string", "Normal or Warning."),
    column("Reason", "string", "Short machine-readable reason."),
    column("Object", "string", "The object the event is about."),
    column("Message", "string", "Human-readable description."),
)
"""An Event's columns, in either of its groups (``events.k8s.io`` prints the same)."""
EVENT = Printer(EVENT_COLUMNS, _event_row)
SERVICE_ACCOUNT = Printer(
    (NAME_COLUMN, column("Secrets", "integer", "Secrets listed."), AGE_COLUMN),
    lambda obj, now: [name_of(obj), len(obj.get("secrets") or []), created(obj, now)],
)
ENDPOINTS = Printer(
    (NAME_COLUMN, column("Endpoints", "string", "Endpoints of the service."), AGE_COLUMN),
    lambda obj, now: [name_of(obj), _endpoints(obj), created(obj, now)],
)
PERSISTENT_VOLUME_CLAIM = Printer(
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
)
PERSISTENT_VOLUME = Printer(
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
)
REPLICATION_CONTROLLER = Printer(
    (
        *simple_columns(
            ("Desired", "integer", "Desired replicas."),
            ("Current", "integer", "Replicas created."),
            ("Ready", "integer", "Replicas ready."),
        ),
        AGE_COLUMN,
        CONTAINERS_COLUMN,
        IMAGES_COLUMN,
        column("Selector", "string", "The labels of the pods.", priority=1),
    ),
    _rc_row,
)
RESOURCE_QUOTA = Printer(
    (
        *simple_columns(
            ("Request", "string", "Used out of hard limits, for requests."),
            ("Limit", "string", "Used out of hard limits, for limits."),
        ),
        AGE_COLUMN,
    ),
    _quota_row,
)
