"""The ReplicaSet and ReplicationController controllers: the pods a replica count asks for.

Each sync claims the namespace's pods as ``ControllerRefManager`` does (adopts a matching
orphan, releases an owned pod that no longer matches), creates what is missing from the
template (``generateName: <owner>-``) in slow-start batches (``podcontrol``: 1, 2, 4, ...,
``SuccessfulCreate``, or ``FailedCreate`` when the server refuses one, which also sets the
``ReplicaFailure`` condition until a sync succeeds and retries with the rate-limited
requeue), deletes the surplus in ``ranking.deletion_order`` (``SuccessfulDelete``), and
writes the status: ``replicas``, ``fullyLabeledReplicas``, ``readyReplicas``, ``availableReplicas``
(ready for ``minReadySeconds``), ``observedGeneration``. Zero counts other than
``replicas`` are left out, as Go's ``omitempty`` leaves them.

Entry points: ``ReplicaSetController(cluster)``, ``ReplicationManager(cluster)``;
``pod_from_template(owner, template)`` for other controllers that make pods.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, controller_of, copy, owner_reference
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of, own_key
from kubeforge.apiserver.controllers.ownership import claim, controlled_by
from kubeforge.apiserver.controllers.podcontrol import (
    BURST_REPLICAS,
    Retries,
    create_pod,
    slow_start,
)
from kubeforge.apiserver.controllers.ranking import (
    deletion_order,
    is_active,
    is_available,
    is_ready,
    ready_since,
)
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.journal import ResourceKey
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["ReplicaSetController", "ReplicationManager", "pod_from_template", "replica_failure"]

_PODS = ("", "pods")


def pod_from_template(
    owner: dict[str, Any], template: dict[str, Any], prefix: str = ""
) -> dict[str, Any]:
    """A pod as ``controller.GetPodFromTemplate`` builds it: the template's labels,
    annotations, finalizers and spec, owned by ``owner``, named ``<prefix>-xxxxx``."""
    meta = template.get("metadata") or {}
    pod_meta: dict[str, Any] = {
        "generateName": f"{prefix or owner['metadata']['name']}-",
        "labels": dict(meta.get("labels") or {}),
        "ownerReferences": [owner_reference(owner)],
    }
    for field in ("annotations", "finalizers"):
        if meta.get(field):
            pod_meta[field] = copy({"v": meta[field]})["v"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": pod_meta,
        "spec": copy(template.get("spec") or {}),
    }


class _ReplicaController(ControllerLoop):
    """One loop per kind; subclasses say which kind, how it selects, and who it is."""

    component = ""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._retries = Retries()

    def selector(self, owner: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {self.resource: own_key, _PODS: self._pod_keys}

    def _pod_keys(self, event: Event) -> Iterable[Key]:
        keys = self.controllers_of(event, self.kind_name)
        if not keys and controller_of(event.object) is None and event.type != "DELETED":
            keys.update(self._selecting(event.object))  # an orphan someone may adopt
        return keys

    @property
    def kind_name(self) -> str:
        return "ReplicaSet" if self.resource[0] == "apps" else "ReplicationController"

    def _selecting(self, pod: dict[str, Any]) -> list[Key]:
        namespace = pod["metadata"].get("namespace") or ""
        if not self.cluster.has(self.resource, namespace):
            return []
        labels = pod["metadata"].get("labels") or {}
        return [
            key_of(owner)
            for owner in self.cluster.list(self.resource, namespace)
            if selector_matches(self.selector(owner), labels)
        ]

    async def sync(self, key: Key) -> float | None:
        owner = self.cluster.get(self.resource, *key)
        if owner is None:
            return None
        selector = self.selector(owner)
        pods = await claim(self.api, _PODS, owner, selector, is_active)
        active = [p for p in pods if is_active(p)]
        refusal = None
        if not owner["metadata"].get("deletionTimestamp"):
            refusal = await self._manage(owner, active)
            pods = [p for p in self.cluster.list(_PODS, key[0]) if controlled_by(p, owner)]
        again = await self._write_status(owner, [p for p in pods if is_active(p)], refusal)
        if refusal is None:
            self._retries.forget(key)
            return again
        return self._retries.failed(key)

    async def _manage(
        self, owner: dict[str, Any], active: list[dict[str, Any]]
    ) -> StatusError | None:
        """``manageReplicas``: create or delete at most ``BurstReplicas``; the first refusal."""
        wanted = int((owner.get("spec") or {}).get("replicas", 1))
        namespace = owner["metadata"].get("namespace") or ""
        template = (owner.get("spec") or {}).get("template") or {}
        missing = min(wanted - len(active), BURST_REPLICAS)
        if missing > 0:
            _, refusal = await slow_start(
                missing,
                lambda: create_pod(
                    self.api, owner, pod_from_template(owner, template), self.component
                ),
            )
            return refusal
        surplus = min(len(active) - wanted, BURST_REPLICAS)
        now = self.cluster.wall_time()
        for pod in deletion_order(active, active, now)[: max(surplus, 0)]:
            meta = pod["metadata"]
            if await self.api.delete(_PODS, namespace, meta["name"], uid=meta.get("uid", "")):
                self._event(owner, "Normal", "SuccessfulDelete", f"Deleted pod: {meta['name']}")
        return None

    async def _write_status(
        self, owner: dict[str, Any], active: list[dict[str, Any]], refusal: StatusError | None
    ) -> float | None:
        spec = owner.get("spec") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.cluster.wall_time()
        template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        counts = {
            "replicas": len(active),
            "fullyLabeledReplicas": sum(
                all(
                    (p["metadata"].get("labels") or {}).get(k) == v
                    for k, v in template_labels.items()
                )
                for p in active
            ),
            "readyReplicas": sum(is_ready(p) for p in active),
            "availableReplicas": sum(is_available(p, min_ready, now) for p in active),
            "observedGeneration": owner["metadata"].get("generation") or 0,
        }
        status = {k: v for k, v in counts.items() if v or k == "replicas"}
        conditions = replica_failure(owner, len(active), refusal, self.cluster.now())
        if conditions:
            status["conditions"] = conditions
        if status != (owner.get("status") or {}):
            body = copy(owner)
            body["status"] = status
            await self.api.update_status(self.resource, body)
        waiting = [
            since + min_ready - now
            for p in active
            if (since := ready_since(p)) is not None and since + min_ready > now
        ]
        return min(waiting) if waiting else None

    def _event(self, owner: dict[str, Any], kind: str, reason: str, message: str) -> None:
        self.cluster.record(owner, kind, reason, message, component=self.component)


class ReplicaSetController(_ReplicaController):
    resource: ResourceKey = ("apps", "replicasets")
    component = account = "replicaset-controller"

    def selector(self, owner: dict[str, Any]) -> dict[str, Any]:
        return dict((owner.get("spec") or {}).get("selector") or {})


class ReplicationManager(_ReplicaController):
    resource: ResourceKey = ("", "replicationcontrollers")
    component = account = "replication-controller"

    def selector(self, owner: dict[str, Any]) -> dict[str, Any]:
        spec = owner.get("spec") or {}
        labels = spec.get("selector") or ((spec.get("template") or {}).get("metadata") or {}).get(
            "labels"
        )
        return {"matchLabels": dict(labels or {})}


def replica_failure(
    owner: dict[str, Any], active: int, refusal: StatusError | None, now: str
) -> list[dict[str, Any]]:
    """The conditions after a sync (``calculateStatus``): a ``ReplicaFailure`` appears with
    the first refusal (``FailedCreate`` / ``FailedDelete``, the error as its message) and
    stays as it is until a sync meets none, which removes it."""
    conditions = [dict(c) for c in (owner.get("status") or {}).get("conditions") or []]
    failing = [c for c in conditions if c.get("type") == "ReplicaFailure"]
    if refusal is None:
        return [c for c in conditions if c.get("type") != "ReplicaFailure"]
    if failing:
        return conditions
    wanted = int((owner.get("spec") or {}).get("replicas", 1))
    reason = "FailedCreate" if active < wanted else "FailedDelete" if active > wanted else ""
    failure = {"type": "ReplicaFailure", "status": "True", "lastTransitionTime": now}
    failure.update({"reason": reason, "message": str(refusal)} if reason else {})
    return [*conditions, failure]
