"""The core group's kinds (``/api/v1``), each with its facts for discovery, its rules and
its ``kubectl get`` columns.

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.core import columns
from kubeforge.apiserver.builtin.core.endpoints import EndpointsStrategy
from kubeforge.apiserver.builtin.core.objects import (
    ConfigMapStrategy,
    EventStrategy,
    NamespaceStrategy,
    NodeStrategy,
    SecretStrategy,
    ServiceAccountStrategy,
)
from kubeforge.apiserver.builtin.core.pod_columns import POD
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.core.services import ServiceStrategy
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
    Kind(
        "",
        "v1",
        "ConfigMap",
        "configmaps",
        short=("cm",),
        strategy=ConfigMapStrategy,
        printer=columns.CONFIG_MAP,
    ),
    Kind(
        "",
        "v1",
        "Event",
        "events",
        short=("ev",),
        strategy=EventStrategy,
        printer=columns.EVENT,
    ),
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
        printer=columns.NAMESPACE,
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
        printer=columns.NODE,
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
        printer=POD,
    ),
    Kind(
        "",
        "v1",
        "Secret",
        "secrets",
        strategy=SecretStrategy,
        printer=columns.SECRET,
    ),
    Kind(
        "",
        "v1",
        "Service",
        "services",
        short=("svc",),
        subresources=STATUS,
        categories=("all",),
        strategy=ServiceStrategy,
        printer=columns.SERVICE,
    ),
    Kind(
        "",
        "v1",
        "ServiceAccount",
        "serviceaccounts",
        short=("sa",),
        subresources=("token",),
        strategy=ServiceAccountStrategy,
        printer=columns.SERVICE_ACCOUNT,
    ),
    Kind(
        "",
        "v1",
        "Endpoints",
        "endpoints",
        short=("ep",),
        strategy=EndpointsStrategy,
        printer=columns.ENDPOINTS,
    ),
    Kind("", "v1", "LimitRange", "limitranges", short=("limits",), strategy=LimitRangeStrategy),
    Kind(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        short=("pvc",),
        subresources=STATUS,
        strategy=PersistentVolumeClaimStrategy,
        printer=columns.PERSISTENT_VOLUME_CLAIM,
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
        printer=columns.PERSISTENT_VOLUME,
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
        printer=columns.REPLICATION_CONTROLLER,
    ),
    Kind(
        "",
        "v1",
        "ResourceQuota",
        "resourcequotas",
        short=("quota",),
        subresources=STATUS,
        strategy=ResourceQuotaStrategy,
        printer=columns.RESOURCE_QUOTA,
    ),
)
"""The core/v1 kinds, in the order discovery lists them."""
