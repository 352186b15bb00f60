"""NamespaceLifecycle: nothing is created in a namespace that is missing or being deleted.

The real server runs this as an admission plugin (``plugin/namespace/lifecycle``); the
store applies it to every create of a namespaced object, the control plane's included,
with the plugin's 404 and 403 ``NamespaceTerminating`` answers.

Entry point: ``check_namespace_open(storage, namespace, info, name)``.
"""

from __future__ import annotations

from kubeforge.apiserver import failures
from kubeforge.apiserver.storage.sqlite import Storage
from kubeforge.core.resource import ResourceInfo

__all__ = ["check_namespace_open"]

_NAMESPACES = ResourceInfo("", "v1", "Namespace", "namespaces", namespaced=False)


def check_namespace_open(storage: Storage, namespace: str, info: ResourceInfo, name: str) -> None:
    """Raise 404 when ``namespace`` does not exist, 403 when it is terminating."""
    ns = storage.get(("", "namespaces"), "", namespace)
    if ns is None:
        raise failures.not_found(_NAMESPACES, namespace)
    if (ns.get("metadata") or {}).get("deletionTimestamp"):
        message = (
            f"unable to create new content in namespace {namespace} because it is being terminated"
        )
        raise failures.forbidden(
            info,
            name,
            message,
            causes=[
                {
                    "reason": "NamespaceTerminating",
                    "message": message,
                    "field": "metadata.namespace",
                }
            ],
        )
