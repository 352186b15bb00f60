"""One pod on a simulated kubelet, step by step: pull, initialize, run, probe, restart, exit.

A ``PodWorker`` starts the pod's containers batch by batch (``containerrun.batches``):
``Pulling``/``Pulled`` (or ``already present on machine``), ``Created``, ``Started``
for each; a regular init container then runs to ``Completed`` before the next batch, a
sidecar only has to have started. Until the app containers start the pod is
``Pending`` and every waiting container says ``PodInitializing`` (``ContainerCreating``
when there are no init containers), so kubectl shows ``Init:1/2``. Then, per container:
readiness and startup as its probes say; a liveness probe the behaviour makes fail gives
``Unhealthy`` Events and ``Killing`` (``Container main failed liveness probe, will be
restarted``); an exit follows ``restartPolicy``. A restarted container has its
``restartCount`` raised and its ``lastState.terminated``; its first restart is
immediate, later ones wait in ``CrashLoopBackOff``. Once no app container will run
again the pod is ``Succeeded`` or ``Failed`` and its sidecars are stopped. An init
container the behaviour fails (``init_exit_code``) is restarted the same way, or, with
``restartPolicy: Never``, fails the pod.

Entry point: ``PodWorker(host, pod, behaviour).step(pod, now)``, called by ``Kubelets``.
"""

from __future__ import annotations

from typing import Any, Protocol

from kubeforge.apiserver.controllers import podstatus
from kubeforge.apiserver.controllers.behaviour import Behaviour
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.containerrun import (
    ContainerRun,
    batches,
    failure_threshold,
    probe_failure,
)

__all__ = ["KubeletHost", "PodWorker"]

_PULL = 0.02
_START = 0.005
_INIT_RUN = 0.02
_BACKOFF = 0.25
_BACKOFF_CAP = 5.0
_LIVENESS_EXIT = 137  # killed after the grace period: SIGKILL


class KubeletHost(Protocol):
    """What a pod worker needs from its node's kubelet."""

    cluster: Cluster

    def must_pull(self, node: str, container: dict[str, Any]) -> bool: ...

    def pulled(self, node: str, image: str) -> None: ...

    def write(
        self, pod: dict[str, Any], phase: str, runs: list[ContainerRun], *, sandbox: bool
    ) -> None: ...


class PodWorker:
    """The kubelet's state for one pod between steps."""

    def __init__(self, host: KubeletHost, pod: dict[str, Any], behaviour: Behaviour) -> None:
        self.host = host
        self.behaviour = behaviour
        self.batches = batches(pod)
        self.runs = [run for batch in self.batches for run in batch]
        self.batch = 0
        self.stage = "new"
        self.due = 0.0
        self.failed = False  # an init container failed and will not be restarted

    @property
    def cluster(self) -> Cluster:
        return self.host.cluster

    def step(self, pod: dict[str, Any], now: float) -> float | None:
        """Advance as far as ``now`` allows; the seconds until the next step, or None."""
        if self.stage == "new":
            return self._admit(pod, now)
        if now < self.due:
            return self.due - now
        if self.stage == "pulling":
            return self._pulled(pod, now)
        if self.stage == "initializing":
            return self._initialized(pod, now)
        if self.stage == "running":
            return self._running(pod, now)
        return None

    def resume(self, pod: dict[str, Any], now: float) -> None:
        """The server restarted while the pod ran: take its containers as they were."""
        status = pod.get("status") or {}
        known = {
            s.get("name"): s
            for s in [
                *status.get("initContainerStatuses", []),
                *status.get("containerStatuses", []),
            ]
            if isinstance(s, dict)
        }
        for run in self.runs:
            before = known.get(run.name) or {}
            run.state = dict(before.get("state") or {})
            run.restarts = int(before.get("restartCount") or 0)
            run.last = dict(before.get("lastState") or {})
            run.started_at = str((run.state.get("running") or {}).get("startedAt") or "")
            run.since = now
            run.never_ready = run.kind == "app" and self.behaviour.never_ready
        self.stage, self.batch = "running", len(self.batches) - 1

    def stop_events(self, pod: dict[str, Any]) -> None:
        """``Killing`` for each running container of a pod being deleted."""
        for run in self.runs:
            if run.running:
                self._event(pod, run, "Normal", "Killing", f"Stopping container {run.name}")

    # --- starting ----------------------------------------------------------------------------

    def _admit(self, pod: dict[str, Any], now: float) -> float | None:
        initializing = any(run.kind != "app" for run in self.runs)
        for run in self.runs:
            run.wait("PodInitializing" if initializing else "ContainerCreating")
        self._write(pod, sandbox=False)
        return self._pull(pod, now)

    def _pull(self, pod: dict[str, Any], now: float) -> float | None:
        if self.batch >= len(self.batches):
            return None
        node = str(pod["spec"]["nodeName"])
        pulls = [r for r in self.batches[self.batch] if self.host.must_pull(node, r.spec)]
        for run in pulls:
            self._event(pod, run, "Normal", "Pulling", f'Pulling image "{run.spec.get("image")}"')
        self.stage, self.due = "pulling", now + (_PULL if pulls else _START)
        return self.due - now

    def _pulled(self, pod: dict[str, Any], now: float) -> float | None:
        node = str(pod["spec"]["nodeName"])
        batch = self.batches[self.batch]
        if self.behaviour.image_pull_fails:
            self._pull_failed(pod, batch)
            return None
        for run in batch:
            image = str(run.spec.get("image"))
            if self.host.must_pull(node, run.spec):
                self.host.pulled(node, image)
                took = f"{_PULL * 1000:g}ms"
                message = (
                    f'Successfully pulled image "{image}" in {took} ({took} including '
                    f"waiting). Image size: {_size(image)} bytes."
                )
                self._event(pod, run, "Normal", "Pulled", message)
            else:
                self._already_present(pod, run)
            self._start(pod, run, now)
        kind = batch[0].kind
        if kind == "app":
            self.stage = "running"
            self._write(pod, sandbox=True)
            return self._next(now)
        self.stage = "initializing"
        self.due = now + _INIT_RUN if kind == "init" else (batch[0].started_due or now)
        self._write(pod, sandbox=True)
        return self.due - now

    def _pull_failed(self, pod: dict[str, Any], batch: list[ContainerRun]) -> None:
        for run in batch:
            image = run.spec.get("image")
            why = f'failed to pull and unpack image "{image}": not found (kubeforge.dev/behavior)'
            self._event(pod, run, "Warning", "Failed", f'Failed to pull image "{image}": {why}')
            self._event(pod, run, "Warning", "Failed", "Error: ErrImagePull")
            self._event(pod, run, "Normal", "BackOff", f'Back-off pulling image "{image}"')
            self._event(pod, run, "Warning", "Failed", "Error: ImagePullBackOff")
            run.wait("ImagePullBackOff", f'Back-off pulling image "{image}"')
        self.stage = "failed-pull"
        self._write(pod, sandbox=True)

    def _initialized(self, pod: dict[str, Any], now: float) -> float | None:
        """The current init container completed (or the sidecar started): the next batch.
        An init container the behaviour fails exits instead, and is restarted or fails the
        pod as ``restartPolicy`` says."""
        (run,) = self.batches[self.batch]
        if run.kind == "init":
            if run.restart_due is not None:  # its back-off is over: it runs again
                run.restarts += 1
                self._already_present(pod, run)
                self._start(pod, run, now)
                return self._init_running(pod, now)
            code = self.behaviour.init_exit_code
            if code:
                return self._init_failed(pod, run, now, code)
            stamp = self.cluster.now()
            cid = podstatus.container_id(pod, run.name, run.restarts)
            exited = podstatus.exit_state(cid, run.started_at, stamp, 0, "Completed")
            run.state = {"terminated": exited}
        else:
            run.tick(now)
        self.batch += 1
        self._write(pod, sandbox=True)
        return self._pull(pod, now)

    def _init_running(self, pod: dict[str, Any], now: float) -> float:
        self.due = now + _INIT_RUN
        self._write(pod, sandbox=True)
        return self.due - now

    def _init_failed(
        self, pod: dict[str, Any], run: ContainerRun, now: float, code: int
    ) -> float | None:
        exited = self._exit(pod, run, code, "Error")
        if pod["spec"].get("restartPolicy", "Always") == "Never":
            run.state, self.failed = {"terminated": exited}, True
            self._finished(pod)
            return None
        run.last = {"terminated": exited}
        self._restart(pod, run, now)
        if run.running:
            return self._init_running(pod, now)
        self.due = run.restart_due or now
        self._write(pod, sandbox=True)
        return self.due - now

    def _start(self, pod: dict[str, Any], run: ContainerRun, now: float) -> None:
        self._event(pod, run, "Normal", "Created", f"Created container: {run.name}")
        self._event(pod, run, "Normal", "Started", f"Started container {run.name}")
        run.start(now, self.cluster.now(), self.behaviour)
        run.tick(now)

    def _already_present(self, pod: dict[str, Any], run: ContainerRun) -> None:
        message = f'Container image "{run.spec.get("image")}" already present on machine'
        self._event(pod, run, "Normal", "Pulled", message)

    # --- running -----------------------------------------------------------------------------

    def _running(self, pod: dict[str, Any], now: float) -> float | None:
        changed = False
        for run in self.runs:
            if run.kind == "init":
                continue
            if run.restart_due is not None and now >= run.restart_due:
                run.restarts += 1
                self._already_present(pod, run)
                self._start(pod, run, now)
                changed = True
            elif run.running and run.exit_due is not None and now >= run.exit_due:
                code, reason = self.behaviour.exit_code, self.behaviour.exit_reason
                self._died(pod, run, now, code, reason)
                changed = True
            elif run.running and run.kill_due is not None and now >= run.kill_due:
                self._liveness_kill(pod, run)
                self._died(pod, run, now, _LIVENESS_EXIT, "Error")
                changed = True
            elif run.running:
                changed = run.tick(now) or changed
        apps = [r for r in self.runs if r.kind == "app"]
        if all("terminated" in r.state for r in apps):
            self._finished(pod)
            return None
        if changed:
            self._write(pod, sandbox=True)
        return self._next(now)

    def _liveness_kill(self, pod: dict[str, Any], run: ContainerRun) -> None:
        probe = run.spec["livenessProbe"]
        ip = str((pod.get("status") or {}).get("podIP") or "")
        for _ in range(failure_threshold(probe)):  # one a period; the recorder counts them
            self._event(pod, run, "Warning", "Unhealthy", probe_failure("Liveness", probe, ip))
        message = f"Container {run.name} failed liveness probe, will be restarted"
        self._event(pod, run, "Normal", "Killing", message)

    def _died(
        self, pod: dict[str, Any], run: ContainerRun, now: float, code: int, why: str
    ) -> None:
        """The container exited with ``code``: restarted, backed off, or left terminated."""
        exited = self._exit(pod, run, code, why)
        run.kill_due = run.exit_due = run.started_due = run.ready_due = None
        policy = pod["spec"].get("restartPolicy", "Always")
        if run.kind == "app" and (policy == "Never" or (policy == "OnFailure" and code == 0)):
            run.state = {"terminated": exited}
            return
        run.last = {"terminated": exited}
        self._restart(pod, run, now)

    def _exit(self, pod: dict[str, Any], run: ContainerRun, code: int, why: str) -> dict[str, Any]:
        cid = podstatus.container_id(pod, run.name, run.restarts)
        return podstatus.exit_state(cid, run.started_at, self.cluster.now(), code, why)

    def _restart(self, pod: dict[str, Any], run: ContainerRun, now: float) -> None:
        """Start the exited container again: at once the first time, later after a
        back-off in ``CrashLoopBackOff`` (``restart_due``)."""
        if run.restarts == 0:
            run.restarts = 1
            self._already_present(pod, run)
            self._start(pod, run, now)
            return
        meta = pod["metadata"]
        who = f"{meta['name']}_{meta.get('namespace')}({meta.get('uid')})"
        nominal = min(10 * 2 ** (run.restarts - 1), 300)
        event = f"Back-off restarting failed container {run.name} in pod {who}"
        self._event(pod, run, "Warning", "BackOff", event)
        run.wait(
            "CrashLoopBackOff",
            f"back-off {nominal}s restarting failed container={run.name} pod={who}",
        )
        run.restart_due = now + min(_BACKOFF * 2 ** (run.restarts - 1), _BACKOFF_CAP)

    def _finished(self, pod: dict[str, Any]) -> None:
        """No app container runs again: sidecars stop, the pod takes its final phase."""
        for run in self.runs:
            if run.kind == "sidecar" and "terminated" not in run.state:
                cid = podstatus.container_id(pod, run.name, run.restarts)
                stopped = podstatus.exit_state(
                    cid, run.started_at, self.cluster.now(), 0, "Completed"
                )
                run.state, run.restart_due = {"terminated": stopped}, None
        self.stage = "done"
        self._write(pod, sandbox=False)

    # --- helpers -----------------------------------------------------------------------------

    def _next(self, now: float) -> float | None:
        dues = [d for d in (r.next_due() for r in self.runs) if d is not None]
        return max(min(dues) - now, 0.0) if dues else None

    def _write(self, pod: dict[str, Any], *, sandbox: bool) -> None:
        phase = "Failed" if self.failed else _phase(self.runs)
        self.host.write(pod, phase, self.runs, sandbox=sandbox)

    def _event(
        self, pod: dict[str, Any], run: ContainerRun, kind: str, reason: str, message: str
    ) -> None:
        field = "initContainers" if run.kind != "app" else "containers"
        self.cluster.record(
            pod,
            kind,
            reason,
            message,
            component="kubelet",
            host=str(pod["spec"].get("nodeName")),
            field_path=f"spec.{field}{{{run.name}}}",
        )


def _phase(runs: list[ContainerRun]) -> str:
    """``getPhase``: Pending until app containers run; Succeeded/Failed once none will."""
    apps = [r for r in runs if r.kind == "app"]
    if apps and all("terminated" in r.state for r in apps):
        codes = [int(r.state["terminated"].get("exitCode") or 0) for r in apps]
        return "Succeeded" if not any(codes) else "Failed"
    if any(r.running or r.restarts or r.last for r in apps):
        return "Running"
    return "Pending"


def _size(image: str) -> int:
    return 20_000_000 + sum(image.encode()) * 9973 % 80_000_000
