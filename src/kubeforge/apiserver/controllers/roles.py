"""The controller that fills the ``rules`` of aggregated ClusterRoles.

``ClusterRoleAggregator`` does the controller-manager's job: a ClusterRole with an
``aggregationRule`` gets the rules of every ClusterRole its selectors match, so
``kubectl get clusterrole view -o yaml`` shows them (a CRD's roles labelled
``rbac.authorization.k8s.io/aggregate-to-view: "true"`` join ``view``). The authorizer
does not wait for it: it aggregates on its own (``authz.rbac.aggregated_rules``).

Entry point: ``ClusterRoleAggregator(engine, registry)``, started with the server.
"""

from __future__ import annotations

from kubeforge.apiserver.authz.rbac import aggregated_rules
from kubeforge.apiserver.controllers.loop import StorageLoop
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.options import TRUSTED
from kubeforge.apiserver.storage.sqlite import Event, clone

__all__ = ["ClusterRoleAggregator"]

_GROUP = "rbac.authorization.k8s.io"
_CLUSTER_ROLES = (_GROUP, "clusterroles")


class ClusterRoleAggregator(StorageLoop):
    """Keeps the ``rules`` of every ClusterRole with an ``aggregationRule`` up to date."""

    def wants(self, event: Event) -> bool:
        return event.resource == _CLUSTER_ROLES

    def reconcile(self) -> None:
        served = self._registry.lookup(_GROUP, "v1", "clusterroles")
        assert served is not None  # built-in
        stored = {o["metadata"]["name"]: o for o in self._engine.storage.objects(_CLUSTER_ROLES)}
        for name, role in stored.items():
            if not role.get("aggregationRule"):
                continue
            rules = aggregated_rules(stored, name)
            if rules == (role.get("rules") or []):
                continue
            body = clone(role)
            body["rules"] = rules
            try:
                self._engine.update(served, "", name, body, TRUSTED)
            except StatusError:
                self._schedule()  # raced with a client's write; look again
