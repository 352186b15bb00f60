"""What a simulated pod does, chosen by ``kubeforge.dev/`` annotations on it or its template.

==================================  ===================================================
``kubeforge.dev/behavior: fail``         every container exits 1 as soon as it starts
``kubeforge.dev/behavior: crash-loop``   exits 1 shortly after each start; with
                                         ``restartPolicy: Always`` that is CrashLoopBackOff
``kubeforge.dev/behavior: never-ready``  runs, but readiness never succeeds
``kubeforge.dev/behavior: oom-killed``   exits 137 with reason ``OOMKilled``
``kubeforge.dev/behavior: image-pull-backoff``  the pull fails: ErrImagePull, then
                                         ImagePullBackOff, forever
``kubeforge.dev/exit-after: "2.5"``      containers exit after that many seconds ...
``kubeforge.dev/exit-code: "3"``         ... with that code (default 0)
``kubeforge.dev/liveness-fails-after:    each container's liveness probe (if it has one)
"1.5"``                                  fails from that many seconds after each start:
                                         ``Unhealthy``, ``Killing``, a restart
``kubeforge.dev/init-exit-code: "1"``    init containers exit with that code: the pod is
                                         ``Init:Error`` (``restartPolicy: Never``) or
                                         ``Init:CrashLoopBackOff``
==================================  ===================================================

A pod a Job owns exits 0 after the server's ``--job-pod-run-time`` unless told otherwise;
any other pod runs until deleted. Entry point: ``behaviour_of(pod, job_run_time)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

__all__ = ["PREFIX", "Behaviour", "behaviour_of"]

PREFIX = "kubeforge.dev/"
_CRASH_AFTER = 0.05
_OOM_CODE = 137


@dataclass(frozen=True)
class Behaviour:
    """``exit_after`` None: the containers run until the pod is deleted."""

    exit_after: float | None = None
    exit_code: int = 0
    oom_killed: bool = False
    never_ready: bool = False
    image_pull_fails: bool = False
    liveness_fails_after: float | None = None
    init_exit_code: int = 0

    @property
    def exit_reason(self) -> str:
        if self.oom_killed:
            return "OOMKilled"
        return "Completed" if self.exit_code == 0 else "Error"


_RUNS = Behaviour()
"""What a pod with no ``kubeforge.dev/`` annotation and no Job over it does."""


def behaviour_of(pod: dict[str, Any], job_run_time: float) -> Behaviour:
    annotations = pod["metadata"].get("annotations") or {}
    if not any(key.startswith(PREFIX) for key in annotations) and not _owned_by_job(pod):
        return _RUNS
    chosen = _chosen(pod, job_run_time)
    failing = _seconds(annotations.get(PREFIX + "liveness-fails-after"))
    init_code = _integer(annotations.get(PREFIX + "init-exit-code")) or 0
    return replace(chosen, liveness_fails_after=failing, init_exit_code=init_code)


def _chosen(pod: dict[str, Any], job_run_time: float) -> Behaviour:
    annotations = pod["metadata"].get("annotations") or {}
    chosen = str(annotations.get(PREFIX + "behavior") or "")
    exit_after = _seconds(annotations.get(PREFIX + "exit-after"))
    exit_code = _integer(annotations.get(PREFIX + "exit-code"))
    if exit_after is None and exit_code is not None:
        exit_after = 0.0
    if exit_after is None and _owned_by_job(pod):
        exit_after = job_run_time
    if chosen == "fail":
        return Behaviour(exit_after=0.0, exit_code=1)
    if chosen == "crash-loop":
        return Behaviour(exit_after=_CRASH_AFTER, exit_code=1)
    if chosen == "oom-killed":
        return Behaviour(exit_after=exit_after or 0.0, exit_code=_OOM_CODE, oom_killed=True)
    if chosen == "never-ready":
        return Behaviour(exit_after=exit_after, exit_code=exit_code or 0, never_ready=True)
    if chosen == "image-pull-backoff":
        return Behaviour(image_pull_fails=True)
    return Behaviour(exit_after=exit_after, exit_code=exit_code or 0)


def _owned_by_job(pod: dict[str, Any]) -> bool:
    return any(
        isinstance(ref, dict) and ref.get("kind") == "Job" and ref.get("controller")
        for ref in pod["metadata"].get("ownerReferences") or []
    )


def _seconds(value: Any) -> float | None:
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None


def _integer(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
