"""The kubelets of the simulated nodes: each bound pod is run by a ``PodWorker``.

A pod bound to one of the simulated nodes gets a ``podworker.PodWorker`` that takes it
through ``Pending`` (init containers, ``ContainerCreating``/``PodInitializing``) to
``Running`` with a pod IP from its node's CIDR, and on to whatever its ``behaviour``
says. A pod being deleted gets ``Killing`` for each running container and is removed
after its grace period (capped at one second so tests stay fast). Pods on nodes that
are not simulated are left alone, as with no kubelet, and so are the pods of a node
whose kubelet is stopped (``heartbeat.kubelet_stopped``) until it is back.

This class is the workers' host: it remembers the images each node has pulled, hands
out pod IPs, and works out the status the workers report (``write``), which its
``statusmanager.StatusManager`` sends as the node (``system:node:<node>``), through the
admission webhooks and policies that look at ``pods/status``; a stopped pod's delete is
``finaldelete``'s, as the node too.

Entry point: ``Kubelets(cluster, nodes, job_run_time)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.core.qos import pod_qos_class
from kubeforge.apiserver.controllers import podstatus
from kubeforge.apiserver.controllers.behaviour import behaviour_of
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.containerrun import ContainerRun
from kubeforge.apiserver.controllers.finaldelete import FinalDeletes
from kubeforge.apiserver.controllers.heartbeat import kubelet_stopped
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of
from kubeforge.apiserver.controllers.nodes import NodeSpec, PodAddresses
from kubeforge.apiserver.controllers.podworker import PodWorker
from kubeforge.apiserver.controllers.statusmanager import StatusManager
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey

__all__ = ["Kubelets"]

_PODS = ("", "pods")
_NODES = ("", "nodes")
_MAX_GRACE = 1.0
_IDENTITY = ("name", "namespace", "uid", "resourceVersion")


class Kubelets(ControllerLoop):
    resource = _PODS

    def __init__(self, cluster: Cluster, nodes: list[NodeSpec], job_run_time: float) -> None:
        super().__init__(cluster)
        self._nodes = {spec.name: spec for spec in nodes}
        self._job_run_time = job_run_time
        self._workers: dict[str, PodWorker] = {}
        self._removing: set[str] = set()
        self._images: set[tuple[str, str]] = set()
        self._addresses = PodAddresses(nodes)
        self._node_of: dict[Key, str] = {}
        self._on_node: dict[str, set[Key]] = {}
        """The pods bound to each node, kept from pod events: a Node's heartbeat wakes its
        pods without a pass over every pod."""
        self._statuses = StatusManager(cluster)
        self._final = FinalDeletes(cluster)

    def start(self) -> None:
        for pod in self.cluster.list(_PODS):
            self._addresses.track(pod, gone=False)
            self._place(key_of(pod), pod, gone=False)
        super().start()

    def stop(self) -> None:
        super().stop()
        self._statuses.stop()
        self._final.stop()

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_NODES: self._node_keys, _PODS: self._pod_keys}

    def _node_keys(self, event: Event) -> list[Key]:
        name = event.object["metadata"]["name"]
        return self._pods_on(name) if name in self._nodes else []  # a kubelet may be back

    def _pod_keys(self, event: Event) -> list[Key]:
        pod, previous = event.object, event.previous
        meta = pod["metadata"]
        self._place(key_of(pod), pod, gone=event.type == "DELETED")
        if previous is not None and _pod_ip(previous) != _pod_ip(pod):
            self._addresses.track(previous, gone=True)
        self._addresses.track(pod, gone=event.type == "DELETED")
        if event.type == "DELETED":
            self._workers.pop(meta.get("uid", ""), None)
            self._removing.discard(meta.get("uid", ""))
            return []
        if (pod.get("spec") or {}).get("nodeName") not in self._nodes:
            return []
        if (
            previous is not None
            and meta.get("uid", "") in self._workers
            and not meta.get("deletionTimestamp")
            and previous.get("spec") == pod.get("spec")
        ):
            # Its worker's own timer wakes it: a status write (most often the worker's
            # own) changes nothing it acts on; a new spec or a deletion does.
            return []
        return [(meta.get("namespace") or "", meta["name"])]

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
        now = self.cluster.wall_time()
        worker = self._workers.get(uid)
        if worker is None:
            worker = self._workers[uid] = PodWorker(
                self, pod, behaviour_of(pod, self._job_run_time)
            )
            if (pod.get("status") or {}).get("phase") == "Running":
                worker.resume(pod, now)  # this server restarted; the pod kept running
                return None
        return worker.step(pod, now)

    def _pods_on(self, node: str) -> list[Key]:
        return sorted(self._on_node.get(node, ()))

    def _place(self, key: Key, pod: dict[str, Any], *, gone: bool) -> None:
        before = self._node_of.pop(key, None)
        if before is not None:
            self._on_node[before].discard(key)
        node = (pod.get("spec") or {}).get("nodeName")
        if node and not gone:
            self._node_of[key] = str(node)
            self._on_node.setdefault(str(node), set()).add(key)

    def _terminate(self, pod: dict[str, Any], uid: str) -> float | None:
        if uid in self._removing:
            return None
        self._removing.add(uid)
        worker = self._workers.get(uid)
        if worker is not None:
            worker.stop_events(pod)
        grace = float(pod["metadata"].get("deletionGracePeriodSeconds") or 0)
        meta = pod["metadata"]
        namespace, name = meta.get("namespace") or "", meta["name"]
        assert self._loop is not None
        node = str(pod["spec"]["nodeName"])
        finish = self._final.finish
        self._loop.call_later(min(grace, _MAX_GRACE), finish, namespace, name, uid, node)
        return None

    # --- KubeletHost ------------------------------------------------------------------------

    def must_pull(self, node: str, container: dict[str, Any]) -> bool:
        policy = container.get("imagePullPolicy") or "IfNotPresent"
        if policy == "Never":
            return False
        return policy == "Always" or (node, str(container.get("image"))) not in self._images

    def pulled(self, node: str, image: str) -> None:
        self._images.add((node, image))

    def write(
        self, pod: dict[str, Any], phase: str, runs: list[ContainerRun], *, sandbox: bool
    ) -> None:
        """The pod's status as the kubelet's status manager writes it."""
        current = self.cluster.get(
            _PODS, pod["metadata"].get("namespace") or "", pod["metadata"]["name"]
        )
        if current is None or current["metadata"].get("uid") != pod["metadata"].get("uid"):
            return
        # A status not sent yet is newer than the stored one: its pod IP, its times.
        unsent = self._statuses.latest(current["metadata"]["uid"])
        seen = current if unsent is None else {**current, "status": unsent}
        status = dict(seen.get("status") or {})
        # A status write takes only the status from what it is sent (the rest is the
        # stored pod's), so the pod's identity is all the body needs besides it; the
        # engine copies what it is given before changing anything.
        meta = current["metadata"]
        identity = {k: meta[k] for k in _IDENTITY if k in meta}
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": identity, "status": status}
        spec = self._nodes[str(current["spec"]["nodeName"])]
        now = self.cluster.now()
        status["phase"] = phase
        status["conditions"] = podstatus.conditions(seen, now, phase, runs, sandbox=sandbox)
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
        inits = [podstatus.container_status(current, r) for r in runs if r.kind != "app"]
        if inits:
            status["initContainerStatuses"] = inits
        status["containerStatuses"] = [
            podstatus.container_status(current, r) for r in runs if r.kind == "app"
        ]
        status["qosClass"] = status.get("qosClass") or pod_qos_class(current.get("spec") or {})
        self._statuses.send(spec.name, body)


def _pod_ip(pod: dict[str, Any]) -> Any:
    return (pod.get("status") or {}).get("podIP")
