"""What the local API server serves right now: the built-in kinds plus every established CRD.

``Registry`` is the one source of truth shared by the REST handlers (which look a
URL up here), discovery and OpenAPI (which list everything) and Table output (which
reads printer columns). CRD create/delete calls ``add_crd``/``remove_crd`` so a
custom resource is served, and advertised, the moment its CRD exists.

Entry point: ``Registry()`` (built-ins only), then ``lookup(group, version, plural)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.builtin.catalog import MORE_RESOURCES, Entry
from kubeforge.core.resource import ResourceInfo

__all__ = ["ALL_VERBS", "BUILTIN_RESOURCES", "Registry", "ServedResource"]

ALL_VERBS: tuple[str, ...] = (
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
)


@dataclass(frozen=True)
class ServedResource:
    """One resource at one group/version, as discovery and the handlers see it."""

    info: ResourceInfo
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    schema: dict[str, Any] | None = None
    printer_columns: tuple[dict[str, Any], ...] = ()
    # Extra knowledge the REST layer needs; discovery may ignore these.
    storage: bool = True
    builtin: bool = True
    crd_name: str = ""
    # A CRD version marked deprecated: every response carries this as a Warning header.
    deprecation_warning: str | None = None


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
    # Stored as core/v1 Events (see builtins_core), so not a storage resource of its own.
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
    # Every other GA kind of Kubernetes 1.32 (see builtins_catalog).
    *_MORE_GROUPS,
)


class Registry:
    """The mutable set of served resources (built-ins first, then CRDs in creation order)."""

    def __init__(self) -> None:
        self._builtins: list[ServedResource] = list(BUILTIN_RESOURCES)
        # crd name -> its served resources, one per served version (priority order)
        self._crds: dict[str, list[ServedResource]] = {}

    def resources(self) -> list[ServedResource]:
        """Everything served now, in a stable order: core group first, then by group."""
        return [*self._builtins, *(r for served in self._crds.values() for r in served)]

    def lookup(self, group: str, version: str, plural: str) -> ServedResource | None:
        for served in self.resources():
            info = served.info
            if info.group == group and info.version == version and info.plural == plural:
                return served
        return None

    def storage_version_of(self, group: str, plural: str) -> ServedResource | None:
        """The version objects of ``plural.group`` are stored at (CRDs may serve several)."""
        for served in self.resources():
            if served.info.group == group and served.info.plural == plural and served.storage:
                return served
        return None

    def group_versions(self) -> list[tuple[str, list[str]]]:
        """``[(group, [versions, highest priority first])]``; the core group is ``""``."""
        order: dict[str, list[str]] = {}
        for served in self.resources():
            versions = order.setdefault(served.info.group, [])
            if served.info.version not in versions:
                versions.append(served.info.version)
        return [(group, _by_priority(versions)) for group, versions in order.items()]

    def add_crd(self, name: str, served: list[ServedResource]) -> None:
        """Serve (or re-serve, after an update) every version of one CRD."""
        self._crds[name] = list(served)

    def remove_crd(self, name: str) -> None:
        self._crds.pop(name, None)


def deprecation_warning(
    group: str, kind: str, version: dict[str, Any], versions: list[dict[str, Any]]
) -> str | None:
    """The Warning a deprecated CRD version's responses carry (``None`` if not deprecated):
    its ``deprecationWarning``, or the default that names the newest served version of
    equal or greater stability, as the real server words it."""
    if not version.get("deprecated"):
        return None
    if version.get("deprecationWarning"):
        return str(version["deprecationWarning"])
    name = str(version.get("name"))
    warning = f"{group}/{name} {kind} is deprecated"
    stage = _version_key(name)[0]
    candidates = [
        str(v.get("name"))
        for v in versions
        if v.get("served") and not v.get("deprecated") and v.get("name") != name
    ]
    better = [v for v in _by_priority(candidates) if _version_key(v)[0] <= stage]
    return f"{warning}; use {group}/{better[0]} {kind}" if better else warning


def _by_priority(versions: list[str]) -> list[str]:
    """Kubernetes version priority: GA > beta > alpha, higher numbers first, others last."""
    return sorted(versions, key=_version_key)


def _version_key(version: str) -> tuple[int, int, int, str]:
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not match:
        return (3, 0, 0, version)
    major = int(match.group(1))
    stage = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    minor = int(match.group(3) or 0)
    return (stage, -major, -minor, version)
