"""The system namespaces, made again when missing, as 1.32's API server does.

``pkg/controlplane/controller/systemnamespaces`` (1.32): every minute, each of
``kube-system``, ``kube-public``, ``kube-node-lease`` and ``default`` that is not there
is created (the namespace lifecycle plugin forbids deleting all but
``kube-node-lease``, so that is the one that comes back in practice).

Entry point: ``SystemNamespaces(api)``, a ``poststart`` keeper.
"""

from __future__ import annotations

from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError

__all__ = ["SYSTEM_NAMESPACES", "SystemNamespaces"]

SYSTEM_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease", "default")
_NAMESPACES = ("", "namespaces")


class SystemNamespaces:
    """Creates the missing system namespaces once a minute."""

    interval = 60.0

    def __init__(self, api: ControllerRequests) -> None:
        self.api = api

    async def sync(self) -> None:
        for name in SYSTEM_NAMESPACES:
            if self.api.cluster.get(_NAMESPACES, "", name) is not None:
                continue
            body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            try:
                await self.api.create(_NAMESPACES, "", body)
            except StatusError:
                continue  # made meanwhile, or refused: the next minute tries again
