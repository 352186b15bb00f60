"""The rest of Kubernetes 1.32's GA built-in resources, as plain facts.

Each ``Entry`` records what kube-apiserver 1.32 advertises for one resource: where it
lives (group/version/plural), its kind, whether it is namespaced, its short names,
subresources and categories. ``registry`` turns these into ``ServedResource``s; the
rules each kind follows (defaults, validation) are in ``builtins_batch`` and
``builtins_more``. Alpha and beta-only APIs are left out, as a default 1.32 server
leaves them off; so are ``componentstatuses`` (a read-only probe of control-plane
components this server does not have) and ``bindings`` (a pod subresource in disguise).

Entry point: ``MORE_RESOURCES``.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MORE_RESOURCES", "Entry"]


class Entry(NamedTuple):
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool = True
    short: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    storage: bool = True


_STATUS = ("status",)
_ALL = ("all",)
_EXTENSIONS = ("api-extensions",)

MORE_RESOURCES: tuple[Entry, ...] = (
    # core/v1
    Entry("", "v1", "LimitRange", "limitranges", short=("limits",)),
    Entry(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        short=("pvc",),
        subresources=_STATUS,
    ),
    Entry(
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        namespaced=False,
        short=("pv",),
        subresources=_STATUS,
    ),
    Entry("", "v1", "PodTemplate", "podtemplates"),
    Entry(
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        short=("rc",),
        subresources=("status", "scale"),
        categories=_ALL,
    ),
    Entry("", "v1", "ResourceQuota", "resourcequotas", short=("quota",), subresources=_STATUS),
    # admissionregistration.k8s.io/v1 (the webhook configurations are in registry)
    Entry(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
        namespaced=False,
        subresources=_STATUS,
        categories=_EXTENSIONS,
    ),
    Entry(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
        namespaced=False,
        categories=_EXTENSIONS,
    ),
    Entry(
        "apiregistration.k8s.io",
        "v1",
        "APIService",
        "apiservices",
        namespaced=False,
        subresources=_STATUS,
        categories=_EXTENSIONS,
    ),
    Entry("apps", "v1", "ControllerRevision", "controllerrevisions"),
    # autoscaling: v2 is stored; v1 is the same objects converted (builtins_autoscaling)
    Entry(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        short=("hpa",),
        subresources=_STATUS,
        categories=_ALL,
    ),
    Entry(
        "autoscaling",
        "v1",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        short=("hpa",),
        subresources=_STATUS,
        categories=_ALL,
        storage=False,
    ),
    Entry(
        "batch", "v1", "CronJob", "cronjobs", short=("cj",), subresources=_STATUS, categories=_ALL
    ),
    Entry("batch", "v1", "Job", "jobs", subresources=_STATUS, categories=_ALL),
    Entry(
        "certificates.k8s.io",
        "v1",
        "CertificateSigningRequest",
        "certificatesigningrequests",
        namespaced=False,
        short=("csr",),
        subresources=("approval", "status"),
    ),
    Entry("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices"),
    Entry(
        "flowcontrol.apiserver.k8s.io",
        "v1",
        "FlowSchema",
        "flowschemas",
        namespaced=False,
        subresources=_STATUS,
    ),
    Entry(
        "flowcontrol.apiserver.k8s.io",
        "v1",
        "PriorityLevelConfiguration",
        "prioritylevelconfigurations",
        namespaced=False,
        subresources=_STATUS,
    ),
    Entry("networking.k8s.io", "v1", "IngressClass", "ingressclasses", namespaced=False),
    Entry("networking.k8s.io", "v1", "Ingress", "ingresses", short=("ing",), subresources=_STATUS),
    Entry("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", short=("netpol",)),
    Entry("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", namespaced=False),
    Entry(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        short=("pdb",),
        subresources=_STATUS,
    ),
    Entry(
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        namespaced=False,
        short=("pc",),
    ),
    Entry("storage.k8s.io", "v1", "CSIDriver", "csidrivers", namespaced=False),
    Entry("storage.k8s.io", "v1", "CSINode", "csinodes", namespaced=False),
    Entry("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities"),
    Entry(
        "storage.k8s.io", "v1", "StorageClass", "storageclasses", namespaced=False, short=("sc",)
    ),
    Entry(
        "storage.k8s.io",
        "v1",
        "VolumeAttachment",
        "volumeattachments",
        namespaced=False,
        subresources=_STATUS,
    ),
)
