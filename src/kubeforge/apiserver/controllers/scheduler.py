"""The default scheduler: binds each pending pod to a node that fits it, preempts lower-priority
pods to make room, or says why neither works.

A pod with no ``spec.nodeName``, no scheduling gates and ``schedulerName:
default-scheduler`` is filtered against every node (``scheduling.filter_node``) given the
pods bound to each, which ``nodeinfo.PodIndex`` keeps from the pod events (as
kube-scheduler's cache does, so an attempt never walks every pod), with the pods
nominated to a node (of at least its priority) counted there. Of the nodes that fit,
the best scored wins: ``ScheduleAnyway`` topology spread (weight 2) plus the
least-allocated resources score (weight 1), then fewer pods, then the name. Binding
sets ``spec.nodeName`` and the ``PodScheduled`` condition in one write, as the binding
subresource does, and records ``Scheduled``
(``Successfully assigned <ns>/<pod> to <node>``). When no node fits, preemption
(``preemption``) may nominate a node (``status.nominatedNodeName``) and evict its
victims (``DisruptionTarget``/``PreemptionByScheduler``, the ``Preempted`` Event); either
way the pod keeps ``PodScheduled=False`` with reason ``Unschedulable`` and the real
message, recorded as a ``FailedScheduling`` Warning; it is tried again whenever a node
changes or a pod leaves.

Its writes are kube-scheduler's requests, as ``system:kube-scheduler``
(``requests.ControllerRequests``): a binding is a CREATE of ``pods/binding`` whose object
is a ``Binding``, so admission webhooks and policies on it see the scheduler and its
Binding. A refused binding is what 1.32's DefaultBinder makes of any binding error:
``FailedScheduling`` with ``running Bind plugin "DefaultBinder": <the server's message>``,
``PodScheduled=False`` with reason ``SchedulerError``, and another attempt after the
scheduling queue's back-off (1s, doubling up to 10s).

Entry point: ``Scheduler(cluster)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.controllers.admitting import SCHEDULER
from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.feasible import NodeSearch, NodeSnapshot
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of
from kubeforge.apiserver.controllers.nodeinfo import PodIndex, is_waiting
from kubeforge.apiserver.controllers.nodes import quantity
from kubeforge.apiserver.controllers.placement import Placement
from kubeforge.apiserver.controllers.preemption import find_candidate, ineligible
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.controllers.scheduling import (
    Verdict,
    failure_message,
    is_domain,
)
from kubeforge.apiserver.controllers.topologyspread import (
    SpreadCounts,
    spread_counts,
    spread_scores,
)
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey

__all__ = ["NodeScores", "Scheduler"]

_PODS = ("", "pods")
_NODES = ("", "nodes")
_CLAIMS = ("", "persistentvolumeclaims")
_COMPONENT = "default-scheduler"
_ZERO = Fraction(0)
_BINDER = "DefaultBinder"
# The scheduling queue's podInitialBackoffSeconds and podMaxBackoffSeconds defaults.
_BACKOFF, _MAX_BACKOFF = 1.0, 10.0


class Scheduler(ControllerLoop):
    resource = _PODS

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._index = PodIndex()
        self._scores = NodeScores()
        self.api = ControllerRequests(cluster, SCHEDULER)
        self._failures: dict[Key, int] = {}
        self._snapshot = NodeSnapshot(cluster.list)
        self._search = NodeSearch()

    def start(self) -> None:
        # Loaded before subscribing, with no await between: no event is missed or seen twice.
        self._index.load(self.cluster.list(_PODS))
        super().start()

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {
            _PODS: self._pod_keys,
            _NODES: self._node_keys,
            _CLAIMS: lambda event: self._index.waiting_keys(),
        }

    def _pod_keys(self, event: Event) -> Iterable[Key]:
        self._index.observe(event)
        if event.type != "DELETED" and is_waiting(event.object):
            return (key_of(event.object),)
        if event.type == "DELETED" or _finished(event.object):
            return self._index.waiting_keys()  # room was made
        return ()

    def _node_keys(self, event: Event) -> Iterable[Key]:
        self._snapshot.changed()
        return self._index.waiting_keys()

    async def sync(self, key: Key) -> float | None:
        pod = self.cluster.get(_PODS, *key)
        if pod is None or not is_waiting(pod):
            self._failures.pop(key, None)
            return None
        claims = self._claims_problem(pod)
        if claims is not None:
            await self._unschedulable(pod, claims)
            return None
        nodes = self._snapshot.nodes()
        view = self._index.placement(nodes, pod)
        counts = spread_counts(pod, "ScheduleAnyway", view, is_domain)
        if counts:  # the ranks depend on where the pod's peers are: worked out afresh
            feasible, verdicts, _ = self._search.find(pod, nodes, view)
            best = self._best(feasible, view, counts) if feasible else None
        else:
            found = self._search.find(pod, nodes, view, lambda n: self._scores.rank(n, view, 0.0))
            verdicts, best = found.refused, found.best[2] if found.feasible else None
        if best is not None:
            return await self._bind(pod, best)
        await self._preempt_or_wait(pod, nodes, view, verdicts)
        return None

    def _best(
        self, feasible: list[dict[str, Any]], view: Placement, counts: list[SpreadCounts]
    ) -> str:
        """The feasible node that scores best with the pod's ``ScheduleAnyway`` spread."""
        spread = spread_scores(feasible, counts)

        def rank(node: dict[str, Any]) -> tuple[float, int, str, Fraction]:
            return self._scores.rank(node, view, spread[node["metadata"]["name"]])

        return str(min(feasible, key=rank)["metadata"]["name"])

    async def _preempt_or_wait(
        self,
        pod: dict[str, Any],
        nodes: list[dict[str, Any]],
        view: Placement,
        verdicts: dict[str, Verdict],
    ) -> None:
        """No node fits: nominate one where evicting lower-priority pods makes room (and
        evict them), or say why none does."""
        said = list(verdicts.values())
        why_not = ineligible(pod, view)
        if why_not is not None:
            await self._unschedulable(pod, failure_message(said, len(nodes), why_not))
            return
        budgets = self.cluster.list(("policy", "poddisruptionbudgets"))
        candidate = find_candidate(pod, nodes, view.placed, verdicts, budgets)
        if candidate is None:
            await self._unschedulable(pod, failure_message(said, len(nodes)))
            return
        for victim in candidate.victims:
            await self._evict(victim, pod, candidate.node)
        await self._unschedulable(pod, failure_message(said, len(nodes), ""), candidate.node)

    async def _evict(self, victim: dict[str, Any], preemptor: dict[str, Any], node: str) -> None:
        """As ``prepareCandidate`` does: the DisruptionTarget condition, the delete, the
        ``Preempted`` Event."""
        body = copy(victim)
        scheduler = (preemptor.get("spec") or {}).get("schedulerName") or _COMPONENT
        condition = {
            "type": "DisruptionTarget",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": self.cluster.now(),
            "reason": "PreemptionByScheduler",
            "message": f"{scheduler}: preempting to accommodate a higher priority pod",
        }
        others = [
            c
            for c in (body.get("status") or {}).get("conditions") or []
            if c.get("type") != "DisruptionTarget"
        ]
        body.setdefault("status", {})["conditions"] = [*others, condition]
        await self.api.update_status(_PODS, body)
        meta = victim["metadata"]
        await self.api.delete(_PODS, meta.get("namespace") or "", meta["name"], uid=meta["uid"])
        message = f"Preempted by pod {preemptor['metadata'].get('uid')} on node {node}"
        self.cluster.record(
            victim, "Normal", "Preempted", message, component=_COMPONENT, action="Preempting"
        )

    def _claims_problem(self, pod: dict[str, Any]) -> str | None:
        """The VolumeBinding pre-filter: every claim must exist and be bound (Immediate)."""
        namespace = pod["metadata"].get("namespace") or ""
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            name = (volume.get("persistentVolumeClaim") or {}).get("claimName")
            if not name:
                continue
            claim = self.cluster.get(_CLAIMS, namespace, name)
            if claim is None:
                return f'persistentvolumeclaim "{name}" not found'
            if not (claim.get("spec") or {}).get("volumeName") and self._immediate(claim):
                nodes = len(self.cluster.list(_NODES))
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

    async def _bind(self, pod: dict[str, Any], node: str) -> float | None:
        """``spec.nodeName`` and ``PodScheduled=True`` in one write, as the binding
        subresource stores them (``setPodNodeAndMetadata``), then the ``Scheduled`` Event;
        a refused binding is a scheduling failure, tried again after a back-off."""
        status = dict(pod.get("status") or {})
        status["conditions"] = [
            *(c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"),
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": self.cluster.now(),
            },
        ]
        # Shallow copies: the engine copies what it is given before changing anything.
        body = {**pod, "spec": {**pod["spec"], "nodeName": node}, "status": status}
        waits = self.api.admitted(_PODS, "CREATE", "binding")
        if waits:
            self._index.assume(body)
        try:
            bound = await self.api.bind(body)
        except StatusError as error:
            if waits:
                self._index.forget(key_of(pod), self.cluster.get(_PODS, *key_of(pod)))
            if error.code in (404, 409):
                raise  # the pod went or changed: the loop looks at it again
            return await self._bind_failed(pod, error)
        meta = pod["metadata"]
        self._failures.pop(key_of(pod), None)
        self.cluster.record(
            bound,
            "Normal",
            "Scheduled",
            f"Successfully assigned {meta.get('namespace')}/{meta['name']} to {node}",
            component=_COMPONENT,
            action="Binding",
        )
        return None

    async def _bind_failed(self, pod: dict[str, Any], error: StatusError) -> float:
        """``handleSchedulingFailure`` of a Bind plugin's error: a ``SchedulerError``,
        the pod back in the queue after its back-off."""
        message = f'running Bind plugin "{_BINDER}": {error}'
        await self._unschedulable(pod, message, reason="SchedulerError")
        key = key_of(pod)
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        return float(min(_BACKOFF * 2 ** (failures - 1), _MAX_BACKOFF))

    async def _unschedulable(
        self, pod: dict[str, Any], message: str, nominated: str = "", reason: str = "Unschedulable"
    ) -> None:
        status = pod.get("status") or {}
        current = next(
            (c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"),
            None,
        )
        if (
            current is not None
            and current.get("message") == message
            and (not nominated or status.get("nominatedNodeName") == nominated)
        ):
            return  # already said; a real scheduler's repeats only raise the Event's count
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": None,
            "lastTransitionTime": self.cluster.now(),
            "reason": reason,
            "message": message,
        }
        others = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        written = {"phase": "Pending", **status, "conditions": [*others, condition]}
        if nominated:
            written["nominatedNodeName"] = nominated
        body = {**pod, "status": written}
        await self.api.update_status(_PODS, body)
        self.cluster.record(
            pod,
            "Warning",
            "FailedScheduling",
            message,
            component=_COMPONENT,
            action="Scheduling",
        )


def _finished(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


class NodeScores:
    """NodeResourcesFit's least-allocated score per node, kept with the node's rank while
    the node (its allocatable) and its pods stay the same: an attempt ranks every node
    it found feasible, most of which did not change since the last attempt, and exact
    arithmetic on each is a good part of an attempt's cost."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[Any, tuple[float, int, str, Fraction]]] = {}

    def rank(
        self, node: dict[str, Any], view: Placement, spread: float
    ) -> tuple[float, int, str, Fraction]:
        """Lower is better: the weighted sum of the scores (PodTopologySpread weighs 2,
        NodeResourcesFit's least-allocated 1, each 0..100) negated, then fewer pods, then
        the name; the exact sum last (names differ, so it is never compared). Sums are
        compared as floats: kube-scheduler's scores are whole numbers, so two sums closer
        than a float's precision are equal for it too."""
        meta = node["metadata"]
        name = meta["name"]
        key = view.usage_key(name)
        stamp = (key, meta.get("resourceVersion"))
        kept = self._kept.get(name)
        if kept is not None and key is not None and kept[0] == stamp:
            ranked = kept[1]
        else:
            usage = view.usage(name)
            allocatable = (node.get("status") or {}).get("allocatable") or {}
            totals = (str(allocatable.get("cpu", "0")), str(allocatable.get("memory", "0")))
            score = -_least_allocated(usage.get("cpu", _ZERO), usage.get("memory", _ZERO), *totals)
            ranked = (float(score), view.count(name), name, score)
            if key is not None and stamp[1] is not None:
                self._kept[name] = (stamp, ranked)
        if spread:
            score = ranked[3] - 2 * Fraction(spread)
            return float(score), ranked[1], name, score
        return ranked


def _least_allocated(
    cpu: Fraction, memory: Fraction, cpu_total: str, memory_total: str
) -> Fraction:
    """100 times the share of the node left free, averaged over CPU and memory (those it has)."""
    fractions = [
        used / quantity(total)
        for used, total in ((cpu, cpu_total), (memory, memory_total))
        if quantity(total) > 0
    ]
    load = sum(fractions, _ZERO) / max(len(fractions), 1)
    return 100 * (1 - load)
