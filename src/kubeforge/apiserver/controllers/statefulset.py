"""The StatefulSet controller: ordinal pods, their claims, and partitioned rolling updates.

Each sync claims the ControllerRevisions and the pods the selector matches (pods named
``<set>-<n>`` only), makes sure a revision holds the current template, then, as
``StatefulSetControl`` does in 1.32: creates the missing ordinals (their claims first),
recreates finished pods, deletes ordinals past ``replicas`` from the highest down, and
under ``RollingUpdate`` deletes pods of the old revision from the highest ordinal down to
``partition`` so they come back from the update revision. ``OrderedReady`` (the default)
does one of these at a time and waits for every lower ordinal to be Running and Ready;
``Parallel`` does them all at once. ``maxUnavailable`` is not read: the
MaxUnavailableStatefulSet gate is alpha and off in 1.32, so one pod at a time. Under
``OnDelete`` pods are replaced only when deleted, and ``currentRevision`` stays where it
was, as the real controller leaves it. Claims and their owner references are
``statefulset_claims``'. Events are the real ``SuccessfulCreate`` / ``FailedCreate`` /
``SuccessfulDelete`` texts (``create Pod web-0 in StatefulSet web successful``); a
refused create is tried again with the rate-limited requeue.

Entry point: ``StatefulSetController(cluster)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, controller_of
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of, own_key
from kubeforge.apiserver.controllers.ownership import claim, controlled_by
from kubeforge.apiserver.controllers.podcontrol import Retries
from kubeforge.apiserver.controllers.ranking import is_available, is_ready, ready_since
from kubeforge.apiserver.controllers.revisions import (
    Revisions,
    revision_of,
    sync_revisions,
    trim_history,
)
from kubeforge.apiserver.controllers.statefulset_claims import create_pod, sync_claim_owners
from kubeforge.apiserver.controllers.statefulset_pods import ordinal_of, stateful_pod
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey

__all__ = ["StatefulSetController"]

_SETS = ("apps", "statefulsets")
_PODS = ("", "pods")
_CLAIMS = ("", "persistentvolumeclaims")
_COMPONENT = "statefulset-controller"


def _running_and_ready(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and is_ready(pod)


def _finished(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _terminating(pod: dict[str, Any]) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


class StatefulSetController(ControllerLoop):
    resource = _SETS
    account = _COMPONENT

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._retries = Retries()

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_SETS: own_key, _PODS: self._pod_keys}

    def _pod_keys(self, event: Event) -> Iterable[Key]:
        keys = self.controllers_of(event, "StatefulSet")
        namespace = event.object["metadata"].get("namespace") or ""
        if (
            not keys
            and controller_of(event.object) is None
            and event.type != "DELETED"
            and self.cluster.has(_SETS, namespace)
        ):
            labels = event.object["metadata"].get("labels") or {}
            keys.update(
                key_of(s)
                for s in self.cluster.list(_SETS, namespace)
                if selector_matches((s.get("spec") or {}).get("selector") or {}, labels)
            )
        return keys

    async def sync(self, key: Key) -> float | None:
        stateful_set = self.cluster.get(_SETS, *key)
        if stateful_set is None or stateful_set["metadata"].get("deletionTimestamp"):
            return None
        selector = dict((stateful_set.get("spec") or {}).get("selector") or {})
        revisions = await sync_revisions(self.api, stateful_set, selector)
        status = stateful_set.get("status") or {}
        if revisions.collisions != int(status.get("collisionCount") or 0):
            await self.api.write_status(
                _SETS, stateful_set, {**status, "collisionCount": revisions.collisions}
            )
            return 0.05  # the next name is tried on the next pass
        pods = await claim(
            self.api,
            _PODS,
            stateful_set,
            selector,
            lambda p: ordinal_of(stateful_set, p) is not None,
        )
        members = {n: p for p in pods if (n := ordinal_of(stateful_set, p)) is not None}
        current = self._current_revision(stateful_set, revisions)
        try:
            await self._manage(stateful_set, members, revisions, current)
            retry = None
            self._retries.forget(key)
        except StatusError:  # a refused create: its events are written; try again later
            retry = self._retries.failed(key)
        fresh = [
            p
            for p in self.cluster.list(_PODS, key[0])
            if controlled_by(p, stateful_set) and ordinal_of(stateful_set, p) is not None
        ]
        live = {revision_of(p) for p in fresh} | {
            current["metadata"]["name"],
            revisions.update_name,
        }
        await trim_history(self.api, stateful_set, revisions, live)
        again = await self._write_status(stateful_set, fresh, current, revisions)
        return retry if retry is not None else again

    def _current_revision(
        self, stateful_set: dict[str, Any], revisions: Revisions
    ) -> dict[str, Any]:
        name = (stateful_set.get("status") or {}).get("currentRevision")
        for revision in revisions.history:
            if revision["metadata"]["name"] == name:
                return revision
        return revisions.update

    # --- pods -------------------------------------------------------------------------------

    async def _manage(
        self,
        stateful_set: dict[str, Any],
        members: dict[int, dict[str, Any]],
        revisions: Revisions,
        current: dict[str, Any],
    ) -> None:
        spec = stateful_set.get("spec") or {}
        start = int((spec.get("ordinals") or {}).get("start") or 0)
        wanted = range(start, start + int(spec.get("replicas", 1)))
        ordered = spec.get("podManagementPolicy") != "Parallel"
        for ordinal, pod in members.items():
            if ordinal in wanted and not _terminating(pod):
                await sync_claim_owners(self.api, stateful_set, pod, ordinal, in_range=True)
        if not await self._fill(stateful_set, members, wanted, revisions, current, ordered):
            return
        condemned = sorted((n for n in members if n not in wanted), reverse=True)
        if condemned and not await self._shrink(stateful_set, members, condemned, wanted, ordered):
            return
        strategy = spec.get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
            await self._roll(stateful_set, members, wanted, revisions, start + partition)

    async def _fill(
        self,
        stateful_set: dict[str, Any],
        members: dict[int, dict[str, Any]],
        wanted: range,
        revisions: Revisions,
        current: dict[str, Any],
        ordered: bool,
    ) -> bool:
        """Create missing and replace finished pods; False while an ordered set must wait."""
        strategy = (stateful_set.get("spec") or {}).get("updateStrategy") or {}
        partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
        rolling = strategy.get("type", "RollingUpdate") == "RollingUpdate"
        for ordinal in wanted:
            pod = members.get(ordinal)
            if pod is None:
                older = rolling and ordinal < wanted.start + partition
                await self._create(stateful_set, ordinal, current if older else revisions.update)
                if ordered:
                    return False
            elif _finished(pod) and not _terminating(pod):
                await self._delete(stateful_set, pod)
                if ordered:
                    return False
            elif ordered and not _running_and_ready(pod):
                return False
        return True

    async def _shrink(
        self,
        stateful_set: dict[str, Any],
        members: dict[int, dict[str, Any]],
        condemned: list[int],
        wanted: range,
        ordered: bool,
    ) -> bool:
        if ordered and not all(n in members and _running_and_ready(members[n]) for n in wanted):
            return False
        for ordinal in condemned:
            pod = members[ordinal]
            await sync_claim_owners(self.api, stateful_set, pod, ordinal, in_range=False)
        for ordinal in condemned:
            pod = members[ordinal]
            if _terminating(pod):
                if ordered:
                    return False
                continue
            await self._delete(stateful_set, pod)
            if ordered:
                return False
        return True

    async def _roll(
        self,
        stateful_set: dict[str, Any],
        members: dict[int, dict[str, Any]],
        wanted: range,
        revisions: Revisions,
        floor: int,
    ) -> None:
        """Replace the highest old-revision pod at or above the partition, one at a time,
        once every pod is Running and Ready (the default ``maxUnavailable`` of 1)."""
        if not all(n in members and _running_and_ready(members[n]) for n in wanted):
            return
        for ordinal in sorted((n for n in wanted if n >= floor), reverse=True):
            pod = members[ordinal]
            if revision_of(pod) != revisions.update_name:
                await self._delete(stateful_set, pod)
                return

    async def _create(
        self, stateful_set: dict[str, Any], ordinal: int, revision: dict[str, Any]
    ) -> None:
        pod = stateful_pod(stateful_set, revision, ordinal)
        await create_pod(self.api, stateful_set, pod, ordinal)

    async def _delete(self, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        namespace = meta.get("namespace") or ""
        if await self.api.delete(_PODS, namespace, meta["name"], uid=meta["uid"]):
            message = self._pod_message("delete", meta["name"], stateful_set)
            self._event(stateful_set, "SuccessfulDelete", message)

    @staticmethod
    def _pod_message(verb: str, name: str, stateful_set: dict[str, Any]) -> str:
        return f"{verb} Pod {name} in StatefulSet {stateful_set['metadata']['name']} successful"

    def _event(self, stateful_set: dict[str, Any], reason: str, message: str) -> None:
        self.cluster.record(stateful_set, "Normal", reason, message, component=_COMPONENT)

    # --- status -----------------------------------------------------------------------------

    async def _write_status(
        self,
        stateful_set: dict[str, Any],
        pods: list[dict[str, Any]],
        current: dict[str, Any],
        revisions: Revisions,
    ) -> float | None:
        spec = stateful_set.get("spec") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.cluster.wall_time()
        # ``replicas`` counts every pod made, the revision counts only those not going away
        created = [p for p in pods if not _terminating(p)]
        ready = [p for p in pods if _running_and_ready(p)]
        current_name = current["metadata"]["name"]
        counts = {
            "readyReplicas": len(ready),
            "currentReplicas": sum(revision_of(p) == current_name for p in created),
            "updatedReplicas": sum(revision_of(p) == revisions.update_name for p in created),
        }
        replicas = len(pods)
        strategy = (spec.get("updateStrategy") or {}).get("type", "RollingUpdate")
        done = counts["updatedReplicas"] == replicas == counts["readyReplicas"]
        if strategy == "RollingUpdate" and done:
            counts["currentReplicas"] = counts["updatedReplicas"]
            current_name = revisions.update_name
        status: dict[str, Any] = {
            "observedGeneration": stateful_set["metadata"].get("generation") or 0,
            "replicas": replicas,
            **{k: v for k, v in counts.items() if v},
            "currentRevision": current_name,
            "updateRevision": revisions.update_name,
            "collisionCount": revisions.collisions,
            "availableReplicas": sum(is_available(p, min_ready, now) for p in ready),
        }
        await self.api.write_status(_SETS, stateful_set, status)
        waiting = [
            since + min_ready - now
            for p in ready
            if (since := ready_since(p)) is not None and since + min_ready > now
        ]
        return min(waiting) if waiting else None
