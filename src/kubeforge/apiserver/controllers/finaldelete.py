"""The kubelet's last word on a pod: its delete once the pod's containers stopped.

A real kubelet's status manager (``pkg/kubelet/status/status_manager.go``, 1.32:
``syncPod`` once ``canBeDeleted``) deletes the pod as ``system:node:<node>`` with
``DeleteOptions{gracePeriodSeconds: 0, preconditions: {uid: <the pod's uid>}}``, the uid
keeping it from deleting a new pod of the same name. That is an ordinary DELETE request,
so admission webhooks and ValidatingAdmissionPolicies see it (the options included);
when one refuses it the kubelet logs the error and tries again at its next sync, every
10 s (``syncPeriod``), so the pod stays with its ``deletionTimestamp`` until let through.
Finalizers still hold the object, as for any delete.

Entry point: ``FinalDeletes(cluster)``: ``finish(namespace, name, uid, node)`` once the
grace period is over; ``stop()``.
"""

from __future__ import annotations

import asyncio
import contextlib

from kubeforge.apiserver.controllers.admitting import node_user
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError

__all__ = ["FinalDeletes"]

_PODS = ("", "pods")
_SYNC_PERIOD = 10.0
"""The status manager's ``syncPeriod``: a refused delete is sent again this much later."""


class FinalDeletes:
    """Deletes stopped pods as their node, through admission when anything looks."""

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster
        self._apis: dict[str, ControllerRequests] = {}
        self._sending: set[asyncio.Task[None]] = set()
        self._again: dict[str, asyncio.TimerHandle] = {}

    def _api(self, node: str) -> ControllerRequests:
        api = self._apis.get(node)
        if api is None:
            api = self._apis[node] = ControllerRequests(self._cluster, node_user(node))
        return api

    def finish(self, namespace: str, name: str, uid: str, node: str) -> None:
        """Delete the pod ``uid`` now: directly when no webhook or policy could look at
        it, else as a request in a task of its own."""
        api = self._api(node)
        if not api.admitted(_PODS, "DELETE"):
            self._cluster.delete(_PODS, namespace, name, uid=uid, grace=0)
            return
        task = asyncio.ensure_future(self._send(api, namespace, name, uid, node))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(
        self, api: ControllerRequests, namespace: str, name: str, uid: str, node: str
    ) -> None:
        try:
            await api.delete(_PODS, namespace, name, uid=uid, grace=0)
        except StatusError:
            loop = asyncio.get_running_loop()
            again = loop.call_later(_SYNC_PERIOD, self._retry, namespace, name, uid, node)
            self._again[uid] = again

    def _retry(self, namespace: str, name: str, uid: str, node: str) -> None:
        self._again.pop(uid, None)
        with contextlib.suppress(StatusError):
            self.finish(namespace, name, uid, node)

    def stop(self) -> None:
        for again in self._again.values():
            again.cancel()
        for task in list(self._sending):
            task.cancel()
