"""The controller that fills the ``rules`` of aggregated ClusterRoles.

``ClusterRoleAggregator`` does the controller-manager's job: a ClusterRole with an
``aggregationRule`` gets the rules of every ClusterRole its selectors match, so
``kubectl get clusterrole view -o yaml`` shows them (a CRD's roles labelled
``rbac.authorization.k8s.io/aggregate-to-view: "true"`` join ``view``). The authorizer
does not wait for it: it aggregates on its own (``authz.rbac.aggregated_rules``).

Its writes are what 1.32's ``applyClusterRoles`` sends: a forced server-side apply of
the role's ``rules`` as field manager ``clusterrole-aggregation-controller`` (so the
role's managedFields name it, operation ``Apply``), a request of
``system:serviceaccount:kube-system:clusterrole-aggregation-controller`` that admission
webhooks and policies see as an UPDATE. A refused write is tried again after its
queue's back-off (5 ms doubling to 1000 s, client-go's default controller rate
limiter), a conflict at once.

Entry point: ``ClusterRoleAggregator(cluster)``, started with the server.
"""

from __future__ import annotations

from kubeforge.apiserver.authz.rbac import aggregated_rules
from kubeforge.apiserver.controllers.admitting import controller_user
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.loop import StorageLoop
from kubeforge.apiserver.controllers.podcontrol import Retries
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["ClusterRoleAggregator"]

_GROUP = "rbac.authorization.k8s.io"
_CLUSTER_ROLES = (_GROUP, "clusterroles")
_API_VERSION = f"{_GROUP}/v1"
_MANAGER = "clusterrole-aggregation-controller"
_MAX_BACKOFF = 1000.0


class ClusterRoleAggregator(StorageLoop):
    """Keeps the ``rules`` of every ClusterRole with an ``aggregationRule`` up to date."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster.engine, cluster.registry)
        self._api = ControllerRequests(cluster, controller_user(_MANAGER))
        self._retries = Retries(cap=_MAX_BACKOFF)

    def wants(self, event: Event) -> bool:
        return event.resource == _CLUSTER_ROLES

    async def reconcile(self) -> None:
        stored = {o["metadata"]["name"]: o for o in self._engine.storage.objects(_CLUSTER_ROLES)}
        for name, role in stored.items():
            if not role.get("aggregationRule"):
                continue
            rules = aggregated_rules(stored, name)
            if rules == (role.get("rules") or []):
                continue
            config = {"apiVersion": _API_VERSION, "kind": "ClusterRole",
                      "metadata": {"name": name}, "rules": rules}  # fmt: skip
            try:
                await self._api.apply(_CLUSTER_ROLES, "", config, _MANAGER)
            except StatusError as error:
                self._retry(name, refused=error.code != 409)
            else:
                self._retries.forget(name)

    def _retry(self, name: str, *, refused: bool) -> None:
        """Look again: at once after a race with a client, after a back-off when refused."""
        if not refused:
            self._schedule()
        elif self._loop is not None:
            self._loop.call_later(self._retries.failed(name), self._schedule)
