"""Server-side columns for built-in kinds, as ``kubectl get`` shows them from a real cluster.

A ``Printer`` is a list of column definitions plus a function from one object to its
row of cells. Built-in kinds that have bespoke columns on a real server (pods,
namespaces, config maps, secrets, services, nodes, events, leases) get them here;
every other built-in gets the generic ``Name`` and ``Created At`` columns. Ages are
rendered on the server, as the real printers do (``5m``, ``3h12m``, ``2d``).

Entry points: ``printer_for_builtin(group, kind)``, ``human_duration(seconds)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "DEFAULT_PRINTER",
    "Printer",
    "age",
    "column",
    "human_duration",
    "parse_time",
    "printer_for_builtin",
]

Row = Callable[[dict[str, Any], datetime], list[Any]]

NAME_DESCRIPTION = "Name of the object, unique among objects of its kind in its namespace."
AGE_DESCRIPTION = "Time since the object was created (metadata.creationTimestamp)."
_NONE = "<none>"


@dataclass(frozen=True, slots=True)
class Printer:
    """Column definitions and how to compute one object's cells for them."""

    columns: tuple[dict[str, Any], ...]
    row: Row


def column(
    name: str, kind: str, description: str, *, priority: int = 0, fmt: str = ""
) -> dict[str, Any]:
    """One ``TableColumnDefinition``."""
    return {
        "name": name,
        "type": kind,
        "format": fmt,
        "description": description,
        "priority": priority,
    }


NAME_COLUMN = column("Name", "string", NAME_DESCRIPTION, fmt="name")
AGE_COLUMN = column("Age", "string", AGE_DESCRIPTION)


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware ``datetime``, or ``None`` when absent or malformed."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def human_duration(seconds: float) -> str:
    """Elapsed time the way kubectl prints ages: coarse, at most two units.

    >>> [human_duration(s) for s in (5, 130, 600, 3 * 3600 + 120, 9 * 3600, 3 * 86400 + 7200)]
    ['5s', '2m10s', '10m', '3h2m', '9h', '3d2h']
    """
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


def age(timestamp: Any, now: datetime) -> str:
    """``human_duration`` since ``timestamp``; ``<unknown>`` when it is missing."""
    when = parse_time(timestamp)
    if when is None:
        return "<unknown>"
    return human_duration((now - when).total_seconds())


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _dict(obj: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}


def _list(obj: Any, *keys: str) -> list[Any]:
    *parents, last = keys
    value = _dict(obj, *parents).get(last)
    return value if isinstance(value, list) else []


def _name(obj: dict[str, Any]) -> str:
    return str(_meta(obj).get("name") or "")


def _created(obj: dict[str, Any], now: datetime) -> str:
    return age(_meta(obj).get("creationTimestamp"), now)


DEFAULT_PRINTER = Printer(
    (NAME_COLUMN, column("Created At", "date", "When the object was created.")),
    lambda obj, now: [_name(obj), _meta(obj).get("creationTimestamp")],
)


def _pod_row(pod: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = _dict(pod, "spec"), _dict(pod, "status")
    reason = str(status.get("reason") or status.get("phase") or "")
    restarts, ready = 0, 0
    last_restart: datetime | None = None

    def note_restart(container: dict[str, Any]) -> None:
        nonlocal restarts, last_restart
        restarts += int(container.get("restartCount") or 0)
        finished = parse_time(_dict(container, "lastState", "terminated").get("finishedAt"))
        if finished is not None and (last_restart is None or finished > last_restart):
            last_restart = finished

    initializing = False
    init_specs = _list(spec, "initContainers")
    for index, container in enumerate(_list(status, "initContainerStatuses")):
        note_restart(container)
        terminated = _dict(container, "state", "terminated")
        waiting = _dict(container, "state", "waiting")
        if terminated and terminated.get("exitCode") == 0:
            continue
        initializing = True
        if terminated:
            reason = "Init:" + str(
                terminated.get("reason") or f"ExitCode:{terminated.get('exitCode')}"
            )
        elif waiting.get("reason") and waiting.get("reason") != "PodInitializing":
            reason = f"Init:{waiting['reason']}"
        else:
            reason = f"Init:{index}/{len(init_specs)}"
        break

    if not initializing:
        running = False
        for container in reversed(_list(status, "containerStatuses")):
            note_restart(container)
            state = _dict(container, "state")
            waiting, terminated = _dict(state, "waiting"), _dict(state, "terminated")
            if waiting.get("reason"):
                reason = str(waiting["reason"])
            elif terminated.get("reason"):
                reason = str(terminated["reason"])
            elif terminated:
                signal = terminated.get("signal")
                reason = f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode')}"
            elif container.get("ready") and "running" in state:
                running = True
                ready += 1
        if reason == "Completed" and running:
            ready_condition = any(
                c.get("type") == "Ready" and c.get("status") == "True"
                for c in _list(status, "conditions")
                if isinstance(c, dict)
            )
            reason = "Running" if ready_condition else "NotReady"

    if _meta(pod).get("deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif status.get("phase") not in ("Succeeded", "Failed"):
            reason = "Terminating"

    shown_restarts = str(restarts)
    if restarts and last_restart is not None:
        since = human_duration((now - last_restart).total_seconds())
        shown_restarts = f"{restarts} ({since} ago)"
    gates = _list(spec, "readinessGates")
    if gates:
        true = {
            c.get("type")
            for c in _list(status, "conditions")
            if isinstance(c, dict) and c.get("status") == "True"
        }
        passed = sum(1 for g in gates if isinstance(g, dict) and g.get("conditionType") in true)
        shown_gates = f"{passed}/{len(gates)}"
    else:
        shown_gates = _NONE
    return [
        _name(pod),
        f"{ready}/{len(_list(spec, 'containers'))}",
        reason,
        shown_restarts,
        _created(pod, now),
        status.get("podIP") or _NONE,
        spec.get("nodeName") or _NONE,
        status.get("nominatedNodeName") or _NONE,
        shown_gates,
    ]


def _service_row(svc: dict[str, Any], now: datetime) -> list[Any]:
    spec = _dict(svc, "spec")
    kind = str(spec.get("type") or "ClusterIP")
    external: list[str] = [str(ip) for ip in _list(spec, "externalIPs")]
    if kind == "ExternalName":
        external = [str(spec.get("externalName") or "")]
    elif kind == "LoadBalancer":
        ingress = _list(svc, "status", "loadBalancer", "ingress")
        found = [str(i.get("ip") or i.get("hostname")) for i in ingress if isinstance(i, dict)]
        external = external + found if found else external or ["<pending>"]
    ports = []
    for port in _list(spec, "ports"):
        if not isinstance(port, dict):
            continue
        node_port = f":{port['nodePort']}" if port.get("nodePort") else ""
        ports.append(f"{port.get('port')}{node_port}/{port.get('protocol') or 'TCP'}")
    selector = _dict(spec, "selector")
    return [
        _name(svc),
        kind,
        spec.get("clusterIP") or _NONE,
        ",".join(external) or _NONE,
        ",".join(ports) or _NONE,
        _created(svc, now),
        ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or _NONE,
    ]


def _node_row(node: dict[str, Any], now: datetime) -> list[Any]:
    ready = [
        c.get("status")
        for c in _list(node, "status", "conditions")
        if isinstance(c, dict) and c.get("type") == "Ready"
    ]
    status = "Ready" if ready == ["True"] else "NotReady" if ready else "Unknown"
    if _dict(node, "spec").get("unschedulable"):
        status += ",SchedulingDisabled"
    prefix = "node-role.kubernetes.io/"
    labels = _dict(node, "metadata", "labels")
    roles = sorted(k[len(prefix) :] for k in labels if k.startswith(prefix) and k != prefix)
    version = _dict(node, "status", "nodeInfo").get("kubeletVersion") or ""
    return [_name(node), status, ",".join(roles) or _NONE, _created(node, now), version]


def _event_row(event: dict[str, Any], now: datetime) -> list[Any]:
    seen = event.get("lastTimestamp") or event.get("eventTime") or event.get("firstTimestamp")
    involved = _dict(event, "involvedObject")
    target = f"{str(involved.get('kind') or '').lower()}/{involved.get('name') or ''}"
    return [
        age(seen, now),
        event.get("type") or "",
        event.get("reason") or "",
        target,
        str(event.get("message") or "").strip(),
    ]


def _data_count(obj: dict[str, Any]) -> int:
    return len(_dict(obj, "data")) + len(_dict(obj, "binaryData"))


_BUILTIN: dict[tuple[str, str], Printer] = {
    ("", "Pod"): Printer(
        (
            NAME_COLUMN,
            column("Ready", "string", "Ready containers out of all containers."),
            column("Status", "string", "Aggregate state of the pod's containers."),
            column("Restarts", "string", "Container restarts, and how long ago the last one was."),
            AGE_COLUMN,
            column("IP", "string", "The pod's IP address.", priority=1),
            column("Node", "string", "The node the pod runs on.", priority=1),
            column("Nominated Node", "string", "Node picked by preemption.", priority=1),
            column("Readiness Gates", "string", "Readiness gates passed.", priority=1),
        ),
        _pod_row,
    ),
    ("", "Namespace"): Printer(
        (NAME_COLUMN, column("Status", "string", "Active or Terminating."), AGE_COLUMN),
        lambda ns, now: [_name(ns), _dict(ns, "status").get("phase") or "", _created(ns, now)],
    ),
    ("", "ConfigMap"): Printer(
        (NAME_COLUMN, column("Data", "integer", "Number of keys."), AGE_COLUMN),
        lambda cm, now: [_name(cm), _data_count(cm), _created(cm, now)],
    ),
    ("", "Secret"): Printer(
        (
            NAME_COLUMN,
            column("Type", "string", "How the secret is used."),
            column("Data", "integer", "Number of keys."),
            AGE_COLUMN,
        ),
        lambda s, now: [_name(s), s.get("type") or "Opaque", _data_count(s), _created(s, now)],
    ),
    ("", "Service"): Printer(
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
    ),
    ("", "Node"): Printer(
        (
            NAME_COLUMN,
            column("Status", "string", "Readiness of the node."),
            column("Roles", "string", "Roles from node-role.kubernetes.io labels."),
            AGE_COLUMN,
            column("Version", "string", "Kubelet version."),
        ),
        _node_row,
    ),
    ("", "Event"): Printer(
        (
            column("Last Seen", "string", "Time since the latest occurrence."),
            column("Type", "string", "Normal or Warning."),
            column("Reason", "string", "Short machine-readable reason."),
            column("Object", "string", "The object the event is about."),
            column("Message", "string", "Human-readable description."),
        ),
        _event_row,
    ),
    ("coordination.k8s.io", "Lease"): Printer(
        (NAME_COLUMN, column("Holder", "string", "Who holds the lease."), AGE_COLUMN),
        lambda lease, now: [
            _name(lease),
            _dict(lease, "spec").get("holderIdentity") or "",
            _created(lease, now),
        ],
    ),
}


def printer_for_builtin(group: str, kind: str) -> Printer:
    """The bespoke printer of a built-in kind, or the generic ``Name``/``Created At`` one."""
    return _BUILTIN.get((group, kind), DEFAULT_PRINTER)
