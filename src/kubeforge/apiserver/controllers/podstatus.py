"""The pod status a kubelet writes: conditions, container statuses, images, in its words.

Conditions come in the kubelet's order (PodReadyToStartContainers, Initialized, Ready,
ContainersReady, PodScheduled), keep their ``lastTransitionTime`` while their status
holds, and say ``ContainersNotInitialized`` / ``containers with incomplete status: [a]``,
``ContainersNotReady`` / ``containers with unready status: [sidecar main]`` (sidecars
first, then app containers, in spec order), ``ReadinessGatesNotReady``, or
``PodCompleted`` / ``PodFailed`` for a finished pod, as ``pkg/kubelet/status/generate.go``
does.

Entry points: ``conditions(pod, now, phase, runs, sandbox=...)``,
``container_status(pod, run)``, ``image_ref(image)``.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from kubeforge.apiserver.controllers.containerrun import ContainerRun

__all__ = [
    "conditions",
    "container_id",
    "container_status",
    "exit_state",
    "image_ref",
]


@functools.lru_cache(maxsize=1024)
def image_ref(image: str) -> tuple[str, str]:
    """``(image, imageID)`` as containerd reports them for what a pod spec names."""
    reference = image.split("@")[0]
    if ":" in reference.rsplit("/", 1)[-1]:
        name, tag = reference.rsplit(":", 1)
    else:
        name, tag = reference, "latest"
    registry = name.split("/")[0]
    if "/" not in name:
        name = f"docker.io/library/{name}"
    elif "." not in registry and ":" not in registry and registry != "localhost":
        name = f"docker.io/{name}"
    digest = hashlib.sha256(image.encode()).hexdigest()
    return f"{name}:{tag}", f"{name}@sha256:{digest}"


def container_id(pod: dict[str, Any], name: str, restarts: int) -> str:
    seed = f"{pod['metadata'].get('uid')}/{name}/{restarts}".encode()
    return f"containerd://{hashlib.sha256(seed).hexdigest()}"


def container_status(pod: dict[str, Any], run: ContainerRun) -> dict[str, Any]:
    """The ``containerStatuses`` (or ``initContainerStatuses``) entry of one container."""
    status: dict[str, Any] = {
        "name": run.name,
        "image": run.spec.get("image"),
        "imageID": "",
        "ready": run.ready,
        "started": run.started,
        "restartCount": run.restarts,
        "lastState": run.last,
        "state": run.state or {"waiting": {"reason": "ContainerCreating"}},
    }
    if "waiting" not in status["state"]:
        status["image"], status["imageID"] = image_ref(str(run.spec.get("image")))
        status["containerID"] = container_id(pod, run.name, run.restarts)
    return status


def exit_state(cid: str, started: str, finished: str, code: int, reason: str) -> dict[str, Any]:
    return {
        "exitCode": code,
        "reason": reason,
        "startedAt": started,
        "finishedAt": finished,
        "containerID": cid,
    }


def conditions(
    pod: dict[str, Any], now: str, phase: str, runs: list[ContainerRun], *, sandbox: bool
) -> list[dict[str, Any]]:
    """The five pod conditions for these containers, as ``generate.go`` words them."""
    ready = _containers_ready(runs, phase)
    if ready[0] == "True":
        ready = _readiness_gates(pod) or ready
    wanted = [
        ("PodReadyToStartContainers", ("True" if sandbox else "False", "", "")),
        ("Initialized", _initialized(runs, phase)),
        ("Ready", ready),
        ("ContainersReady", _containers_ready(runs, phase)),
        ("PodScheduled", ("True", "", "")),
    ]
    previous = {c.get("type"): c for c in (pod.get("status") or {}).get("conditions") or []}
    out = []
    for kind, (status, reason, message) in wanted:
        before = previous.get(kind) or {}
        since = before.get("lastTransitionTime") if before.get("status") == status else now
        condition: dict[str, Any] = {
            "type": kind,
            "status": status,
            "lastProbeTime": None,
            "lastTransitionTime": since or now,
        }
        if reason:
            condition["reason"] = reason
        if message:
            condition["message"] = message
        out.append(condition)
    return out


_Said = tuple[str, str, str]


def _initialized(runs: list[ContainerRun], phase: str) -> _Said:
    if phase == "Succeeded":
        return ("True", "PodCompleted", "")
    # Once an app container has run, the pod was initialized (a sidecar may be restarting).
    if any(r.kind == "app" and (r.running or "terminated" in r.state) for r in runs):
        return ("True", "", "")
    incomplete = [
        r.name
        for r in runs
        if (r.kind == "init" and not r.ready) or (r.kind == "sidecar" and not r.started)
    ]
    if incomplete:
        message = f"containers with incomplete status: [{' '.join(incomplete)}]"
        return ("False", "ContainersNotInitialized", message)
    return ("True", "", "")


def _containers_ready(runs: list[ContainerRun], phase: str) -> _Said:
    if phase == "Succeeded":
        return ("False", "PodCompleted", "")
    if phase == "Failed":
        return ("False", "PodFailed", "")
    unready = [r.name for r in runs if r.kind == "sidecar" and not r.ready]
    unready += [r.name for r in runs if r.kind == "app" and not r.ready]
    if unready:
        message = f"containers with unready status: [{' '.join(unready)}]"
        return ("False", "ContainersNotReady", message)
    return ("True", "", "")


def _readiness_gates(pod: dict[str, Any]) -> _Said | None:
    present = {
        c.get("type"): c.get("status") for c in (pod.get("status") or {}).get("conditions") or []
    }
    problems = []
    for gate in (pod.get("spec") or {}).get("readinessGates") or []:
        kind = str((gate or {}).get("conditionType"))
        if kind not in present:
            problems.append(
                f'corresponding condition of pod readiness gate "{kind}" does not exist.'
            )
        elif present[kind] != "True":
            problems.append(
                f'the status of pod readiness gate "{kind}" is not "True", but {present[kind]}'
            )
    return ("False", "ReadinessGatesNotReady", ", ".join(problems)) if problems else None
