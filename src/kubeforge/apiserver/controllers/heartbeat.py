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

Entry point: ``KubeletHeartbeats(cluster, specs, timing)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.behaviour import PREFIX
from kubeforge.apiserver.controllers.cluster import Cluster, copy, now_micro
from kubeforge.apiserver.controllers.nodes import HEALTHY_CONDITIONS, NodeSpec, register_nodes
from kubeforge.apiserver.controllers.ranking import parse_time

__all__ = ["KUBELET_ANNOTATION", "HeartbeatTiming", "KubeletHeartbeats", "kubelet_stopped"]

KUBELET_ANNOTATION = PREFIX + "kubelet"
LEASE_DURATION_SECONDS = 40
_NODES = ("", "nodes")
_LEASES = ("coordination.k8s.io", "leases")
_LEASE_NAMESPACE = "kube-node-lease"


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

    def start(self) -> None:
        register_nodes(self._cluster, self._specs)
        self._beat()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _beat(self) -> None:
        try:
            for spec in self._specs:
                node = self._cluster.get(_NODES, "", spec.name)
                if node is None or kubelet_stopped(node):
                    continue  # a deleted node stays deleted; a stopped kubelet says nothing
                self._renew_lease(node)
                self._post_status(node)
        finally:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._timing.lease_renew_interval, self._beat)

    def _renew_lease(self, node: dict[str, Any]) -> None:
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
            self._cluster.update(_LEASES, body)
        else:
            self._cluster.create(_LEASES, _LEASE_NAMESPACE, body)

    def _post_status(self, node: dict[str, Any]) -> None:
        conditions = list((node.get("status") or {}).get("conditions") or [])
        wanted = _reported(conditions, self._cluster.now())
        ready: dict[str, Any] = next((c for c in conditions if c.get("type") == "Ready"), {})
        last = parse_time(ready.get("lastHeartbeatTime")) or 0.0
        due = self._cluster.wall_time() - last >= self._timing.status_report_frequency
        if not due and _without_heartbeats(wanted) == _without_heartbeats(conditions):
            return
        body = copy(node)
        body["status"]["conditions"] = wanted
        self._cluster.update_status(_NODES, body)
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
