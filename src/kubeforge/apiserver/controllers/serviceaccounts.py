"""The ``default`` ServiceAccount of every namespace, as kube-controller-manager keeps it.

Part of the simulated control plane (off with ``--no-simulate-node``, as under envtest):
every namespace that is not terminating gets a ``default`` ServiceAccount, created
again if it is deleted, so ``kubectl create token default`` and pods running "as
default" find it as on a real cluster.

Entry point: ``DefaultServiceAccounts(cluster)`` with ``start()``/``stop()``.
"""

from __future__ import annotations

from kubeforge.apiserver.controllers.pernamespace import PerNamespace
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["DefaultServiceAccounts"]

_ACCOUNTS = ("", "serviceaccounts")
_NAME = "default"


class DefaultServiceAccounts(PerNamespace):
    """Creates the ``default`` ServiceAccount wherever it is missing."""

    account = "service-account-controller"

    def concerns(self, event: Event) -> bool:
        return (
            event.resource == _ACCOUNTS
            and event.type == "DELETED"
            and event.object["metadata"]["name"] == _NAME
        )

    async def ensure(self, namespace: str) -> None:
        if self._engine.storage.get(_ACCOUNTS, namespace, _NAME) is not None:
            return
        body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": _NAME}}
        try:
            await self.api.create(_ACCOUNTS, namespace, body)
        except StatusError:
            return  # raced with a client creating it, or the namespace started terminating
