"""The ``kubectl get pods`` columns: the pod's ``Status`` cell summed up from its containers.

The reasoning is ``printPod`` of Kubernetes 1.32 (``pkg/printers/internalversion``): an
init container that has not succeeded (a sidecar: not started) names the pod's state
(``Init:1/2``, ``Init:CrashLoopBackOff``); otherwise the first container with a waiting
or terminated reason does; a pod being deleted is ``Terminating`` (``Unknown`` when its
node is lost). Sidecars count among the ready containers. Restarts count every
container's, with the time since the latest.

Entry point: ``POD``, the printer of core/v1 Pods (listed in ``kinds``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubeforge.apiserver.printers.cells import NONE, created, dict_at, list_at, name_of
from kubeforge.apiserver.printers.columns import (
    AGE_COLUMN,
    NAME_COLUMN,
    Printer,
    column,
    human_duration,
    parse_time,
)

__all__ = ["POD"]


@dataclass
class _Restarts:
    """Restarts summed over the containers looked at, and when the latest one ended."""

    count: int = 0
    last: datetime | None = None

    def note(self, container: dict[str, Any]) -> None:
        self.count += int(container.get("restartCount") or 0)
        finished = parse_time(dict_at(container, "lastState", "terminated").get("finishedAt"))
        if finished is not None and (self.last is None or finished > self.last):
            self.last = finished

    def cell(self, now: datetime) -> str:
        if not self.count or self.last is None:
            return str(self.count)
        return f"{self.count} ({human_duration((now - self.last).total_seconds())} ago)"


def _sidecars(spec: dict[str, Any]) -> set[str]:
    """Init containers that always restart: they run beside the app containers."""
    return {
        str(c.get("name"))
        for c in list_at(spec, "initContainers")
        if isinstance(c, dict) and c.get("restartPolicy") == "Always"
    }


def _init_reason(
    spec: dict[str, Any], status: dict[str, Any], restarts: _Restarts
) -> tuple[str | None, int]:
    """The state of the first init container that has not succeeded (or started, for a
    sidecar), or ``None``; and how many started sidecars before it are ready."""
    init_specs, sidecars, ready = list_at(spec, "initContainers"), _sidecars(spec), 0
    for index, container in enumerate(list_at(status, "initContainerStatuses")):
        restarts.note(container)
        terminated = dict_at(container, "state", "terminated")
        waiting = dict_at(container, "state", "waiting")
        if terminated and terminated.get("exitCode") == 0:
            continue
        if container.get("name") in sidecars and container.get("started"):
            ready += 1 if container.get("ready") else 0
            continue
        if terminated:
            reason = "Init:" + str(
                terminated.get("reason") or f"ExitCode:{terminated.get('exitCode')}"
            )
        elif waiting.get("reason") and waiting.get("reason") != "PodInitializing":
            reason = f"Init:{waiting['reason']}"
        else:
            reason = f"Init:{index}/{len(init_specs)}"
        return reason, ready
    return None, ready


def _container_reason(status: dict[str, Any], reason: str, restarts: _Restarts) -> tuple[str, int]:
    """The pod's reason as its app containers tell it, and how many of them are ready."""
    running, ready = False, 0
    # Reversed, so that the first container with a reason has the last word.
    for container in reversed(list_at(status, "containerStatuses")):
        restarts.note(container)
        state = dict_at(container, "state")
        waiting, terminated = dict_at(state, "waiting"), dict_at(state, "terminated")
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
            for c in list_at(status, "conditions")
            if isinstance(c, dict)
        )
        reason = "Running" if ready_condition else "NotReady"
    return reason, ready


def _readiness_gates(spec: dict[str, Any], status: dict[str, Any]) -> str:
    """``passed/all`` of the pod's readiness gates, ``<none>`` without any."""
    gates = list_at(spec, "readinessGates")
    if not gates:
        return NONE
    true = {
        c.get("type")
        for c in list_at(status, "conditions")
        if isinstance(c, dict) and c.get("status") == "True"
    }
    passed = sum(1 for g in gates if isinstance(g, dict) and g.get("conditionType") in true)
    return f"{passed}/{len(gates)}"


def _pod_row(pod: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(pod, "spec"), dict_at(pod, "status")
    restarts = _Restarts()
    initializing, ready = _init_reason(spec, status, restarts)
    reason = initializing or str(status.get("reason") or status.get("phase") or "")
    initialized = any(
        c.get("type") == "Initialized" and c.get("status") == "True"
        for c in list_at(status, "conditions")
        if isinstance(c, dict)
    )
    if initializing is None or initialized:  # a restarting sidecar is not initialization
        reason, ready_apps = _container_reason(status, reason, restarts)
        ready += ready_apps
    if dict_at(pod, "metadata").get("deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif status.get("phase") not in ("Succeeded", "Failed"):
            reason = "Terminating"
    return [
        name_of(pod),
        f"{ready}/{len(list_at(spec, 'containers')) + len(_sidecars(spec))}",
        reason,
        restarts.cell(now),
        created(pod, now),
        status.get("podIP") or NONE,
        spec.get("nodeName") or NONE,
        status.get("nominatedNodeName") or NONE,
        _readiness_gates(spec, status),
    ]


POD = Printer(
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
)
"""core/v1 Pods."""
