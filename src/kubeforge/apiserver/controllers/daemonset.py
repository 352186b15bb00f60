"""The DaemonSet controller: one pod per eligible node, rolled out within maxUnavailable/maxSurge.

Each sync claims the ControllerRevisions and pods the selector matches, makes sure a
revision holds the current template, then per node (``daemon_pods.placement``): creates
the pod a node should run and lacks, in slow-start batches (``SuccessfulCreate`` /
``Created pod: <name>``, or ``FailedCreate`` when the server refuses one, retried with the
rate limiter), deletes failed pods (``FailedDaemonPod``), extra pods on one node and pods
on nodes that should no longer run them (``SuccessfulDelete`` / ``Deleted pod: <name>``). Under
``RollingUpdate`` old-revision pods are replaced as ``daemon/update.go`` does: without
surge, up to ``maxUnavailable`` available ones are deleted at once (unavailable ones
always); with ``maxSurge``, a new pod starts beside an old one on up to that many nodes and
the old one goes once the new one is available. The status has the real counters.

Entry point: ``DaemonSetController(cluster)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.daemonset_pods import daemon_pod, placement
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of, own_key
from kubeforge.apiserver.controllers.ownership import claim
from kubeforge.apiserver.controllers.podcontrol import Retries, create_pod, slow_start
from kubeforge.apiserver.controllers.ranking import is_active, is_available, is_ready
from kubeforge.apiserver.controllers.revisions import (
    REVISION_LABEL,
    revision_of,
    sync_revisions,
    trim_history,
)
from kubeforge.apiserver.controllers.rollout import surge_and_unavailable
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import ResourceKey

__all__ = ["DaemonSetController"]

_SETS = ("apps", "daemonsets")
_PODS = ("", "pods")
_NODES = ("", "nodes")
_COMPONENT = "daemonset-controller"

Pods = dict[str, list[dict[str, Any]]]


def _node_of(pod: dict[str, Any]) -> str:
    """Where the pod is, or where its affinity pins it while it waits for the scheduler."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    for term in required.get("nodeSelectorTerms") or []:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("values"):
                return str(field["values"][0])
    return ""


def _created(pod: dict[str, Any]) -> tuple[str, str]:
    return str(pod["metadata"].get("creationTimestamp")), pod["metadata"]["name"]


class DaemonSetController(ControllerLoop):
    resource = _SETS
    account = "daemon-set-controller"

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._retries = Retries()

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {
            _SETS: own_key,
            _NODES: lambda event: [key_of(ds) for ds in self.cluster.list(_SETS)],
            _PODS: lambda event: self.controllers_of(event, "DaemonSet"),
        }

    async def sync(self, key: Key) -> float | None:
        ds = self.cluster.get(_SETS, *key)
        if ds is None or ds["metadata"].get("deletionTimestamp"):
            return None
        selector = dict((ds.get("spec") or {}).get("selector") or {})
        revisions = await sync_revisions(self.api, ds, selector)
        status = ds.get("status") or {}
        if revisions.collisions != int(status.get("collisionCount") or 0):
            collisions = {**status, "collisionCount": revisions.collisions}
            await self.api.write_status(_SETS, ds, collisions)
            return 0.05
        pod_hash = str(revisions.update["metadata"]["labels"][REVISION_LABEL])
        nodes = self.cluster.list(_NODES)
        by_node = await self._by_node(ds, selector)
        try:
            await self._manage(ds, nodes, by_node, pod_hash)
            retry = None
            self._retries.forget(key)
        except StatusError:  # a refused create, recorded as FailedCreate: try again later
            retry = self._retries.failed(key)
        by_node = await self._by_node(ds, selector)
        live = {
            r["metadata"]["name"]
            for r in revisions.history
            if r["metadata"]["labels"].get(REVISION_LABEL)
            in {revision_of(p) for pods in by_node.values() for p in pods} | {pod_hash}
        }
        await trim_history(self.api, ds, revisions, live)
        again = await self._write_status(ds, nodes, by_node, pod_hash)
        return retry if retry is not None else again

    async def _by_node(self, ds: dict[str, Any], selector: dict[str, Any]) -> Pods:
        by_node: Pods = {}
        for pod in await claim(self.api, _PODS, ds, selector, is_active):
            if not pod["metadata"].get("deletionTimestamp"):
                by_node.setdefault(_node_of(pod), []).append(pod)
        return by_node

    # --- pods -------------------------------------------------------------------------------

    async def _manage(
        self, ds: dict[str, Any], nodes: list[dict[str, Any]], by_node: Pods, pod_hash: str
    ) -> None:
        wanted = []
        for node in nodes:
            name = node["metadata"]["name"]
            should_run, keep = placement(ds, node)
            pods = await self._without_failed(ds, name, by_node.get(name, []))
            if not keep:
                for pod in pods:
                    await self._delete(ds, pod)
            elif should_run and not pods:
                wanted.append(name)
            elif len(pods) > 1 and not self._surging(ds):
                oldest_first = sorted(pods, key=_created)
                for pod in oldest_first[1:]:
                    await self._delete(ds, pod)
        pending = iter(wanted)
        _, refusal = await slow_start(
            len(wanted), lambda: self._create(ds, next(pending), pod_hash)
        )
        if refusal is not None:
            raise refusal
        strategy = (ds.get("spec") or {}).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            eligible = {n["metadata"]["name"] for n in nodes if placement(ds, n)[1]}
            await self._roll(
                ds, {n: p for n, p in by_node.items() if n in eligible and p}, pod_hash
            )

    async def _without_failed(
        self, ds: dict[str, Any], node_name: str, pods: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Delete the failed pods (the next pass replaces them); the others."""
        kept = []
        for pod in pods:
            if (pod.get("status") or {}).get("phase") != "Failed":
                kept.append(pod)
                continue
            meta = pod["metadata"]
            message = (
                f"Found failed daemon pod {meta.get('namespace')}/{meta['name']} "
                f"on node {node_name}, will try to kill it"
            )
            self.cluster.record(ds, "Warning", "FailedDaemonPod", message, component=_COMPONENT)
            await self._delete(ds, pod)
        return kept

    def _surging(self, ds: dict[str, Any]) -> bool:
        return self._budget(ds, 1)[0] > 0

    def _budget(self, ds: dict[str, Any], desired: int) -> tuple[int, int]:
        rolling = ((ds.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {}
        shaped = {
            "spec": {
                "replicas": desired,
                "strategy": {
                    "rollingUpdate": {
                        "maxSurge": rolling.get("maxSurge", 0),
                        "maxUnavailable": rolling.get("maxUnavailable", 1),
                    }
                },
            }
        }
        return surge_and_unavailable(shaped)

    async def _roll(self, ds: dict[str, Any], by_node: Pods, pod_hash: str) -> None:
        min_ready = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        now = self.cluster.wall_time()
        surge, unavailable = self._budget(ds, len(by_node))
        new_of = {n: [p for p in ps if revision_of(p) == pod_hash] for n, ps in by_node.items()}
        old_of = {n: [p for p in ps if revision_of(p) != pod_hash] for n, ps in by_node.items()}
        if surge > 0:
            await self._roll_with_surge(ds, new_of, old_of, pod_hash, surge, min_ready, now)
            return
        down = sum(not any(is_available(p, min_ready, now) for p in by_node[n]) for n in by_node)
        for name in sorted(by_node):
            olds = old_of[name]
            if not olds or new_of[name]:
                continue
            if not all(is_available(p, min_ready, now) for p in olds):
                for pod in olds:
                    await self._delete(ds, pod)
            elif down < unavailable:
                down += 1
                for pod in olds:
                    await self._delete(ds, pod)

    async def _roll_with_surge(
        self,
        ds: dict[str, Any],
        new_of: Pods,
        old_of: Pods,
        pod_hash: str,
        surge: int,
        min_ready: int,
        now: float,
    ) -> None:
        surging = sum(bool(new_of[n] and old_of[n]) for n in new_of)
        for name in sorted(new_of):
            olds, news = old_of[name], new_of[name]
            if not olds:
                continue
            replaced = news and any(is_available(p, min_ready, now) for p in news)
            broken = not news and not any(is_available(p, min_ready, now) for p in olds)
            if replaced or broken:
                for pod in olds:
                    await self._delete(ds, pod)
            elif not news and surging < surge:
                surging += 1
                await self._create(ds, name, pod_hash)

    async def _create(self, ds: dict[str, Any], node_name: str, pod_hash: str) -> None:
        await create_pod(self.api, ds, daemon_pod(ds, node_name, pod_hash), _COMPONENT)

    async def _delete(self, ds: dict[str, Any], pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        namespace = meta.get("namespace") or ""
        if await self.api.delete(_PODS, namespace, meta["name"], uid=meta["uid"]):
            message = f"Deleted pod: {meta['name']}"
            self.cluster.record(ds, "Normal", "SuccessfulDelete", message, component=_COMPONENT)

    # --- status -----------------------------------------------------------------------------

    async def _write_status(
        self, ds: dict[str, Any], nodes: list[dict[str, Any]], by_node: Pods, pod_hash: str
    ) -> float | None:
        min_ready = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        now = self.cluster.wall_time()
        desired = scheduled = misscheduled = ready = available = updated = 0
        for node in nodes:
            should_run, keep = placement(ds, node)
            pods = by_node.get(node["metadata"]["name"], [])
            desired += should_run
            if pods and not keep:
                misscheduled += 1
            if not pods or not should_run:
                continue
            scheduled += 1
            newest = max(pods, key=_created)
            ready += is_ready(newest)
            available += is_available(newest, min_ready, now)
            updated += any(revision_of(p) == pod_hash for p in pods)
        status: dict[str, Any] = {
            "currentNumberScheduled": scheduled,
            "numberMisscheduled": misscheduled,
            "desiredNumberScheduled": desired,
            "numberReady": ready,
            "observedGeneration": ds["metadata"].get("generation") or 0,
        }
        extra = {
            "updatedNumberScheduled": updated,
            "numberAvailable": available,
            "numberUnavailable": desired - available,
            "collisionCount": int((ds.get("status") or {}).get("collisionCount") or 0),
        }
        status.update({k: v for k, v in extra.items() if v})
        await self.api.write_status(_SETS, ds, status)
        return 0.5 if min_ready and ready > available else None
