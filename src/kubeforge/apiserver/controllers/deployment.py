"""The Deployment controller: ReplicaSets per template, rolled out as the strategy says.

Each sync claims the ReplicaSets the selector matches, finds the one with the
Deployment's template or creates ``<name>-<pod-template-hash>`` with the next revision,
then: paused or a new replica count -> scale (proportionally over active sets);
``Recreate`` -> old sets to zero, their pods gone, then the new one up;
``RollingUpdate`` -> within ``maxSurge`` and ``maxUnavailable`` as ``rolling.go``
computes. Events say ``Scaled up replica set <rs> from <a> to <b>``; empty old sets past
``revisionHistoryLimit`` go; ``rollout undo`` makes an old set the newest revision again.

Entry point: ``DeploymentController(cluster)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers import deployment_status as progress
from kubeforge.apiserver.controllers import rollout
from kubeforge.apiserver.controllers.cluster import controller_of, copy
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of, own_key
from kubeforge.apiserver.controllers.ownership import claim
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey

__all__ = ["DeploymentController"]

_DEPLOYMENTS = ("apps", "deployments")
_SETS = ("apps", "replicasets")
_PODS = ("", "pods")
_COMPONENT = "deployment-controller"


def _replicas(obj: dict[str, Any]) -> int:
    return int((obj.get("spec") or {}).get("replicas", 1))


def _status(obj: dict[str, Any], field: str) -> int:
    return int((obj.get("status") or {}).get(field) or 0)


def _created(obj: dict[str, Any]) -> tuple[str, str]:
    return str(obj["metadata"].get("creationTimestamp")), obj["metadata"]["name"]


class DeploymentController(ControllerLoop):
    resource = _DEPLOYMENTS
    account = _COMPONENT

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_DEPLOYMENTS: own_key, _SETS: self._set_keys, _PODS: self._pod_keys}

    def _set_keys(self, event: Event) -> Iterable[Key]:
        keys = self.controllers_of(event, "Deployment")
        if not keys and controller_of(event.object) is None:
            keys.update(self._selecting(event.object))
        return keys

    def _pod_keys(self, event: Event) -> Iterable[Key]:
        if event.type == "DELETED":
            return self._recreating(event.object)  # Recreate waits for old pods to go
        return ()

    def _selecting(self, obj: dict[str, Any]) -> list[Key]:
        namespace = obj["metadata"].get("namespace") or ""
        labels = obj["metadata"].get("labels") or {}
        return [
            key_of(d)
            for d in self.cluster.list(_DEPLOYMENTS, namespace)
            if selector_matches((d.get("spec") or {}).get("selector") or {}, labels)
        ]

    def _recreating(self, pod: dict[str, Any]) -> list[Key]:
        return [
            k
            for k in self._selecting(pod)
            if ((self.cluster.get(_DEPLOYMENTS, *k) or {}).get("spec") or {})
            .get("strategy", {})
            .get("type")
            == "Recreate"
        ]

    # --- sync -------------------------------------------------------------------------------

    async def sync(self, key: Key) -> float | None:
        deployment = self.cluster.get(_DEPLOYMENTS, *key)
        if deployment is None:
            return None
        sets = await self._claim(deployment)
        if deployment["metadata"].get("deletionTimestamp"):
            return await self._write_status(
                deployment, sets, self._find_new(deployment, sets), rolling=False
            )
        spec = deployment.get("spec") or {}
        paused = bool(spec.get("paused"))
        new = self._find_new(deployment, sets)
        if paused or self._scaling(deployment, sets, new):
            if new is not None:
                new = await self._sync_revision(deployment, sets, new)
            await self._scale(deployment, sets, new)
            return await self._write_status(
                deployment, await self._claim(deployment), new, rolling=False
            )
        recreate = spec.get("strategy", {}).get("type") == "Recreate"
        if recreate and not await self._olds_stopped(deployment, sets, new):
            return await self._write_status(
                deployment, await self._claim(deployment), new, rolling=True
            )
        new = await self._ensure_new(deployment, sets, new)
        if new is None:
            return 0.05  # a hash collision was counted; try the next name
        sets = await self._claim(deployment)
        olds = [rs for rs in sets if rs["metadata"]["uid"] != new["metadata"]["uid"]]
        if recreate:
            await self._recreate(deployment, new, olds)
        else:
            await self._rolling(deployment, new, olds)
        sets = await self._claim(deployment)
        new = next((rs for rs in sets if rs["metadata"]["uid"] == new["metadata"]["uid"]), new)
        return await self._write_status(deployment, sets, new, rolling=True)

    async def _claim(self, deployment: dict[str, Any]) -> list[dict[str, Any]]:
        selector = (deployment.get("spec") or {}).get("selector") or {}
        sets = await claim(self.api, _SETS, deployment, selector)
        return [rs for rs in sets if not rs["metadata"].get("deletionTimestamp")]

    def _find_new(
        self, deployment: dict[str, Any], sets: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        template = (deployment.get("spec") or {}).get("template") or {}
        matching = [
            rs
            for rs in sets
            if rollout.same_template((rs.get("spec") or {}).get("template") or {}, template)
        ]
        return min(matching, key=_created) if matching else None

    def _scaling(
        self, deployment: dict[str, Any], sets: list[dict[str, Any]], new: dict[str, Any] | None
    ) -> bool:
        """``isScalingEvent``: an active set's desired-replicas annotation is out of date."""
        for rs in sets:
            if _replicas(rs) > 0 or (new is not None and rs is new):
                desired = (rs["metadata"].get("annotations") or {}).get(rollout.DESIRED)
                if desired is not None and int(desired) != _replicas(deployment):
                    return True
        return False

    async def _sync_revision(
        self, deployment: dict[str, Any], sets: list[dict[str, Any]], new: dict[str, Any]
    ) -> dict[str, Any]:
        wanted = rollout.max_old_revision(sets, new) + 1
        body = copy(new)
        changed = rollout.annotate(body, deployment, max(wanted, rollout.revision(new)))
        if (body["spec"].get("minReadySeconds") or 0) != (
            (deployment.get("spec") or {}).get("minReadySeconds") or 0
        ):
            body["spec"]["minReadySeconds"] = (deployment.get("spec") or {}).get(
                "minReadySeconds"
            ) or 0
            changed = True
        if changed:
            new = await self.api.update(_SETS, body)
        await self._set_deployment_revision(deployment, rollout.revision(new))
        return new

    async def _set_deployment_revision(self, deployment: dict[str, Any], number: int) -> None:
        notes = deployment["metadata"].get("annotations") or {}
        if notes.get(rollout.REVISION) == str(number):
            return
        body = copy(deployment)
        body["metadata"].setdefault("annotations", {})[rollout.REVISION] = str(number)
        await self.api.update(_DEPLOYMENTS, body)

    async def _ensure_new(
        self, deployment: dict[str, Any], sets: list[dict[str, Any]], new: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        if new is not None:
            return await self._sync_revision(deployment, sets, new)
        status = deployment.get("status") or {}
        collisions = int(status.get("collisionCount") or 0)
        template = (deployment.get("spec") or {}).get("template") or {}
        pod_hash = rollout.template_hash(template, collisions)
        namespace = deployment["metadata"].get("namespace") or ""
        name = f"{deployment['metadata']['name']}-{pod_hash}"
        if self.cluster.get(_SETS, namespace, name) is not None:
            body = copy(deployment)
            body.setdefault("status", {})["collisionCount"] = collisions + 1
            await self.api.update_status(_DEPLOYMENTS, body)
            return None
        replicas = self._new_replicas(deployment, sets, None)
        revision = rollout.max_old_revision(sets, None) + 1
        created = await self.api.create(
            _SETS, namespace, rollout.new_replica_set(deployment, pod_hash, replicas, revision)
        )
        if replicas > 0:
            self._scaled(deployment, created, 0, replicas)
        await self._set_deployment_revision(deployment, revision)
        fresh = self.cluster.get(_DEPLOYMENTS, namespace, deployment["metadata"]["name"])
        if fresh is not None:
            body = copy(fresh)
            status = body.setdefault("status", {})
            message = f'Created new replica set "{name}"'
            progress.set_condition(
                status, "Progressing", "True", "NewReplicaSetCreated", message, self.cluster.now()
            )
            await self.api.update_status(_DEPLOYMENTS, body)
        return created

    def _new_replicas(
        self, deployment: dict[str, Any], sets: list[dict[str, Any]], new: dict[str, Any] | None
    ) -> int:
        """``NewRSNewReplicas``: how big the new set may be now."""
        wanted = _replicas(deployment)
        if (deployment.get("spec") or {}).get("strategy", {}).get("type") == "Recreate":
            return wanted
        surge, _ = rollout.surge_and_unavailable(deployment)
        current = sum(_replicas(rs) for rs in sets)
        have = _replicas(new) if new else 0
        if current >= wanted + surge:
            return have
        return have + min(wanted + surge - current, max(wanted - have, 0))

    # --- strategies -------------------------------------------------------------------------

    async def _rolling(
        self, deployment: dict[str, Any], new: dict[str, Any], olds: list[dict[str, Any]]
    ) -> None:
        wanted = _replicas(deployment)
        if _replicas(new) > wanted:
            await self._resize(deployment, new, wanted)
            return
        target = self._new_replicas(deployment, [new, *olds], new)
        if target != _replicas(new):
            await self._resize(deployment, new, target)
            return
        await self._scale_down_olds(deployment, new, olds)
        if progress.complete(
            deployment, progress.calculate_status(deployment, [new, *olds], new, self.cluster.now())
        ):
            await self._clean_up(deployment, olds)

    async def _scale_down_olds(
        self, deployment: dict[str, Any], new: dict[str, Any], olds: list[dict[str, Any]]
    ) -> None:
        """``reconcileOldReplicaSets``: unhealthy old pods first, then within maxUnavailable."""
        if sum(_replicas(rs) for rs in olds) == 0:
            return
        _, unavailable = rollout.surge_and_unavailable(deployment)
        min_available = _replicas(deployment) - unavailable
        all_pods = sum(_replicas(rs) for rs in [new, *olds])
        new_unavailable = _replicas(new) - _status(new, "availableReplicas")
        room = all_pods - min_available - new_unavailable
        if room <= 0:
            return
        olds = sorted(olds, key=_created)
        for rs in olds:
            if room <= 0:
                break
            unhealthy = _replicas(rs) - _status(rs, "availableReplicas")
            cut = min(room, max(unhealthy, 0))
            if cut > 0:
                await self._resize(deployment, rs, _replicas(rs) - cut)
                room -= cut
        olds = [
            self.cluster.get(_SETS, rs["metadata"]["namespace"], rs["metadata"]["name"]) or rs
            for rs in olds
        ]
        available = sum(_status(rs, "availableReplicas") for rs in [new, *olds])
        budget = available - min_available
        for rs in olds:
            if budget <= 0:
                break
            cut = min(_replicas(rs), budget)
            if cut > 0:
                await self._resize(deployment, rs, _replicas(rs) - cut)
                budget -= cut

    async def _olds_stopped(
        self, deployment: dict[str, Any], sets: list[dict[str, Any]], new: dict[str, Any] | None
    ) -> bool:
        """Recreate's first half: every old set at zero and all of its pods gone."""
        olds = [rs for rs in sets if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        active = [rs for rs in olds if _replicas(rs) > 0]
        for rs in active:
            await self._resize(deployment, rs, 0)
        if active:
            return False
        old_uids = {rs["metadata"]["uid"] for rs in olds}
        namespace = deployment["metadata"].get("namespace") or ""
        for pod in self.cluster.list(_PODS, namespace):
            ref = controller_of(pod)
            running = (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            if ref is not None and ref.get("uid") in old_uids and running:
                return False  # still running or terminating
        return True

    async def _recreate(
        self, deployment: dict[str, Any], new: dict[str, Any], olds: list[dict[str, Any]]
    ) -> None:
        if _replicas(new) != _replicas(deployment):
            await self._resize(deployment, new, _replicas(deployment))
            return
        status = progress.calculate_status(deployment, [new, *olds], new, self.cluster.now())
        if progress.complete(deployment, status):
            await self._clean_up(deployment, olds)

    async def _scale(
        self, deployment: dict[str, Any], sets: list[dict[str, Any]], new: dict[str, Any] | None
    ) -> None:
        """A replica-count change outside a rollout, spread over the active sets by size."""
        active = [rs for rs in sets if _replicas(rs) > 0]
        target = _replicas(deployment)
        if not active:
            if new is not None and not (deployment.get("spec") or {}).get("paused"):
                await self._resize(deployment, new, target)
            return
        if len(active) == 1:
            await self._resize(deployment, active[0], target)
            return
        surge, _ = rollout.surge_and_unavailable(deployment)
        to_add = target + surge - sum(_replicas(rs) for rs in active)
        ordered = sorted(active, key=lambda rs: (-_replicas(rs), _created(rs)), reverse=to_add < 0)
        sizes = rollout.proportional_sizes([_replicas(rs) for rs in ordered], to_add)
        for rs, size in zip(ordered, sizes, strict=True):
            await self._resize(deployment, rs, size)

    async def _resize(self, deployment: dict[str, Any], rs: dict[str, Any], replicas: int) -> None:
        body = copy(rs)
        before = _replicas(rs)
        body["spec"]["replicas"] = replicas
        changed = rollout.annotate(body, deployment, None)
        if before == replicas and not changed:
            return
        await self.api.update(_SETS, body)
        if before != replicas:
            self._scaled(deployment, rs, before, replicas)

    def _scaled(
        self, deployment: dict[str, Any], rs: dict[str, Any], before: int, after: int
    ) -> None:
        direction = "up" if after > before else "down"
        message = (
            f"Scaled {direction} replica set {rs['metadata']['name']} from {before} to {after}"
        )
        self.cluster.record(
            deployment, "Normal", "ScalingReplicaSet", message, component=_COMPONENT
        )

    async def _clean_up(self, deployment: dict[str, Any], olds: list[dict[str, Any]]) -> None:
        limit = (deployment.get("spec") or {}).get("revisionHistoryLimit", 10)
        if limit is None:
            return
        empty = [rs for rs in olds if _replicas(rs) == 0 and _status(rs, "replicas") == 0]
        empty.sort(key=lambda rs: (rollout.revision(rs), _created(rs)))
        for rs in empty[: max(len(empty) - int(limit), 0)]:
            meta = rs["metadata"]
            await self.api.delete(_SETS, meta.get("namespace") or "", meta["name"], uid=meta["uid"])

    async def _write_status(
        self,
        deployment: dict[str, Any],
        sets: list[dict[str, Any]],
        new: dict[str, Any] | None,
        *,
        rolling: bool,
    ) -> float | None:
        return await progress.write_status(self.api, deployment, sets, new, rolling=rolling)
