"""The default scheduler: binds each pending pod to a node that fits it, or says why none does.

A pod with no ``spec.nodeName``, no scheduling gates and ``schedulerName:
default-scheduler`` is filtered against every node (``scheduling.filter_node``); of the
nodes that fit, the least requested one wins (ties: fewer pods, then name), as the
default ``NodeResourcesFit`` least-allocated score and balanced spread tend to. Binding
sets ``spec.nodeName`` and the ``PodScheduled`` condition and records ``Scheduled``
(``Successfully assigned <ns>/<pod> to <node>``). When no node fits, the pod keeps
``PodScheduled=False`` with reason ``Unschedulable`` and the real message, recorded as a
``FailedScheduling`` Warning; it is tried again whenever a node changes or a pod leaves.

Entry point: ``Scheduler(cluster)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, key_of
from kubeforge.apiserver.controllers.nodes import quantity
from kubeforge.apiserver.controllers.scheduling import (
    Placement,
    failure_message,
    filter_node,
    pod_requests,
)
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["Scheduler", "live_pods"]

_PODS = ("", "pods")
_NODES = ("", "nodes")
_CLAIMS = ("", "persistentvolumeclaims")
_COMPONENT = "default-scheduler"


def live_pods(cluster: Cluster) -> list[dict[str, Any]]:
    """Pods bound to a node that still hold its resources (not Succeeded or Failed)."""
    return [
        p
        for p in cluster.list(_PODS)
        if (p.get("spec") or {}).get("nodeName")
        and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    ]


class Scheduler(ControllerLoop):
    resource = _PODS

    def keys_for(self, event: Event) -> Iterable[Key]:
        if event.resource == _PODS:
            if event.type != "DELETED" and _waiting(event.object):
                return (key_of(event.object),)
            if event.type == "DELETED" or _finished(event.object):
                return self._waiting_keys()  # room was made
            return ()
        if event.resource in (_NODES, _CLAIMS):
            return self._waiting_keys()
        return ()

    def _waiting_keys(self) -> list[Key]:
        return [key_of(p) for p in self.cluster.list(_PODS) if _waiting(p)]

    def sync(self, key: Key) -> float | None:
        pod = self.cluster.get(_PODS, *key)
        if pod is None or not _waiting(pod):
            return None
        claims = self._claims_problem(pod)
        if claims is not None:
            self._unschedulable(pod, claims)
            return None
        nodes = [n for n in self.cluster.list(_NODES) if not n["metadata"].get("deletionTimestamp")]
        view = Placement.of(nodes, live_pods(self.cluster))
        verdicts = {n["metadata"]["name"]: filter_node(pod, n, view) for n in nodes}
        feasible = [n for n in nodes if verdicts[n["metadata"]["name"]].fits]
        if feasible:
            best = min(feasible, key=lambda n: _score(n, view))
            self._bind(pod, best["metadata"]["name"])
        else:
            self._unschedulable(pod, failure_message(list(verdicts.values()), len(nodes)))
        return None

    def _claims_problem(self, pod: dict[str, Any]) -> str | None:
        """The VolumeBinding pre-filter: every claim must exist and be bound (Immediate)."""
        namespace = pod["metadata"].get("namespace") or ""
        nodes = len(self.cluster.list(_NODES))
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            name = (volume.get("persistentVolumeClaim") or {}).get("claimName")
            if not name:
                continue
            claim = self.cluster.get(_CLAIMS, namespace, name)
            if claim is None:
                return f'persistentvolumeclaim "{name}" not found'
            if not (claim.get("spec") or {}).get("volumeName") and self._immediate(claim):
                return (
                    f"0/{nodes} nodes are available: pod has unbound immediate "
                    f"PersistentVolumeClaims. preemption: 0/{nodes} nodes are available: "
                    f"{nodes} Preemption is not helpful for scheduling."
                )
        return None

    def _immediate(self, claim: dict[str, Any]) -> bool:
        """Whether the claim must be bound before its pod is placed: its class binds
        ``Immediate`` (a ``WaitForFirstConsumer`` claim is bound after the pod is placed)."""
        name = (claim.get("spec") or {}).get("storageClassName")
        if name is None:
            return True  # the binder has yet to give it the default class
        storage_class = self.cluster.get(("storage.k8s.io", "storageclasses"), "", str(name))
        return bool((storage_class or {}).get("volumeBindingMode", "Immediate") == "Immediate")

    def _bind(self, pod: dict[str, Any], node: str) -> None:
        body = copy(pod)
        body["spec"]["nodeName"] = node
        bound = self.cluster.update(_PODS, body)
        status = copy(bound)
        conditions = [
            c
            for c in (status.get("status") or {}).get("conditions") or []
            if c.get("type") != "PodScheduled"
        ]
        conditions.append(
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": self.cluster.now(),
            }
        )
        status.setdefault("status", {})["conditions"] = conditions
        self.cluster.update_status(_PODS, status)
        meta = pod["metadata"]
        self.cluster.record(
            bound,
            "Normal",
            "Scheduled",
            f"Successfully assigned {meta.get('namespace')}/{meta['name']} to {node}",
            component=_COMPONENT,
            action="Binding",
        )

    def _unschedulable(self, pod: dict[str, Any], message: str) -> None:
        status = copy(pod).setdefault("status", {})
        current = next(
            (c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"),
            None,
        )
        if current is not None and current.get("message") == message:
            return  # already said; a real scheduler's repeats only raise the Event's count
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": None,
            "lastTransitionTime": self.cluster.now(),
            "reason": "Unschedulable",
            "message": message,
        }
        body = copy(pod)
        others = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        body.setdefault("status", {})["conditions"] = [*others, condition]
        body["status"].setdefault("phase", "Pending")
        self.cluster.update_status(_PODS, body)
        self.cluster.record(
            pod,
            "Warning",
            "FailedScheduling",
            message,
            component=_COMPONENT,
            action="Scheduling",
        )


def _waiting(pod: dict[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    return (
        not spec.get("nodeName")
        and not spec.get("schedulingGates")
        and not pod["metadata"].get("deletionTimestamp")
        and spec.get("schedulerName", "default-scheduler") == "default-scheduler"
    )


def _finished(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _score(node: dict[str, Any], view: Placement) -> tuple[Fraction, int, str]:
    name = node["metadata"]["name"]
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    mine = view.by_node.get(name, [])
    used: dict[str, Fraction] = {"cpu": Fraction(0), "memory": Fraction(0)}
    for pod in mine:
        for resource, amount in pod_requests(pod).items():
            if resource in used:
                used[resource] += amount
    fractions = [
        used[r] / quantity(allocatable[r]) for r in used if quantity(allocatable.get(r, "0")) > 0
    ]
    load = sum(fractions, Fraction(0)) / max(len(fractions), 1)
    return load, len(mine), name
