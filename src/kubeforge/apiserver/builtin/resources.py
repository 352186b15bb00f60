"""The built-in resources the server serves from its start, as discovery lists them.

Entry point: ``BUILTIN_RESOURCES``, handed to ``registry.served.Registry`` when the server
is assembled (the generic store knows no kind by itself). The kinds with bespoke columns
or rules are listed here; every other GA kind of Kubernetes 1.32 comes from ``catalog``.
A resource whose objects are stored as another's carries its ``Representation``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.autoscaling import AUTOSCALING_REPRESENTATIONS
from kubeforge.apiserver.builtin.catalog import MORE_RESOURCES, Entry
from kubeforge.apiserver.builtin.core import REPRESENTATIONS
from kubeforge.apiserver.registry.served import ALL_VERBS, Representation, ServedResource
from kubeforge.core.resource import ResourceInfo

__all__ = ["BUILTIN_RESOURCES"]

_REPRESENTATIONS: dict[tuple[str, str, str], Representation] = {
    **REPRESENTATIONS,
    **AUTOSCALING_REPRESENTATIONS,
}


def _builtin(
    group: str,
    kind: str,
    plural: str,
    *,
    namespaced: bool = True,
    short: tuple[str, ...] = (),
    subresources: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
    verbs: tuple[str, ...] = ALL_VERBS,
    storage: bool = True,
    version: str = "v1",
) -> ServedResource:
    info = ResourceInfo(
        group=group,
        version=version,
        kind=kind,
        plural=plural,
        namespaced=namespaced,
        short_names=short,
        singular=kind.lower(),
    )
    return ServedResource(
        info=info,
        verbs=verbs,
        subresources=subresources,
        categories=categories,
        storage=storage,
        representation=_REPRESENTATIONS.get((group, version, plural)),
    )


# Namespaces cannot be deleted as a collection on a real server; keep the verb set honest.
_NS_VERBS = ("create", "delete", "get", "list", "patch", "update", "watch")
# Reviews and token requests are answered, never stored: POST is all they take.
_CREATE_ONLY = ("create",)
_WORKLOAD = ("status", "scale")
_ADMISSION = "admissionregistration.k8s.io"


def _apps(kind: str, plural: str, short: str, subresources: tuple[str, ...]) -> ServedResource:
    return _builtin(
        "apps", kind, plural, short=(short,), subresources=subresources, categories=("all",)
    )


def _review(group: str, kind: str, *, namespaced: bool = False) -> ServedResource:
    plural = kind.lower() + "s"
    return _builtin(group, kind, plural, namespaced=namespaced, verbs=_CREATE_ONLY, storage=False)


def _catalogued(entry: Entry) -> ServedResource:
    return _builtin(
        entry.group,
        entry.kind,
        entry.plural,
        namespaced=entry.namespaced,
        short=entry.short,
        subresources=entry.subresources,
        categories=entry.categories,
        storage=entry.storage,
        version=entry.version,
    )


_MORE_CORE = tuple(_catalogued(e) for e in MORE_RESOURCES if not e.group)
_MORE_GROUPS = tuple(_catalogued(e) for e in MORE_RESOURCES if e.group)

BUILTIN_RESOURCES: tuple[ServedResource, ...] = (
    _builtin("", "ConfigMap", "configmaps", short=("cm",)),
    _builtin("", "Event", "events", short=("ev",)),
    _builtin(
        "",
        "Namespace",
        "namespaces",
        namespaced=False,
        short=("ns",),
        subresources=("status",),
        verbs=_NS_VERBS,
    ),
    _builtin("", "Node", "nodes", namespaced=False, short=("no",), subresources=("status",)),
    _builtin("", "Pod", "pods", short=("po",), subresources=("status",), categories=("all",)),
    _builtin("", "Secret", "secrets"),
    _builtin(
        "",
        "Service",
        "services",
        short=("svc",),
        subresources=("status",),
        categories=("all",),
    ),
    _builtin("", "ServiceAccount", "serviceaccounts", short=("sa",), subresources=("token",)),
    _builtin("", "Endpoints", "endpoints", short=("ep",)),
    *_MORE_CORE,
    _apps("Deployment", "deployments", "deploy", _WORKLOAD),
    _apps("ReplicaSet", "replicasets", "rs", _WORKLOAD),
    _apps("StatefulSet", "statefulsets", "sts", _WORKLOAD),
    _apps("DaemonSet", "daemonsets", "ds", ("status",)),
    # Stored as core/v1 Events (see ``core``), so not a storage resource of its own.
    _builtin("events.k8s.io", "Event", "events", short=("ev",), storage=False),
    _review("authentication.k8s.io", "TokenReview"),
    _review("authentication.k8s.io", "SelfSubjectReview"),
    _review("authorization.k8s.io", "LocalSubjectAccessReview", namespaced=True),
    _review("authorization.k8s.io", "SelfSubjectAccessReview"),
    _review("authorization.k8s.io", "SelfSubjectRulesReview"),
    _review("authorization.k8s.io", "SubjectAccessReview"),
    _builtin(
        "rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", namespaced=False
    ),
    _builtin("rbac.authorization.k8s.io", "ClusterRole", "clusterroles", namespaced=False),
    _builtin("rbac.authorization.k8s.io", "RoleBinding", "rolebindings"),
    _builtin("rbac.authorization.k8s.io", "Role", "roles"),
    _builtin(
        _ADMISSION,
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        namespaced=False,
        categories=("api-extensions",),
    ),
    _builtin(
        _ADMISSION,
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        namespaced=False,
        categories=("api-extensions",),
    ),
    _builtin("coordination.k8s.io", "Lease", "leases"),
    _builtin(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        namespaced=False,
        short=("crd", "crds"),
        subresources=("status",),
        categories=("api-extensions",),
    ),
    # Every other GA kind of Kubernetes 1.32 (see ``catalog``).
    *_MORE_GROUPS,
)
