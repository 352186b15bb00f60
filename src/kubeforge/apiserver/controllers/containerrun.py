"""One container as a simulated kubelet runs it: its state, restarts and probe timers.

A pod's containers are started in the kubelet's order (``batches``): each regular init
container alone, to completion; each sidecar (an init container with ``restartPolicy:
Always``) alone, until it has started; then every app container at once. Probes follow
the container's spec: ``started`` once the startup probe's ``initialDelaySeconds`` has
passed, ready once the readiness probe's has too (both succeed by default), and a
liveness probe fails only when the pod's behaviour says so (``liveness_fails_after``):
``failureThreshold`` failures later the kubelet kills the container.

Entry points: ``ContainerRun``, ``batches(pod)``, ``probe_failure(kind, probe, pod_ip)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.controllers.behaviour import Behaviour

__all__ = ["PROBE_PERIOD", "ContainerRun", "batches", "probe_failure"]

PROBE_PERIOD = 0.05
"""Simulated seconds between two probes (``periodSeconds`` is 10 on a cluster)."""


@dataclass
class ContainerRun:
    """What the kubelet knows of one container; ``kind`` is init, sidecar or app."""

    spec: dict[str, Any]
    kind: str
    restarts: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    since: float = 0.0
    started_at: str = ""
    last: dict[str, Any] = field(default_factory=dict)
    started_due: float | None = None
    ready_due: float | None = None
    kill_due: float | None = None
    restart_due: float | None = None
    exit_due: float | None = None
    never_ready: bool = False

    @property
    def name(self) -> str:
        return str(self.spec.get("name"))

    @property
    def running(self) -> bool:
        return "running" in self.state

    @property
    def started(self) -> bool:
        return self.running and self.started_due is None

    @property
    def ready(self) -> bool:
        if self.kind == "init":
            return (self.state.get("terminated") or {}).get("exitCode") == 0
        return self.started and self.ready_due is None and not self.never_ready

    def wait(self, reason: str, message: str = "") -> None:
        self.state = {"waiting": {"reason": reason, **({"message": message} if message else {})}}

    def start(self, now: float, stamp: str, behaviour: Behaviour) -> None:
        """Running from ``now``: the startup, readiness, liveness and exit timers are set."""
        self.state = {"running": {"startedAt": stamp}}
        self.since, self.started_at, self.restart_due = now, stamp, None
        app = self.kind == "app"
        self.never_ready = app and behaviour.never_ready
        after = behaviour.exit_after
        self.exit_due = now + after if app and after is not None else None
        fails_after = behaviour.liveness_fails_after
        startup = _delay(self.spec, "startupProbe")
        self.started_due = now + startup if startup is not None and startup > 0 else None
        after_startup = now + (startup or 0.0)
        readiness = _delay(self.spec, "readinessProbe")
        ready_at = max(after_startup, now + (readiness or 0.0))
        self.ready_due = ready_at if ready_at > now else None
        liveness = self.spec.get("livenessProbe")
        self.kill_due = None
        if isinstance(liveness, dict) and fails_after is not None:
            delay = _delay(self.spec, "livenessProbe") or 0.0
            failing = max(after_startup, now + fails_after, now + delay)
            self.kill_due = failing + (failure_threshold(liveness) - 1) * PROBE_PERIOD

    def tick(self, now: float) -> bool:
        """Let the startup and readiness timers pass; True if ``started``/``ready`` changed."""
        changed = False
        if self.started_due is not None and now >= self.started_due:
            self.started_due, changed = None, True
        if self.started_due is None and self.ready_due is not None and now >= self.ready_due:
            self.ready_due, changed = None, True
        return changed

    def next_due(self) -> float | None:
        timers = (self.started_due, self.ready_due, self.kill_due, self.restart_due, self.exit_due)
        dues = [t for t in timers if t is not None]
        return min(dues) if dues else None


def failure_threshold(probe: dict[str, Any]) -> int:
    return max(int(probe.get("failureThreshold") or 3), 1)


def _delay(spec: dict[str, Any], probe: str) -> float | None:
    found = spec.get(probe)
    if not isinstance(found, dict):
        return None
    return max(float(found.get("initialDelaySeconds") or 0), 0.0)


def batches(pod: dict[str, Any]) -> list[list[ContainerRun]]:
    """The containers of ``pod`` in the groups the kubelet starts them in."""
    spec = pod.get("spec") or {}
    out: list[list[ContainerRun]] = []
    for container in spec.get("initContainers") or []:
        if isinstance(container, dict):
            sidecar = container.get("restartPolicy") == "Always"
            out.append([ContainerRun(container, "sidecar" if sidecar else "init")])
    apps = [ContainerRun(c, "app") for c in spec.get("containers") or [] if isinstance(c, dict)]
    if apps:
        out.append(apps)
    return out


def probe_failure(kind: str, probe: dict[str, Any], pod_ip: str) -> str:
    """The ``Unhealthy`` Event's message for a failed probe, in the prober's words."""
    if isinstance(probe.get("httpGet"), dict):
        why = "HTTP probe failed with statuscode: 500"
    elif isinstance(probe.get("tcpSocket"), dict):
        port = probe["tcpSocket"].get("port")
        why = f"dial tcp {pod_ip}:{port}: connect: connection refused"
    elif isinstance(probe.get("grpc"), dict):
        why = 'service unhealthy (responded with "NOT_SERVING")'
    else:
        why = ""  # an exec probe's output: the simulated command prints nothing
    return f"{kind} probe failed: {why}"
