"""The simulated kubelets' heartbeats: each node's Lease renewed, its conditions reported.

A kubelet registers its Node, then every ``lease_renew_interval`` (10 s: a quarter of
the 40 s ``leaseDurationSeconds``) renews its Lease ``kube-node-lease/<node>``
(``holderIdentity`` the node, ``renewTime`` now, owned by the Node), and posts its node
status when it changed or ``status_report_frequency`` (5 min, the kubelet's
``nodeStatusReportFrequency``) has passed since the last post: each condition's
``lastHeartbeatTime`` moves, ``lastTransitionTime`` only when its status changes.

What a simulated kubelet reports is what its node's conditions say: a condition a test
wrote by hand (``kubectl patch node --subresource=status``) is reported as written, as
a kubelet whose runtime really is down keeps reporting it; a condition the node
lifecycle controller turned ``Unknown`` is reported healthy again, as a kubelet that is
back does (with the ``NodeReady`` Event: ``Node <name> status is now: NodeReady``).
A node annotated ``kubeforge.dev/kubelet: stopped`` has a kubelet that posts
nothing at all, so the node lifecycle controller marks it ``Unknown`` after its grace
period; removing the annotation brings the kubelet back.

Each kubelet writes as its node, ``system:node:<name>`` (groups ``system:nodes``,
``system:authenticated``): the Lease an UPDATE (a CREATE the first time) of ``leases``
in ``kube-node-lease``, the status an UPDATE of ``nodes/status``, both through the
admission webhooks and policies that look at them. With none interested they are
written at once; otherwise a node's beat waits for them in a task of its own (a node
whose last beat still waits skips this one). A refused write is tried again at the
next beat, as the kubelet's lease controller and status loop do.

Entry point: ``KubeletHeartbeats(cluster, specs, timing)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.admitting import node_user
from kubeforge.apiserver.controllers.behaviour import PREFIX
from kubeforge.apiserver.controllers.cluster import Cluster, copy, now_micro
from kubeforge.apiserver.controllers.eager import run_eagerly
from kubeforge.apiserver.controllers.nodes import HEALTHY_CONDITIONS, NodeSpec, register_nodes
from kubeforge.apiserver.controllers.ranking import parse_time
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError

__all__ = ["KUBELET_ANNOTATION", "HeartbeatTiming", "KubeletHeartbeats", "kubelet_stopped"]

KUBELET_ANNOTATION = PREFIX + "kubelet"
LEASE_DURATION_SECONDS = 40
_NODES = ("", "nodes")
_LEASES = ("coordination.k8s.io", "leases")
_LEASE_NAMESPACE = "kube-node-lease"

log = logging.getLogger("kubeforge.apiserver.controllers")


@dataclass(frozen=True)
class HeartbeatTiming:
    """How often kubelets report and how long the node lifecycle controller waits.

    The defaults are a 1.32 cluster's: the kubelet renews its Lease every 10 s and posts
    an unchanged status every 5 min; kube-controller-manager's
    ``--node-monitor-grace-period`` is 50 s and ``--node-startup-grace-period`` 60 s.
    """

    lease_renew_interval: float = 0.25 * LEASE_DURATION_SECONDS
    status_report_frequency: float = 300.0
    monitor_grace_period: float = 50.0
    startup_grace_period: float = 60.0


def kubelet_stopped(node: dict[str, Any] | None) -> bool:
    """Whether the node's simulated kubelet was told to stop (``kubeforge.dev/kubelet``)."""
    annotations = ((node or {}).get("metadata") or {}).get("annotations") or {}
    return annotations.get(KUBELET_ANNOTATION) == "stopped"


class KubeletHeartbeats:
    """Registers the simulated nodes, then keeps their Leases and conditions fresh."""

    def __init__(self, cluster: Cluster, specs: list[NodeSpec], timing: HeartbeatTiming) -> None:
        self._cluster = cluster
        self._specs = specs
        self._timing = timing
        self._timer: asyncio.TimerHandle | None = None
        self._apis = {
            spec.name: ControllerRequests(cluster, node_user(spec.name)) for spec in specs
        }
        self._beating: dict[str, asyncio.Task[None]] = {}

    def start(self) -> None:
        register_nodes(self._cluster, self._specs)
        self._beat()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for task in self._beating.values():
            task.cancel()
        self._beating.clear()

    def _beat(self) -> None:
        try:
            for spec in self._specs:
                node = self._cluster.get(_NODES, "", spec.name)
                if node is None or kubelet_stopped(node):
                    continue  # a deleted node stays deleted; a stopped kubelet says nothing
                if spec.name in self._beating:
                    continue  # its last beat still waits for admission
                ran = run_eagerly(self._beat_node(self._apis[spec.name], node))
                if isinstance(ran, asyncio.Task):
                    self._beating[spec.name] = ran
                    ran.add_done_callback(functools.partial(self._beaten, spec.name))
        finally:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._timing.lease_renew_interval, self._beat)

    def _beaten(self, name: str, task: asyncio.Task[None]) -> None:
        if self._beating.get(name) is task:
            del self._beating[name]
        if not task.cancelled() and task.exception() is not None:
            log.error("kubelet %s: heartbeat failed", name, exc_info=task.exception())

    async def _beat_node(self, api: ControllerRequests, node: dict[str, Any]) -> None:
        """The Lease, then the status: each refusal is the next beat's to mend."""
        name = node["metadata"]["name"]
        try:
            await self._renew_lease(api, node)
        except StatusError as error:
            log.info("kubelet %s: failed to update lease: %s", name, error)
        try:
            await self._post_status(api, node)
        except StatusError as error:
            log.info("kubelet %s: error updating node status: %s", name, error)

    async def _renew_lease(self, api: ControllerRequests, node: dict[str, Any]) -> None:
        name = node["metadata"]["name"]
        lease = self._cluster.get(_LEASES, _LEASE_NAMESPACE, name)
        if lease is None:
            if self._cluster.get(("", "namespaces"), "", _LEASE_NAMESPACE) is None:
                return
            lease = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": name, "namespace": _LEASE_NAMESPACE},
            }
        body = copy(lease)
        body["metadata"]["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"]["uid"]}
        ]
        body["spec"] = {
            **(body.get("spec") or {}),
            "holderIdentity": name,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "renewTime": now_micro(self._cluster.wall_time()),
        }
        if "resourceVersion" in lease["metadata"]:
            await api.update(_LEASES, body)
        else:
            await api.create(_LEASES, _LEASE_NAMESPACE, body)

    async def _post_status(self, api: ControllerRequests, node: dict[str, Any]) -> None:
        conditions = list((node.get("status") or {}).get("conditions") or [])
        wanted = _reported(conditions, self._cluster.now())
        ready: dict[str, Any] = next((c for c in conditions if c.get("type") == "Ready"), {})
        last = parse_time(ready.get("lastHeartbeatTime")) or 0.0
        due = self._cluster.wall_time() - last >= self._timing.status_report_frequency
        if not due and _without_heartbeats(wanted) == _without_heartbeats(conditions):
            return
        body = copy(node)
        body["status"]["conditions"] = wanted
        await api.update_status(_NODES, body)
        now_ready = next(c for c in wanted if c["type"] == "Ready")["status"] == "True"
        if now_ready and ready.get("status") != "True":
            name = node["metadata"]["name"]
            message = f"Node {name} status is now: NodeReady"
            self._cluster.record(
                node, "Normal", "NodeReady", message, component="kubelet", host=name
            )


def _reported(conditions: list[dict[str, Any]], now: str) -> list[dict[str, Any]]:
    """The conditions the kubelet posts now: the four it owns refreshed, Unknown ones
    (written by the node lifecycle controller) healthy again, others kept as they are."""
    by_type = {str(c.get("type")): c for c in conditions}
    out = [c for c in conditions if c.get("type") not in {h[0] for h in HEALTHY_CONDITIONS}]
    for kind, status, reason, message in HEALTHY_CONDITIONS:
        before = by_type.get(kind)
        healthy: dict[str, Any] = {"status": status, "reason": reason, "message": message}
        if before is None or before.get("status") == "Unknown":
            said, since = healthy, now
        else:
            said = {k: before.get(k) for k in healthy}
            since = before.get("lastTransitionTime") or now
        out.append({"type": kind, **said, "lastHeartbeatTime": now, "lastTransitionTime": since})
    return out


def _without_heartbeats(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        ({k: v for k, v in c.items() if k != "lastHeartbeatTime"} for c in conditions),
        key=lambda c: str(c.get("type")),
    )
