"""The pod status a kubelet writes: conditions, container statuses, images, in its words.

Conditions come in the kubelet's order (PodReadyToStartContainers, Initialized, Ready,
ContainersReady, PodScheduled), keep their ``lastTransitionTime`` while their status
holds, and say ``ContainersNotReady`` / ``containers with unready status: [a b]`` or
``PodCompleted`` as ``pkg/kubelet/status/generate.go`` does.

Entry points: ``conditions(pod, ...)``, ``waiting(...)``, ``running(...)``,
``terminated(...)``, ``image_ref(image)``.
"""

from __future__ import annotations

import hashlib
from typing import Any

__all__ = [
    "conditions",
    "container_id",
    "image_ref",
    "qos_class",
    "running",
    "terminated",
    "waiting",
]


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


def _base(container: dict[str, Any], restarts: int, last: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": container.get("name"),
        "image": container.get("image"),
        "imageID": "",
        "ready": False,
        "started": False,
        "restartCount": restarts,
        "lastState": last,
    }


def waiting(
    container: dict[str, Any],
    reason: str,
    message: str = "",
    *,
    restarts: int = 0,
    last: dict[str, Any] | None = None,
) -> dict[str, Any]:
    state: dict[str, Any] = {"reason": reason}
    if message:
        state["message"] = message
    return {**_base(container, restarts, last or {}), "state": {"waiting": state}}


def running(
    pod: dict[str, Any],
    container: dict[str, Any],
    started_at: str,
    *,
    ready: bool,
    restarts: int = 0,
    last: dict[str, Any] | None = None,
) -> dict[str, Any]:
    image, image_id = image_ref(str(container.get("image")))
    return {
        **_base(container, restarts, last or {}),
        "image": image,
        "imageID": image_id,
        "containerID": container_id(pod, str(container.get("name")), restarts),
        "ready": ready,
        "started": True,
        "state": {"running": {"startedAt": started_at}},
    }


def terminated(
    pod: dict[str, Any],
    container: dict[str, Any],
    started_at: str,
    finished_at: str,
    *,
    code: int,
    reason: str,
    restarts: int = 0,
) -> dict[str, Any]:
    """The container's status once it exited (and is not being restarted)."""
    image, image_id = image_ref(str(container.get("image")))
    cid = container_id(pod, str(container.get("name")), restarts)
    return {
        **_base(container, restarts, {}),
        "image": image,
        "imageID": image_id,
        "containerID": cid,
        "state": {"terminated": exit_state(cid, started_at, finished_at, code, reason)},
    }


def exit_state(cid: str, started: str, finished: str, code: int, reason: str) -> dict[str, Any]:
    return {
        "exitCode": code,
        "reason": reason,
        "startedAt": started,
        "finishedAt": finished,
        "containerID": cid,
    }


def conditions(
    pod: dict[str, Any],
    now: str,
    *,
    sandbox: bool,
    unready: list[str],
    completed: bool = False,
) -> list[dict[str, Any]]:
    """The five pod conditions; ``unready`` names the containers that are not ready."""
    if completed:
        ready = ("False", "PodCompleted", "")
    elif unready:
        ready = (
            "False",
            "ContainersNotReady",
            f"containers with unready status: [{' '.join(unready)}]",
        )
    else:
        ready = ("True", "", "")
    wanted = [
        ("PodReadyToStartContainers", ("True" if sandbox else "False", "", "")),
        ("Initialized", ("True", "PodCompleted" if completed else "", "")),
        ("Ready", ready),
        ("ContainersReady", ready),
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


def qos_class(pod: dict[str, Any]) -> str:
    """``Guaranteed`` (every container's cpu and memory limited, requests equal to limits),
    ``BestEffort`` (nothing asked) or ``Burstable``, as ``v1qos.GetPodQOS`` classifies."""
    containers = [c for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)]
    resources = [c.get("resources") or {} for c in containers]
    if not any(r.get("requests") or r.get("limits") for r in resources):
        return "BestEffort"
    for r in resources:
        limits, requests = r.get("limits") or {}, r.get("requests") or {}
        if not all(k in limits for k in ("cpu", "memory")):
            return "Burstable"
        if any(requests.get(k, limits[k]) != limits[k] for k in ("cpu", "memory")):
            return "Burstable"
    return "Guaranteed"
