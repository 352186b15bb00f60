"""The RBAC objects a fresh cluster has, installed as the real server installs them.

``bootstrap_policy()`` (from ``bootstrap_data``, over ``bootstrap_policy.yaml``) gives
every default ClusterRole, ClusterRoleBinding, Role and RoleBinding of a 1.32 server:
``cluster-admin``, the aggregated ``admin``/``edit``/``view`` and their
``system:aggregate-to-*`` parts, ``system:discovery``/``basic-user``/
``public-info-viewer`` for every user, ``system:auth-delegator``, the control plane's
own roles (``system:kube-controller-manager``, ``system:kube-scheduler``,
``system:node``, ``system:node-proxier`` ...), the certificate signer approvers, every
``system:controller:*`` role bound to its kube-system ServiceAccount, and the
kube-system/kube-public Roles and RoleBindings (``extension-apiserver-authentication-
reader``, the leader-locking roles, the bootstrap signer's and token cleaner's).

``install_bootstrap_policy`` runs at every start, as the ``rbac/bootstrap-roles``
post-start hook does: missing objects are created; stored ones are reconciled by
``reconcile`` (permissions added, never removed; ``autoupdate: "false"`` left alone).

The aggregated ClusterRoles' ``rules`` are written by
``controllers.roles.ClusterRoleAggregator``; the authorizer does not wait for it
(``rbac.aggregated_rules``).

Entry points: ``bootstrap_policy``, ``install_bootstrap_policy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.authz.bootstrap_data import BootstrapPolicy, bootstrap_policy
from kubeforge.apiserver.authz.reconcile import Change, reconciled_binding, reconciled_role
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.deletion import DeleteOptions, delete
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry, ServedResource

__all__ = ["BootstrapPolicy", "bootstrap_policy", "install_bootstrap_policy"]

_GROUP = "rbac.authorization.k8s.io"


def install_bootstrap_policy(engine: Engine, registry: Registry) -> None:
    """Create the default RBAC objects that are missing and reconcile the stored ones.

    >>> # LocalServer calls it once storage and the registry are up:
    >>> # install_bootstrap_policy(server.engine, server.registry)
    """
    for plural, objects in bootstrap_policy().by_plural():
        served = registry.lookup(_GROUP, "v1", plural)
        assert served is not None  # built-in
        reconcile = reconciled_binding if plural.endswith("bindings") else reconciled_role
        for expected in objects:
            try:
                _install(engine, served, expected, reconcile)
            except StatusError:
                # The real hook logs a failed object and goes on with the others (say a
                # namespace being deleted): one object must not stop the server.
                continue


def _install(
    engine: Engine, served: ServedResource, expected: dict[str, Any], reconcile: Any
) -> None:
    meta = expected["metadata"]
    namespace, name = meta.get("namespace", ""), meta["name"]
    existing = engine.storage.get(served.storage_key, namespace, name)
    if existing is None:
        engine.create(served, namespace, expected)
        return
    change: Change | None = reconcile(existing, expected)
    if change is None:
        return
    if change.recreate:
        delete(engine, served, namespace, name, DeleteOptions())
        body = {k: v for k, v in change.obj.items() if k != "metadata"}
        engine.create(served, namespace, {**body, "metadata": _fresh(change.obj["metadata"])})
        return
    engine.update(served, namespace, name, change.obj)


def _fresh(meta: dict[str, Any]) -> dict[str, Any]:
    """The metadata a recreated object is written with (the server stamps the rest)."""
    kept = ("name", "namespace", "labels", "annotations")
    return {k: v for k, v in meta.items() if k in kept}
