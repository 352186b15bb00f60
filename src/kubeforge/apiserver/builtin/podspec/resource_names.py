"""What a resource name is, as kubernetes 1.32's ``pkg/apis/core/helper`` decides it:
standard, native, extended, hugepages, counted in whole numbers, overcommittable.

Container resources and ResourceQuotas both ask these questions; this module answers
them once.

>>> is_extended("example.com/gpu"), is_extended("kubernetes.io/foo"), is_extended("cpu")
(True, False, False)
>>> is_integer_resource("pods"), is_integer_resource("count/deployments.apps")
(True, True)
>>> overcommit_allowed("memory"), overcommit_allowed("hugepages-2Mi")
(True, False)
"""

from __future__ import annotations

from kubeforge.core.names import qualified_name

__all__ = [
    "QUOTA_RESOURCES",
    "is_extended",
    "is_hugepages",
    "is_integer_resource",
    "is_native",
    "is_standard_container_resource",
    "is_standard_resource",
    "overcommit_allowed",
]

# standardQuotaResources
QUOTA_RESOURCES = frozenset(
    {
        "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
        "requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
        "limits.ephemeral-storage", "pods", "resourcequotas", "services",
        "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps",
        "services.nodeports", "services.loadbalancers",
    }
)  # fmt: skip
_STANDARD = QUOTA_RESOURCES | {"storage"}
_INTEGER = frozenset(
    {
        "pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
        "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
    }
)  # fmt: skip
_CONTAINER = frozenset({"cpu", "memory", "ephemeral-storage"})
_REQUESTS = "requests."


def is_hugepages(name: str) -> bool:
    """``IsHugePageResourceName``: a container's ``hugepages-<size>``."""
    return name.startswith("hugepages-")


def _quota_hugepages(name: str) -> bool:
    return is_hugepages(name) or name.startswith(_REQUESTS + "hugepages-")


def is_standard_resource(name: str) -> bool:
    """``IsStandardResourceName``."""
    return name in _STANDARD or _quota_hugepages(name)


def is_standard_container_resource(name: str) -> bool:
    """``IsStandardContainerResourceName``."""
    return name in _CONTAINER or is_hugepages(name)


def is_native(name: str) -> bool:
    """``IsNativeResource``: unprefixed, or prefixed with ``kubernetes.io/``."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    """``IsExtendedResourceName``: prefixed outside kubernetes.io, and valid as a quota's
    ``requests.<name>``."""
    if is_native(name) or name.startswith(_REQUESTS):
        return False
    return not qualified_name(_REQUESTS + name)


def is_integer_resource(name: str) -> bool:
    """``IsIntegerResourceName``: object counts and extended resources."""
    return name in _INTEGER or is_extended(name)


def overcommit_allowed(name: str) -> bool:
    """``IsOvercommitAllowed``: requests may stay below limits (not so for extended
    resources and hugepages)."""
    return is_native(name) and not is_hugepages(name)
