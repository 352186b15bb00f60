"""The RBAC objects a fresh cluster has.

``bootstrap_policy()`` gives the default roles a real server creates at start-up,
reduced to the ones clients rely on: ``cluster-admin`` (bound to ``system:masters``),
the user-facing ``admin``/``edit``/``view`` (aggregated from the
``system:aggregate-to-*`` roles, so a CRD's roles labelled
``rbac.authorization.k8s.io/aggregate-to-view: "true"`` join them),
``system:discovery``, ``system:basic-user`` and ``system:public-info-viewer`` (bound to
every authenticated user, so a restricted kubeconfig can still run discovery and
``kubectl auth can-i``), and ``system:service-account-issuer-discovery`` (the OIDC
discovery documents, bound to every service account). They are created when missing
and never overwritten.

The aggregated ClusterRoles' ``rules`` are written by
``controllers.roles.ClusterRoleAggregator``; the authorizer does not wait for it
(``rbac.aggregated_rules``).

Entry points: ``bootstrap_policy``, ``install_bootstrap_policy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["bootstrap_policy", "install_bootstrap_policy"]

_GROUP = "rbac.authorization.k8s.io"
_READ = ["get", "list", "watch"]
_WRITE = ["create", "delete", "deletecollection", "patch", "update"]
_BOOTSTRAP_META = {
    "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
    "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
}


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs}


def _urls(urls: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"nonResourceURLs": urls, "verbs": verbs}


# What workload-level users read and write, grouped the way the real roles group them.
_CORE_WORKLOAD = [
    "pods",
    "pods/log",
    "pods/status",
    "configmaps",
    "endpoints",
    "persistentvolumeclaims",
    "persistentvolumeclaims/status",
    "replicationcontrollers",
    "replicationcontrollers/scale",
    "replicationcontrollers/status",
    "serviceaccounts",
    "services",
    "services/status",
]
_APPS_WORKLOAD = [
    "controllerrevisions",
    "daemonsets",
    "daemonsets/status",
    "deployments",
    "deployments/scale",
    "deployments/status",
    "replicasets",
    "replicasets/scale",
    "replicasets/status",
    "statefulsets",
    "statefulsets/scale",
    "statefulsets/status",
]
_APPS_WRITABLE = [
    "daemonsets",
    "deployments",
    "deployments/rollback",
    "deployments/scale",
    "replicasets",
    "replicasets/scale",
    "statefulsets",
    "statefulsets/scale",
]

_VIEW_RULES = [
    _rule(
        [""],
        [
            *_CORE_WORKLOAD,
            "bindings",
            "events",
            "limitranges",
            "namespaces/status",
            "resourcequotas",
            "resourcequotas/status",
            "namespaces",
        ],
        _READ,
    ),
    _rule(["apps"], _APPS_WORKLOAD, _READ),
    _rule(["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], _READ),
    _rule(["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], _READ),
    _rule(["discovery.k8s.io"], ["endpointslices"], _READ),
    _rule(["events.k8s.io"], ["events"], _READ),
    _rule(["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"], _READ),
    _rule(["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"], _READ),
]
_EDIT_RULES = [
    _rule(
        [""],
        ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
        _READ,
    ),
    _rule([""], ["serviceaccounts"], ["impersonate"]),
    _rule(
        [""],
        ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"],
        ["create", "delete", "deletecollection", "patch", "update"],
    ),
    _rule([""], ["pods/eviction"], ["create"]),
    _rule(
        [""],
        [
            "configmaps",
            "events",
            "persistentvolumeclaims",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "secrets",
            "serviceaccounts",
            "services",
            "services/proxy",
        ],
        _WRITE,
    ),
    _rule([""], ["serviceaccounts/token"], ["create"]),
    _rule(["apps"], _APPS_WRITABLE, _WRITE),
    _rule(["autoscaling"], ["horizontalpodautoscalers"], _WRITE),
    _rule(["batch"], ["cronjobs", "jobs"], _WRITE),
    _rule(["events.k8s.io"], ["events"], _WRITE),
    _rule(["networking.k8s.io"], ["ingresses", "networkpolicies"], _WRITE),
    _rule(["policy"], ["poddisruptionbudgets"], _WRITE),
    _rule(["coordination.k8s.io"], ["leases"], [*_READ, *_WRITE]),
]
_ADMIN_RULES = [
    _rule(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"]),
    _rule([_GROUP], ["rolebindings", "roles"], [*_READ, *_WRITE]),
]
_BASIC_USER_RULES = [
    _rule(
        ["authorization.k8s.io"],
        ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
        ["create"],
    ),
    _rule(["authentication.k8s.io"], ["selfsubjectreviews"], ["create"]),
]
_DISCOVERY_URLS = [
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/healthz",
    "/livez",
    "/openapi",
    "/openapi/*",
    "/readyz",
    "/version",
    "/version/",
]
_PUBLIC_URLS = ["/healthz", "/livez", "/readyz", "/version", "/version/"]
_ISSUER_URLS = [
    "/.well-known/openid-configuration",
    "/.well-known/openid-configuration/",
    "/openid/v1/jwks",
    "/openid/v1/jwks/",
]


def _cluster_role(
    name: str,
    rules: list[dict[str, Any]] | None = None,
    *,
    labels: dict[str, str] | None = None,
    aggregate_from: str = "",
) -> dict[str, Any]:
    meta = clone(_BOOTSTRAP_META)
    meta["name"] = name
    meta["labels"].update(labels or {})
    role: dict[str, Any] = {"apiVersion": f"{_GROUP}/v1", "kind": "ClusterRole", "metadata": meta}
    if aggregate_from:
        label = f"{_GROUP}/aggregate-to-{aggregate_from}"
        role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {label: "true"}}]}
    role["rules"] = rules or []
    return role


def _binding(name: str, role: str, groups: list[str]) -> dict[str, Any]:
    meta = clone(_BOOTSTRAP_META)
    meta["name"] = name
    return {
        "apiVersion": f"{_GROUP}/v1",
        "kind": "ClusterRoleBinding",
        "metadata": meta,
        "roleRef": {"apiGroup": _GROUP, "kind": "ClusterRole", "name": role},
        "subjects": [{"apiGroup": _GROUP, "kind": "Group", "name": g} for g in groups],
    }


def bootstrap_policy() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(cluster roles, cluster role bindings)`` of a fresh cluster."""
    every = [_rule(["*"], ["*"], ["*"]), _urls(["*"], ["*"])]
    to = f"{_GROUP}/aggregate-to-"
    roles = [
        _cluster_role("cluster-admin", every),
        _cluster_role("admin", aggregate_from="admin"),
        _cluster_role("edit", labels={to + "admin": "true"}, aggregate_from="edit"),
        _cluster_role(
            "view", labels={to + "edit": "true", to + "admin": "true"}, aggregate_from="view"
        ),
        _cluster_role("system:aggregate-to-admin", _ADMIN_RULES, labels={to + "admin": "true"}),
        _cluster_role("system:aggregate-to-edit", _EDIT_RULES, labels={to + "edit": "true"}),
        _cluster_role("system:aggregate-to-view", _VIEW_RULES, labels={to + "view": "true"}),
        _cluster_role("system:discovery", [_urls(_DISCOVERY_URLS, ["get"])]),
        _cluster_role("system:basic-user", _BASIC_USER_RULES),
        _cluster_role("system:public-info-viewer", [_urls(_PUBLIC_URLS, ["get"])]),
        _cluster_role("system:service-account-issuer-discovery", [_urls(_ISSUER_URLS, ["get"])]),
    ]
    bindings = [
        _binding("cluster-admin", "cluster-admin", ["system:masters"]),
        _binding("system:discovery", "system:discovery", ["system:authenticated"]),
        _binding("system:basic-user", "system:basic-user", ["system:authenticated"]),
        _binding(
            "system:public-info-viewer",
            "system:public-info-viewer",
            ["system:authenticated", "system:unauthenticated"],
        ),
        # Service accounts only: an OIDC consumer outside the cluster needs an admin to
        # bind the role to system:unauthenticated, as on a real cluster.
        _binding(
            "system:service-account-issuer-discovery",
            "system:service-account-issuer-discovery",
            ["system:serviceaccounts"],
        ),
    ]
    return roles, bindings


def install_bootstrap_policy(engine: Engine, registry: Registry) -> None:
    """Create the default roles and bindings that are missing (user edits are kept)."""
    roles, bindings = bootstrap_policy()
    for plural, objects in (("clusterroles", roles), ("clusterrolebindings", bindings)):
        served = registry.lookup(_GROUP, "v1", plural)
        assert served is not None  # built-in
        for obj in objects:
            if engine.storage.get((_GROUP, plural), "", obj["metadata"]["name"]) is None:
                engine.create(served, "", obj)
