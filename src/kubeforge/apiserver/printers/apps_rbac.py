"""Server-side columns of apps workloads, ServiceAccounts, Endpoints, ``events.k8s.io``
Events, RBAC objects and webhook configurations, as ``kubectl get`` shows them from a
Kubernetes 1.32 cluster (``pkg/printers/internalversion``).

Entry point: ``printer_for_builtin(group, kind)``: the printer of any built-in kind,
from this module, ``jobs_volumes`` or ``cluster``, falling back to ``core``'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.meta.labelselector import format_labels, format_selector
from kubeforge.apiserver.printers import core
from kubeforge.apiserver.printers.cluster import PRINTERS as _CLUSTER_PRINTERS
from kubeforge.apiserver.printers.core import AGE_COLUMN, NAME_COLUMN, Printer, age, column
from kubeforge.apiserver.printers.jobs_volumes import PRINTERS as _MORE_PRINTERS
from kubeforge.apiserver.printers.jobs_volumes import created, dict_at, integer, name_of

__all__ = ["printer_for_builtin"]

_MAX_ENDPOINTS = 3


def _containers(obj: dict[str, Any]) -> tuple[str, str]:
    containers = dict_at(obj, "spec", "template", "spec").get("containers") or []
    names = [str(c.get("name") or "") for c in containers if isinstance(c, dict)]
    images = [str(c.get("image") or "") for c in containers if isinstance(c, dict)]
    return ",".join(names), ",".join(images)


_CONTAINERS = column("Containers", "string", "Names of each container in the template.", priority=1)
_IMAGES = column(
    "Images", "string", "Images referenced by each container in the template.", priority=1
)
_SELECTOR = column("Selector", "string", "The label selector of the pods.", priority=1)


def _deployment_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    return [
        name_of(obj),
        f"{integer(status.get('readyReplicas'))}/{integer(spec.get('replicas'))}",
        integer(status.get("updatedReplicas")),
        integer(status.get("availableReplicas")),
        created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


def _replicaset_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    return [
        name_of(obj),
        integer(spec.get("replicas")),
        integer(status.get("replicas")),
        integer(status.get("readyReplicas")),
        created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


def _statefulset_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    ready = f"{integer(status.get('readyReplicas'))}/{integer(spec.get('replicas'))}"
    return [name_of(obj), ready, created(obj, now), names, images]


def _daemonset_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    node_selector = dict_at(obj, "spec", "template", "spec").get("nodeSelector")
    return [
        name_of(obj),
        integer(status.get("desiredNumberScheduled")),
        integer(status.get("currentNumberScheduled")),
        integer(status.get("numberReady")),
        integer(status.get("updatedNumberScheduled")),
        integer(status.get("numberAvailable")),
        format_labels(node_selector),
        created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


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


def _binding_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    ref = dict_at(obj, "roleRef")
    subjects = [s for s in obj.get("subjects") or [] if isinstance(s, dict)]

    def named(kind: str) -> str:
        names = []
        for subject in subjects:
            if subject.get("kind") != kind:
                continue
            name = str(subject.get("name") or "")
            if kind == "ServiceAccount":
                name = f"{subject.get('namespace') or ''}/{name}"
            names.append(name)
        return ", ".join(names)

    return [
        name_of(obj),
        f"{ref.get('kind') or ''}/{ref.get('name') or ''}",
        created(obj, now),
        named("User"),
        named("Group"),
        named("ServiceAccount"),
    ]


def _event_row(event: dict[str, Any], now: datetime) -> list[Any]:
    """An ``events.k8s.io`` Event in the same columns as a core/v1 one."""
    seen = (
        event.get("deprecatedLastTimestamp")
        or (event.get("series") or {}).get("lastObservedTime")
        or event.get("eventTime")
        or event.get("deprecatedFirstTimestamp")
    )
    regarding = dict_at(event, "regarding")
    target = f"{str(regarding.get('kind') or '').lower()}/{regarding.get('name') or ''}"
    note = str(event.get("note") or "").strip()
    return [age(seen, now), event.get("type") or "", event.get("reason") or "", target, note]


_CREATED_AT = column("Created At", "date", "When the object was created.")
_BINDING_COLUMNS = (
    NAME_COLUMN,
    column("Role", "string", "The role bound."),
    AGE_COLUMN,
    column("Users", "string", "Users bound.", priority=1),
    column("Groups", "string", "Groups bound.", priority=1),
    column("ServiceAccounts", "string", "Service accounts bound.", priority=1),
)
_WEBHOOKS = Printer(
    (NAME_COLUMN, column("Webhooks", "integer", "Number of webhooks."), AGE_COLUMN),
    lambda obj, now: [name_of(obj), len(obj.get("webhooks") or []), created(obj, now)],
)
_ROLE = Printer(
    (NAME_COLUMN, _CREATED_AT),
    lambda obj, now: [name_of(obj), dict_at(obj, "metadata").get("creationTimestamp")],
)
_RBAC = "rbac.authorization.k8s.io"
_ADMISSION = "admissionregistration.k8s.io"

_PRINTERS: dict[tuple[str, str], Printer] = {
    ("apps", "Deployment"): Printer(
        (
            NAME_COLUMN,
            column("Ready", "string", "Ready replicas out of desired replicas."),
            column("Up-to-date", "integer", "Replicas running the current template."),
            column("Available", "integer", "Replicas available to users."),
            AGE_COLUMN,
            _CONTAINERS,
            _IMAGES,
            _SELECTOR,
        ),
        _deployment_row,
    ),
    ("apps", "ReplicaSet"): Printer(
        (
            NAME_COLUMN,
            column("Desired", "integer", "Desired replicas."),
            column("Current", "integer", "Replicas created."),
            column("Ready", "integer", "Replicas ready."),
            AGE_COLUMN,
            _CONTAINERS,
            _IMAGES,
            _SELECTOR,
        ),
        _replicaset_row,
    ),
    ("apps", "StatefulSet"): Printer(
        (
            NAME_COLUMN,
            column("Ready", "string", "Ready replicas out of desired replicas."),
            AGE_COLUMN,
            _CONTAINERS,
            _IMAGES,
        ),
        _statefulset_row,
    ),
    ("apps", "DaemonSet"): Printer(
        (
            NAME_COLUMN,
            column("Desired", "integer", "Nodes that should run the daemon pod."),
            column("Current", "integer", "Nodes running at least one daemon pod."),
            column("Ready", "integer", "Nodes whose daemon pod is ready."),
            column("Up-to-date", "integer", "Nodes running the current template."),
            column("Available", "integer", "Nodes whose daemon pod is available."),
            column("Node Selector", "string", "The node selector of the template."),
            AGE_COLUMN,
            _CONTAINERS,
            _IMAGES,
            _SELECTOR,
        ),
        _daemonset_row,
    ),
    ("", "ServiceAccount"): Printer(
        (NAME_COLUMN, column("Secrets", "integer", "Secrets listed."), AGE_COLUMN),
        lambda obj, now: [name_of(obj), len(obj.get("secrets") or []), created(obj, now)],
    ),
    ("", "Endpoints"): Printer(
        (NAME_COLUMN, column("Endpoints", "string", "Endpoints of the service."), AGE_COLUMN),
        lambda obj, now: [name_of(obj), _endpoints(obj), created(obj, now)],
    ),
    ("events.k8s.io", "Event"): Printer(core.printer_for_builtin("", "Event").columns, _event_row),
    (_RBAC, "Role"): _ROLE,
    (_RBAC, "ClusterRole"): _ROLE,
    (_RBAC, "RoleBinding"): Printer(_BINDING_COLUMNS, _binding_row),
    (_RBAC, "ClusterRoleBinding"): Printer(_BINDING_COLUMNS, _binding_row),
    (_ADMISSION, "ValidatingWebhookConfiguration"): _WEBHOOKS,
    (_ADMISSION, "MutatingWebhookConfiguration"): _WEBHOOKS,
}


def printer_for_builtin(group: str, kind: str) -> Printer:
    """The printer of a built-in kind: ``jobs_volumes``', ``cluster``' or this module's,
    else ``core``'s (or its default)."""
    key = (group, kind)
    printer = _MORE_PRINTERS.get(key) or _CLUSTER_PRINTERS.get(key) or _PRINTERS.get(key)
    return printer if printer is not None else core.printer_for_builtin(group, kind)
