"""The simulated control plane: one node with a kubelet, and the namespace finalizer.

On by default; ``--no-simulate-node`` turns both off and the server behaves like
envtest (a bare kube-apiserver): no Node object, pods stay ``Pending`` with no
``nodeName``, a pod DELETE is immediate unless the pod names a node (then it stays
terminating forever, as with no kubelet), deleted namespaces stay ``Terminating``
and nothing collects garbage (``garbage.GarbageCollector`` is off too).

With it (``NodeSimulator``, ``NamespaceFinalizer``):

* Node ``kubeforge-node-0`` exists and is Ready.
* A new pod without ``spec.nodeName`` is bound to it a few milliseconds later, then
  started: ``status.phase: Running``, Ready conditions, container statuses, a
  ``podIP`` unique among live pods from 10.244.0.0/16 and the node's ``hostIP``.
  Each step is an ordinary update: new resourceVersion, MODIFIED event.
* A graceful pod DELETE marks the pod (deletionTimestamp + grace period); the node
  removes it after the grace period, capped at one second so tests stay fast.
* A deleted namespace has its contents deleted (``namespaces.NamespaceFinalizer``,
  re-exported here), then its ``kubernetes`` finalizer
  removed, and disappears — what kube-controller-manager does.

Controllers react to storage events but never write from inside a listener: each
reaction is scheduled on the loop, so watchers see events in revision order.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

from kubeforge.apiserver.controllers.namespaces import NamespaceFinalizer
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.apiserver.storage.sqlite import Event, clone

__all__ = ["NODE_NAME", "NamespaceFinalizer", "NodeSimulator"]

NODE_NAME = "kubeforge-node-0"
HOST_IP = "172.18.0.2"
_POD_NETWORK = ipaddress.ip_network("10.244.0.0/16")
_BIND_DELAY = 0.005
_START_DELAY = 0.02
_MAX_GRACE = 1.0
_PODS = ("", "pods")
_NAMESPACES = ("", "namespaces")


class NodeSimulator:
    """A node object plus the kubelet behaviour tests observe (binding, Running, IPs)."""

    def __init__(self, engine: Engine, registry: Registry) -> None:
        self._engine = engine
        self._registry = registry
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scheduled: set[tuple[str, str]] = set()
        self._removing: set[tuple[str, str]] = set()
        self._next_ip = 2
        self._ips: dict[str, tuple[str, str]] = {}  # pod IP -> pod key, kept from events
        self._unsubscribe: Any = None

    def _served(self, plural: str) -> ServedResource:
        served = self._registry.lookup("", "v1", plural)
        assert served is not None  # built-in
        return served

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._ensure_node()
        self._unsubscribe = self._engine.storage.subscribe(self._on_event)
        for pod in self._engine.storage.objects(_PODS):
            meta = pod["metadata"]
            self._track_ip(pod, deleted=False)
            self._schedule(meta.get("namespace") or "", meta["name"], 0.0)

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _ensure_node(self) -> None:
        self._ensure_lease()
        if self._engine.storage.get(("", "nodes"), "", NODE_NAME) is not None:
            return
        now = self._engine.now()
        condition = {
            "type": "Ready",
            "status": "True",
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
            "reason": "KubeletReady",
            "message": "kubelet is posting ready status",
        }
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": NODE_NAME,
                "labels": {
                    "kubernetes.io/hostname": NODE_NAME,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                },
            },
            "spec": {"podCIDR": str(_POD_NETWORK), "podCIDRs": [str(_POD_NETWORK)]},
            "status": {
                "conditions": [condition],
                "addresses": [
                    {"type": "InternalIP", "address": HOST_IP},
                    {"type": "Hostname", "address": NODE_NAME},
                ],
                "capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                "nodeInfo": {
                    "kubeletVersion": "v1.32.0",
                    "operatingSystem": "linux",
                    "architecture": "amd64",
                    "containerRuntimeVersion": "kubeforge://simulated",
                    "kernelVersion": "",
                    "osImage": "kubeforge simulated node",
                    "kubeProxyVersion": "",
                    "machineID": "",
                    "systemUUID": "",
                    "bootID": "",
                },
            },
        }
        self._engine.create(self._served("nodes"), "", node)

    def _ensure_lease(self) -> None:
        """The node heartbeat Lease a kubelet keeps in ``kube-node-lease``."""
        leases = self._registry.lookup("coordination.k8s.io", "v1", "leases")
        key = ("coordination.k8s.io", "leases")
        if leases is None or self._engine.storage.get(key, "kube-node-lease", NODE_NAME):
            return
        if self._engine.storage.get(_NAMESPACES, "", "kube-node-lease") is None:
            return
        lease = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": NODE_NAME, "namespace": "kube-node-lease"},
            "spec": {
                "holderIdentity": NODE_NAME,
                "leaseDurationSeconds": 40,
                "renewTime": self._engine.now().replace("Z", ".000000Z"),
            },
        }
        self._engine.create(leases, "kube-node-lease", lease)

    def _track_ip(self, pod: dict[str, Any], *, deleted: bool) -> None:
        meta = pod["metadata"]
        key = (meta.get("namespace") or "", meta["name"])
        ip = (pod.get("status") or {}).get("podIP")
        if isinstance(ip, str) and ip:
            if deleted:
                if self._ips.get(ip) == key:
                    del self._ips[ip]
            else:
                self._ips[ip] = key

    def _on_event(self, event: Event) -> None:
        if event.resource != _PODS:
            return
        if event.previous is not None:
            self._track_ip(event.previous, deleted=True)  # its IP may have changed
        self._track_ip(event.object, deleted=event.type == "DELETED")
        if event.type == "DELETED":
            return
        meta = event.object["metadata"]
        self._schedule(meta.get("namespace") or "", meta["name"], _BIND_DELAY)

    def _schedule(self, namespace: str, name: str, delay: float) -> None:
        key = (namespace, name)
        if key in self._scheduled or self._loop is None:
            return
        self._scheduled.add(key)
        self._loop.call_later(delay, self._reconcile, key)

    def _reconcile(self, key: tuple[str, str]) -> None:
        self._scheduled.discard(key)
        pod = self._engine.storage.get(_PODS, *key)
        if pod is None:
            self._removing.discard(key)
            return
        spec = pod.get("spec") or {}
        meta = pod["metadata"]
        try:
            if meta.get("deletionTimestamp"):
                if spec.get("nodeName") == NODE_NAME:
                    self._remove_later(key, pod)
            elif not spec.get("nodeName"):
                if not spec.get("schedulingGates"):  # gated pods wait, as for a scheduler
                    self._bind(pod)
            elif (
                spec.get("nodeName") == NODE_NAME
                and (pod.get("status") or {}).get("phase") == "Pending"
            ):
                assert self._loop is not None
                self._loop.call_later(_START_DELAY, self._start_pod, key)
        except StatusError:
            self._schedule(*key, 0.05)  # e.g. a racing client update; look again shortly

    def _bind(self, pod: dict[str, Any]) -> None:
        body = clone(pod)
        body["spec"]["nodeName"] = NODE_NAME
        meta = pod["metadata"]
        self._engine.update(
            self._served("pods"), meta.get("namespace") or "", meta["name"], body, trusted=True
        )
        status = clone(
            self._engine.storage.get(_PODS, meta.get("namespace") or "", meta["name"]) or {}
        )
        if status:
            now = self._engine.now()
            status.setdefault("status", {})["conditions"] = [
                {
                    "type": "PodScheduled",
                    "status": "True",
                    "lastProbeTime": None,
                    "lastTransitionTime": now,
                }
            ]
            self._engine.update(
                self._served("pods"),
                meta.get("namespace") or "",
                meta["name"],
                status,
                subresource="status",
                trusted=True,
            )

    def _allocate_ip(self) -> str:
        used = self._ips  # O(1) per allocation, however many pods exist
        size = _POD_NETWORK.num_addresses
        for _ in range(size):
            candidate = str(_POD_NETWORK.network_address + self._next_ip)
            self._next_ip = self._next_ip + 1 if self._next_ip + 1 < size - 1 else 2
            if candidate not in used:
                return candidate
        raise RuntimeError("pod network exhausted")

    def _start_pod(self, key: tuple[str, str]) -> None:
        pod = self._engine.storage.get(_PODS, *key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        if (pod.get("status") or {}).get("phase") != "Pending":
            return
        spec = pod.get("spec") or {}
        now = self._engine.now()
        ip = HOST_IP if spec.get("hostNetwork") else self._allocate_ip()
        body = clone(pod)
        conditions = [
            {"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
            for t in (
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled",
            )
        ]
        body["status"] = {
            **(pod.get("status") or {}),
            "phase": "Running",
            "conditions": conditions,
            "hostIP": HOST_IP,
            "hostIPs": [{"ip": HOST_IP}],
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "startTime": now,
            "containerStatuses": [
                {
                    "name": c.get("name"),
                    "ready": True,
                    "started": True,
                    "restartCount": 0,
                    "image": c.get("image"),
                    "imageID": f"docker-pullable://{c.get('image')}",
                    "containerID": f"kubeforge://{pod['metadata'].get('uid')}-{c.get('name')}",
                    "state": {"running": {"startedAt": now}},
                    "lastState": {},
                }
                for c in spec.get("containers") or []
                if isinstance(c, dict)
            ],
        }
        try:
            self._engine.update(
                self._served("pods"), *key, body, subresource="status", trusted=True
            )
        except StatusError:
            self._schedule(*key, 0.05)

    def _remove_later(self, key: tuple[str, str], pod: dict[str, Any]) -> None:
        if key in self._removing or self._loop is None:
            return
        self._removing.add(key)
        grace = float(pod["metadata"].get("deletionGracePeriodSeconds") or 0)
        self._loop.call_later(min(grace, _MAX_GRACE), self._remove, key)

    def _remove(self, key: tuple[str, str]) -> None:
        self._removing.discard(key)
        try:
            deletion.finish_deletion(self._engine, self._served("pods"), *key)
        except StatusError:
            self._schedule(*key, 0.05)
