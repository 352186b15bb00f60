"""kube-controller-manager's resource-quota controller (``resourcequota``, 1.32): keeps
each ResourceQuota's ``status.hard`` equal to its ``spec.hard`` and its ``status.used``
equal to what its namespace holds, which ``kubectl describe quota`` and the
``ResourceQuota`` admission plugin read.

A quota is recalculated when it is created or its spec changes, when an object it could
count is created, deleted or changed in a way that changes its cost (a pod that finishes
stops being charged), and when a terminating pod passes its grace period (one stuck on a
lost node stops being charged); the status is written only when it differs.

Entry point: ``ResourceQuotaController(cluster)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, key_of
from kubeforge.apiserver.quota.evaluators import evaluator_for, evaluators_for
from kubeforge.apiserver.quota.pods import release_time
from kubeforge.apiserver.quota.quantity import equals
from kubeforge.apiserver.quota.usage import quota_status
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["RESOURCE_QUOTA_CONTROLLER", "ResourceQuotaController"]

RESOURCE_QUOTA_CONTROLLER = "resourcequota-controller"
_QUOTAS = ("", "resourcequotas")
_RECOUNT_AFTER = 0.2
"""Seconds a recount waits for more writes. Admission has charged every create already
(kube-controller-manager does not recount on creates at all, only on its 5-minute
resync), so the wait shows only where admission did not run or a write failed."""
_PAST = 0.5  # seconds after a grace period ends to look again: the pod is then past it


class ResourceQuotaController(ControllerLoop):
    resource = _QUOTAS
    account = "resourcequota-controller"

    def _on_event(self, event: Event) -> None:
        # A recount lists the namespace: one per burst of writes, not one per write.
        delay = 0.0 if event.resource == _QUOTAS else _RECOUNT_AFTER
        for key in self.keys_for(event):
            self.enqueue(key, delay)

    def keys_for(self, event: Event) -> Iterable[Key]:
        storage = self._engine.storage
        if storage.count(_QUOTAS) == 0:
            return ()
        namespace = (event.object.get("metadata") or {}).get("namespace") or ""
        quotas = storage.objects(_QUOTAS, namespace) if namespace else []
        if not quotas:
            return ()
        if event.resource == _QUOTAS:
            if _status_only(event):  # its own writes, and the admission plugin's
                return ()
        elif not self._changes_cost(event):
            return ()
        return [key_of(quota) for quota in quotas]

    @staticmethod
    def _changes_cost(event: Event) -> bool:
        evaluator = evaluator_for(*event.resource)
        if evaluator is None:
            return False
        if event.type != "MODIFIED" or event.previous is None:
            return True
        if release_time(event.object) != release_time(event.previous):
            return True  # its deletion started: it stops costing at the end of the grace
        now = 0.0  # a cost that changes with time alone is left to the next recalculation
        return not equals(evaluator.usage(event.object, now), evaluator.usage(event.previous, now))

    def _served(self, group: str, plural: str) -> bool:
        found = self._registry.storage_version_of(group, plural)
        return found is not None and found.info.namespaced

    def _objects(self, namespace: str) -> Any:
        def objects(group: str, plural: str) -> list[dict[str, Any]]:
            served = self._registry.storage_version_of(group, plural)
            key = served.storage_key if served is not None else (group, plural)
            return self.cluster.list(key, namespace)

        return objects

    async def sync(self, key: Key) -> float | None:
        quota = self.cluster.get(_QUOTAS, *key)
        if quota is None:
            return None
        hard = ((quota.get("spec") or {}).get("hard") or {}).keys()
        evaluators = evaluators_for(hard, self._served)
        status = quota_status(quota, evaluators, self._objects(key[0]), self.cluster.wall_time())
        if status != (quota.get("status") or {}):
            body = copy(quota)
            body["status"] = status
            await self.api.update_status(_QUOTAS, body)
        return self._next_release(key[0], hard)

    def _next_release(self, namespace: str, hard: Iterable[str]) -> float | None:
        """Seconds until a terminating pod passes its grace period and stops being charged
        (no event says so; kube-controller-manager's periodic resync catches it)."""
        pods = evaluator_for("", "pods")
        if pods is None or not pods.matching_resources(hard):
            return None
        now = self.cluster.wall_time()
        pending = [
            when - now
            for pod in self.cluster.list(("", "pods"), namespace)
            if (when := release_time(pod)) is not None and when >= now
        ]
        return min(pending) + _PAST if pending else None


def _status_only(event: Event) -> bool:
    previous = event.previous
    return (
        event.type == "MODIFIED"
        and previous is not None
        and (previous.get("spec") or {}) == (event.object.get("spec") or {})
    )
