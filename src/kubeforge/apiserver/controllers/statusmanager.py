"""The kubelet's status manager: each pod's latest status, sent as its node's request.

``kubelet.Kubelets`` works out a pod's status synchronously; sending it is this module's.
When nothing in admission looks at a node's ``pods/status`` UPDATEs (``Admitting.wants``)
and no earlier status of the pod waits to be sent, the status is written at once, with
no task and no await. Otherwise it becomes the pod's latest and a task sends it as
``system:node:<node>``: a newer status replaces one not sent yet, and one refused (or
meeting a conflict) is sent again after the kubelet's status sync period (10 s,
``syncPeriod`` in 1.32's ``status_manager.go``), or at once when a newer one comes.

Entry point: ``StatusManager(cluster)``: ``send(node, body)``, ``latest(uid)``, ``stop()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from kubeforge.apiserver.controllers.admitting import node_user
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError

__all__ = ["SYNC_PERIOD", "StatusManager"]

log = logging.getLogger("kubeforge.apiserver.controllers")

SYNC_PERIOD = 10.0
_PODS = ("", "pods")


class _Pending:
    """A pod's status waiting to be sent, and what wakes its sender early."""

    def __init__(self, node: str, body: dict[str, Any]) -> None:
        self.node = node
        self.body = body
        self.newer = asyncio.Event()


class StatusManager:
    """The status writes of every simulated kubelet, by pod uid."""

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster
        self._apis: dict[str, ControllerRequests] = {}
        self._pending: dict[str, _Pending] = {}
        self._senders: dict[str, asyncio.Task[None]] = {}

    def api(self, node: str) -> ControllerRequests:
        """The requests of ``node``'s kubelet (``system:node:<node>``)."""
        api = self._apis.get(node)
        if api is None:
            api = self._apis[node] = ControllerRequests(self._cluster, node_user(node))
        return api

    def latest(self, uid: str) -> dict[str, Any] | None:
        """The status of pod ``uid`` not sent yet, if any (newer than the stored one)."""
        pending = self._pending.get(uid)
        return pending.body.get("status") if pending is not None else None

    def send(self, node: str, body: dict[str, Any]) -> None:
        """Write ``body``'s status as ``node``'s kubelet: now, or by a sender task."""
        uid = str(body["metadata"].get("uid") or "")
        before = self._pending.get(uid)
        if before is None and not self.api(node).admitted(_PODS, "UPDATE", "status"):
            self._cluster.update_status(_PODS, body)
            return
        self._pending[uid] = _Pending(node, body)
        if before is not None:
            before.newer.set()
        if uid not in self._senders:
            self._senders[uid] = asyncio.ensure_future(self._sync(uid))

    def stop(self) -> None:
        for task in self._senders.values():
            task.cancel()
        self._senders.clear()
        self._pending.clear()

    async def _sync(self, uid: str) -> None:
        try:
            while (pending := self._pending.get(uid)) is not None:
                if await self._sent(uid, pending):
                    if self._pending.get(uid) is pending:
                        del self._pending[uid]
                    continue
                with contextlib.suppress(TimeoutError):  # retried at the next sync tick
                    await asyncio.wait_for(pending.newer.wait(), SYNC_PERIOD)
        finally:
            self._senders.pop(uid, None)

    async def _sent(self, uid: str, pending: _Pending) -> bool:
        """Send one status onto the stored pod; False when it must be tried again."""
        meta = pending.body["metadata"]
        current = self._cluster.get(_PODS, meta.get("namespace") or "", meta["name"])
        if current is None or current["metadata"].get("uid") != uid:
            return True  # the pod is gone: its status goes with it
        body = {**current, "status": pending.body.get("status")}
        try:
            await self.api(pending.node).update_status(_PODS, body)
        except StatusError as error:
            log.info("kubelet %s: failed to update status for pod %s: %s", pending.node, uid, error)
            return False
        return True
