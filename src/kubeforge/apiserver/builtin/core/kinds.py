"""The core group's kinds (``/api/v1``), each with its facts for discovery and its rules.

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.core.objects import (
    ConfigMapStrategy,
    EndpointsStrategy,
    EventStrategy,
    NamespaceStrategy,
    NodeStrategy,
    SecretStrategy,
    ServiceAccountStrategy,
)
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy, ServiceStrategy
from kubeforge.apiserver.builtin.core.volumes_quotas import (
    LimitRangeStrategy,
    PersistentVolumeClaimStrategy,
    PersistentVolumeStrategy,
    PodTemplateStrategy,
    ReplicationControllerStrategy,
    ResourceQuotaStrategy,
)
from kubeforge.apiserver.builtin.kind import STATUS, Kind

__all__ = ["KINDS"]

# Namespaces cannot be deleted as a collection on a real server; keep the verb set honest.
_NS_VERBS = ("create", "delete", "get", "list", "patch", "update", "watch")

KINDS = (
    Kind("", "v1", "ConfigMap", "configmaps", short=("cm",), strategy=ConfigMapStrategy),
    Kind("", "v1", "Event", "events", short=("ev",), strategy=EventStrategy),
    Kind(
        "",
        "v1",
        "Namespace",
        "namespaces",
        namespaced=False,
        short=("ns",),
        subresources=STATUS,
        verbs=_NS_VERBS,
        strategy=NamespaceStrategy,
    ),
    Kind(
        "",
        "v1",
        "Node",
        "nodes",
        namespaced=False,
        short=("no",),
        subresources=STATUS,
        strategy=NodeStrategy,
    ),
    Kind(
        "",
        "v1",
        "Pod",
        "pods",
        short=("po",),
        subresources=("status", "eviction", "ephemeralcontainers"),
        categories=("all",),
        strategy=PodStrategy,
    ),
    Kind("", "v1", "Secret", "secrets", strategy=SecretStrategy),
    Kind(
        "",
        "v1",
        "Service",
        "services",
        short=("svc",),
        subresources=STATUS,
        categories=("all",),
        strategy=ServiceStrategy,
    ),
    Kind(
        "",
        "v1",
        "ServiceAccount",
        "serviceaccounts",
        short=("sa",),
        subresources=("token",),
        strategy=ServiceAccountStrategy,
    ),
    Kind("", "v1", "Endpoints", "endpoints", short=("ep",), strategy=EndpointsStrategy),
    Kind("", "v1", "LimitRange", "limitranges", short=("limits",), strategy=LimitRangeStrategy),
    Kind(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        short=("pvc",),
        subresources=STATUS,
        strategy=PersistentVolumeClaimStrategy,
    ),
    Kind(
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        namespaced=False,
        short=("pv",),
        subresources=STATUS,
        strategy=PersistentVolumeStrategy,
    ),
    Kind("", "v1", "PodTemplate", "podtemplates", strategy=PodTemplateStrategy),
    Kind(
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        short=("rc",),
        subresources=("status", "scale"),
        categories=("all",),
        strategy=ReplicationControllerStrategy,
    ),
    Kind(
        "",
        "v1",
        "ResourceQuota",
        "resourcequotas",
        short=("quota",),
        subresources=STATUS,
        strategy=ResourceQuotaStrategy,
    ),
)
"""The core/v1 kinds, in the order discovery lists them."""
