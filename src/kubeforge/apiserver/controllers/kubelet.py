"""The kubelets of the simulated nodes: each bound pod is pulled, created, started and stopped.

A pod bound to one of the simulated nodes goes ``Pending`` (containers waiting in
``ContainerCreating``, events ``Pulling``) -> ``Running`` (``Pulled``, ``Created``,
``Started``; a pod IP from its node's CIDR) -> Ready once each readiness probe's
``initialDelaySeconds`` has passed. What it does next is its ``behaviour``: run until
deleted, exit with a code (then ``Succeeded``/``Failed``, or a restart with
``CrashLoopBackOff`` back-off as ``restartPolicy`` says), fail its image pull, or never
become ready. A pod being deleted gets ``Killing`` and is removed after its grace period
(capped at one second so tests stay fast). Pods on nodes that are not simulated are
left alone, as with no kubelet.

Simulated durations are milliseconds; messages keep the kubelet's nominal ``back-off 10s``.

Entry point: ``Kubelets(cluster, nodes, job_run_time)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.controllers import podstatus
from kubeforge.apiserver.controllers.behaviour import Behaviour, behaviour_of
from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.heartbeat import kubelet_stopped
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, key_of
from kubeforge.apiserver.controllers.nodes import NodeSpec, PodAddresses
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["Kubelets"]

_PODS = ("", "pods")
_NODES = ("", "nodes")
_PULL = 0.02
_START = 0.005
_BACKOFF = 0.25
_BACKOFF_CAP = 5.0
_MAX_GRACE = 1.0


@dataclass
class _Run:
    """What the kubelet knows of one pod's containers between steps."""

    behaviour: Behaviour
    stage: str = "pulling"
    due: float = 0.0
    restarts: int = 0
    started_at: str = ""
    started: float = 0.0
    ready_at: float | None = None
    exit_at: float | None = None
    last_state: dict[str, Any] = field(default_factory=dict)


class Kubelets(ControllerLoop):
    resource = _PODS

    def __init__(self, cluster: Cluster, nodes: list[NodeSpec], job_run_time: float) -> None:
        super().__init__(cluster)
        self._nodes = {spec.name: spec for spec in nodes}
        self._job_run_time = job_run_time
        self._runs: dict[str, _Run] = {}
        self._removing: set[str] = set()
        self._images: set[tuple[str, str]] = set()
        self._addresses = PodAddresses(nodes)

    def start(self) -> None:
        for pod in self.cluster.list(_PODS):
            self._addresses.track(pod, gone=False)
        super().start()

    def keys_for(self, event: Event) -> list[Key]:
        if event.resource == _NODES and event.object["metadata"]["name"] in self._nodes:
            return self._pods_on(event.object["metadata"]["name"])  # a kubelet may be back
        if event.resource != _PODS:
            return []
        meta = event.object["metadata"]
        if event.previous is not None:
            self._addresses.track(event.previous, gone=True)  # its IP may have changed
        self._addresses.track(event.object, gone=event.type == "DELETED")
        if event.type == "DELETED":
            self._runs.pop(meta.get("uid", ""), None)
            self._removing.discard(meta.get("uid", ""))
            return []
        if (event.object.get("spec") or {}).get("nodeName") in self._nodes:
            return [(meta.get("namespace") or "", meta["name"])]
        return []

    def sync(self, key: Key) -> float | None:
        pod = self.cluster.get(_PODS, *key)
        if pod is None or (pod.get("spec") or {}).get("nodeName") not in self._nodes:
            return None
        if kubelet_stopped(self.cluster.get(_NODES, "", pod["spec"]["nodeName"])):
            return None  # nothing runs, stops or reports there until the kubelet is back
        uid = pod["metadata"].get("uid", "")
        if pod["metadata"].get("deletionTimestamp"):
            return self._terminate(pod, uid)
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            return None
        run = self._runs.get(uid)
        if run is None:
            run = self._runs[uid] = _Run(behaviour_of(pod, self._job_run_time))
            if (pod.get("status") or {}).get("phase") == "Running":
                return self._resume(pod, run)  # this server restarted; the pod kept running
            return self._admit(pod, run)
        now = self.cluster.wall_time()
        if now < run.due:
            return run.due - now
        if run.stage == "pulling":
            return self._pulled(pod, run)
        if run.stage == "backoff":
            return self._start(pod, run, restarted=True)
        if run.stage == "running":
            return self._running(pod, run, now)
        return None

    def _pods_on(self, node: str) -> list[Key]:
        return [
            key_of(p)
            for p in self.cluster.list(_PODS)
            if (p.get("spec") or {}).get("nodeName") == node
        ]

    # --- steps ------------------------------------------------------------------------------

    def _admit(self, pod: dict[str, Any], run: _Run) -> float:
        """Accepted: containers are being created and images pulled."""
        node = str(pod["spec"]["nodeName"])
        pulls = [c for c in _containers(pod) if self._must_pull(node, c)]
        for container in pulls:
            self._event(
                pod, container, "Normal", "Pulling", f'Pulling image "{container.get("image")}"'
            )
        statuses = [
            podstatus.waiting(c, "ContainerCreating") for c in pod["spec"].get("containers") or []
        ]
        self._write(pod, "Pending", statuses, sandbox=False, unready=_names(pod))
        run.due = self.cluster.wall_time() + (_PULL if pulls else _START)
        return run.due - self.cluster.wall_time()

    def _resume(self, pod: dict[str, Any], run: _Run) -> float | None:
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        run.stage, run.started, run.started_at = (
            "running",
            self.cluster.wall_time(),
            self.cluster.now(),
        )
        run.restarts = max((int(s.get("restartCount") or 0) for s in statuses), default=0)
        return None

    def _pulled(self, pod: dict[str, Any], run: _Run) -> float | None:
        node = str(pod["spec"]["nodeName"])
        if run.behaviour.image_pull_fails:
            return self._pull_failed(pod, run)
        for container in _containers(pod):
            image = str(container.get("image"))
            if self._must_pull(node, container):
                self._images.add((node, image))
                self._event(
                    pod,
                    container,
                    "Normal",
                    "Pulled",
                    f'Successfully pulled image "{image}" in {_PULL * 1000:g}ms '
                    f"({_PULL * 1000:g}ms including waiting). Image size: {_size(image)} bytes.",
                )
            else:
                self._already_present(pod, container)
        return self._start(pod, run, restarted=False)

    def _already_present(self, pod: dict[str, Any], container: dict[str, Any]) -> None:
        message = f'Container image "{container.get("image")}" already present on machine'
        self._event(pod, container, "Normal", "Pulled", message)

    def _pull_failed(self, pod: dict[str, Any], run: _Run) -> float | None:
        statuses = []
        for container in pod["spec"].get("containers") or []:
            image = container.get("image")
            why = f'failed to pull and unpack image "{image}": not found (kubeforge.dev/behavior)'
            message = f'Failed to pull image "{image}": {why}'
            self._event(pod, container, "Warning", "Failed", message)
            self._event(pod, container, "Warning", "Failed", "Error: ErrImagePull")
            self._event(pod, container, "Normal", "BackOff", f'Back-off pulling image "{image}"')
            self._event(pod, container, "Warning", "Failed", "Error: ImagePullBackOff")
            statuses.append(
                podstatus.waiting(
                    container, "ImagePullBackOff", f'Back-off pulling image "{image}"'
                )
            )
        self._write(pod, "Pending", statuses, sandbox=True, unready=_names(pod))
        run.stage = "failed-pull"
        return None

    def _start(self, pod: dict[str, Any], run: _Run, *, restarted: bool) -> float | None:
        now = self.cluster.wall_time()
        if restarted:
            for container in pod["spec"].get("containers") or []:
                self._already_present(pod, container)
        for container in pod["spec"].get("containers") or []:
            name = container.get("name")
            self._event(pod, container, "Normal", "Created", f"Created container: {name}")
            self._event(pod, container, "Normal", "Started", f"Started container {name}")
        run.stage, run.started, run.started_at = "running", now, self.cluster.now()
        delay = _readiness_delay(pod)
        run.ready_at = None if run.behaviour.never_ready else now + delay
        after = run.behaviour.exit_after
        run.exit_at = None if after is None else now + after
        self._write_running(pod, run, ready=run.ready_at is not None and delay == 0)
        return self._next(run, now)

    def _running(self, pod: dict[str, Any], run: _Run, now: float) -> float | None:
        if run.exit_at is not None and now >= run.exit_at:
            return self._exited(pod, run)
        if run.ready_at is not None and now >= run.ready_at:
            self._write_running(pod, run, ready=True)
            run.ready_at = None
        return self._next(run, now)

    def _exited(self, pod: dict[str, Any], run: _Run) -> float | None:
        behaviour = run.behaviour
        code, reason = behaviour.exit_code, behaviour.exit_reason
        policy = pod["spec"].get("restartPolicy", "Always")
        if policy == "Never" or (policy == "OnFailure" and code == 0):
            statuses = [
                podstatus.terminated(
                    pod,
                    c,
                    run.started_at,
                    self.cluster.now(),
                    code=code,
                    reason=reason,
                    restarts=run.restarts,
                )
                for c in pod["spec"].get("containers") or []
            ]
            phase = "Succeeded" if code == 0 else "Failed"
            self._write(pod, phase, statuses, sandbox=False, unready=[], completed=True)
            run.stage = "done"
            return None
        finished = self.cluster.now()
        run.last_state = {
            str(c.get("name")): {
                "terminated": podstatus.exit_state(
                    podstatus.container_id(pod, str(c.get("name")), run.restarts),
                    run.started_at,
                    finished,
                    code,
                    reason,
                )
            }
            for c in pod["spec"].get("containers") or []
        }
        run.restarts += 1
        if run.restarts == 1:
            return self._start(pod, run, restarted=True)  # the first restart is immediate
        return self._back_off(pod, run)

    def _back_off(self, pod: dict[str, Any], run: _Run) -> float:
        meta = pod["metadata"]
        nominal = min(10 * 2 ** (run.restarts - 2), 300)
        who = f"{meta['name']}_{meta.get('namespace')}({meta.get('uid')})"
        statuses = []
        for container in pod["spec"].get("containers") or []:
            name = container.get("name")
            self._event(
                pod,
                container,
                "Warning",
                "BackOff",
                f"Back-off restarting failed container {name} in pod {who}",
            )
            message = f"back-off {nominal}s restarting failed container={name} pod={who}"
            statuses.append(
                podstatus.waiting(
                    container,
                    "CrashLoopBackOff",
                    message,
                    restarts=run.restarts - 1,
                    last=run.last_state.get(str(name)),
                )
            )
        self._write(pod, "Running", statuses, sandbox=True, unready=_names(pod))
        run.stage = "backoff"
        run.due = self.cluster.wall_time() + min(_BACKOFF * 2 ** (run.restarts - 2), _BACKOFF_CAP)
        return run.due - self.cluster.wall_time()

    def _terminate(self, pod: dict[str, Any], uid: str) -> float | None:
        if uid in self._removing:
            return None
        self._removing.add(uid)
        run = self._runs.get(uid)
        if run is not None and run.stage == "running":
            for container in pod["spec"].get("containers") or []:
                self._event(
                    pod,
                    container,
                    "Normal",
                    "Killing",
                    f"Stopping container {container.get('name')}",
                )
        grace = float(pod["metadata"].get("deletionGracePeriodSeconds") or 0)
        meta = pod["metadata"]
        namespace, name = meta.get("namespace") or "", meta["name"]
        assert self._loop is not None
        self._loop.call_later(min(grace, _MAX_GRACE), self.cluster.finish_pod, namespace, name)
        return None

    # --- helpers ----------------------------------------------------------------------------

    def _next(self, run: _Run, now: float) -> float | None:
        dues = [t for t in (run.ready_at, run.exit_at) if t is not None]
        return max(min(dues) - now, 0.0) if dues else None

    def _must_pull(self, node: str, container: dict[str, Any]) -> bool:
        policy = container.get("imagePullPolicy") or "IfNotPresent"
        if policy == "Never":
            return False
        return policy == "Always" or (node, str(container.get("image"))) not in self._images

    def _write_running(self, pod: dict[str, Any], run: _Run, *, ready: bool) -> None:
        statuses = [
            podstatus.running(
                pod,
                c,
                run.started_at,
                ready=ready,
                restarts=run.restarts,
                last=run.last_state.get(str(c.get("name"))),
            )
            for c in pod["spec"].get("containers") or []
        ]
        self._write(pod, "Running", statuses, sandbox=True, unready=[] if ready else _names(pod))

    def _write(
        self,
        pod: dict[str, Any],
        phase: str,
        statuses: list[dict[str, Any]],
        *,
        sandbox: bool,
        unready: list[str],
        completed: bool = False,
    ) -> None:
        current = self.cluster.get(
            _PODS, pod["metadata"].get("namespace") or "", pod["metadata"]["name"]
        )
        if current is None or current["metadata"].get("uid") != pod["metadata"].get("uid"):
            return
        body = copy(current)
        status = body.setdefault("status", {})
        spec = self._nodes[str(current["spec"]["nodeName"])]
        now = self.cluster.now()
        status["phase"] = phase
        status["conditions"] = podstatus.conditions(
            current, now, sandbox=sandbox, unready=unready, completed=completed
        )
        status["hostIP"] = spec.host_ip
        status["hostIPs"] = [{"ip": spec.host_ip}]
        status.setdefault("startTime", now)
        if sandbox and not status.get("podIP"):
            ip = (
                spec.host_ip
                if current["spec"].get("hostNetwork")
                else self._addresses.allocate(spec)
            )
            status["podIP"], status["podIPs"] = ip, [{"ip": ip}]
        status["containerStatuses"] = statuses
        status["qosClass"] = status.get("qosClass") or podstatus.qos_class(current)
        self.cluster.update_status(_PODS, body)

    def _event(
        self, pod: dict[str, Any], container: dict[str, Any], kind: str, reason: str, message: str
    ) -> None:
        self.cluster.record(
            pod,
            kind,
            reason,
            message,
            component="kubelet",
            host=str(pod["spec"].get("nodeName")),
            field_path=f"spec.containers{{{container.get('name')}}}",
        )


def _containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)]


def _names(pod: dict[str, Any]) -> list[str]:
    return sorted(str(c.get("name")) for c in _containers(pod))


def _readiness_delay(pod: dict[str, Any]) -> float:
    delays = [
        float((c.get("readinessProbe") or {}).get("initialDelaySeconds") or 0)
        for c in _containers(pod)
        if c.get("readinessProbe")
    ]
    return max(delays, default=0.0)


def _size(image: str) -> int:
    return 20_000_000 + sum(image.encode()) * 9973 % 80_000_000
