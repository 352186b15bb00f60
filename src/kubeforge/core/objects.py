"""Read metadata from any object, typed (``Resource``) or dynamic (a plain ``dict``).

The cache, the workqueue handlers and the controller runtime accept both faces;
these accessors are the one place that knows how to look inside each.
"""

from __future__ import annotations

import sys
from typing import Any, TypeAlias

from kubeforge.core.meta import OwnerReference, convert
from kubeforge.core.refs import ObjectKey
from kubeforge.core.resource import Resource

__all__ = [
    "KubeObject",
    "annotations_of",
    "deletion_timestamp_of",
    "finalizers_of",
    "generation_of",
    "key_of",
    "labels_of",
    "name_of",
    "namespace_of",
    "owner_references_of",
    "resource_version_of",
    "uid_of",
]

KubeObject: TypeAlias = Resource | dict[str, Any]


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def name_of(obj: KubeObject) -> str:
    if isinstance(obj, Resource):
        return obj.metadata.name or ""
    return str(_meta(obj).get("name") or "")


def namespace_of(obj: KubeObject) -> str:
    if isinstance(obj, Resource):
        return obj.metadata.namespace or ""
    return str(_meta(obj).get("namespace") or "")


def key_of(obj: KubeObject) -> ObjectKey:
    # Interned: every key of a namespace shares one string (a cache keeps 100,000s of keys).
    return ObjectKey(sys.intern(namespace_of(obj)), name_of(obj))


def uid_of(obj: KubeObject) -> str:
    if isinstance(obj, Resource):
        return obj.metadata.uid or ""
    return str(_meta(obj).get("uid") or "")


def resource_version_of(obj: KubeObject) -> str:
    if isinstance(obj, Resource):
        return obj.metadata.resource_version or ""
    return str(_meta(obj).get("resourceVersion") or "")


def generation_of(obj: KubeObject) -> int | None:
    if isinstance(obj, Resource):
        return obj.metadata.generation
    value = _meta(obj).get("generation")
    return int(value) if isinstance(value, int) else None


def labels_of(obj: KubeObject) -> dict[str, str]:
    if isinstance(obj, Resource):
        return obj.metadata.labels or {}
    return dict(_meta(obj).get("labels") or {})


def annotations_of(obj: KubeObject) -> dict[str, str]:
    if isinstance(obj, Resource):
        return obj.metadata.annotations or {}
    return dict(_meta(obj).get("annotations") or {})


def finalizers_of(obj: KubeObject) -> list[str]:
    if isinstance(obj, Resource):
        return list(obj.metadata.finalizers or [])
    return list(_meta(obj).get("finalizers") or [])


def deletion_timestamp_of(obj: KubeObject) -> str | None:
    if isinstance(obj, Resource):
        return obj.metadata.deletion_timestamp
    value = _meta(obj).get("deletionTimestamp")
    return str(value) if value else None


def owner_references_of(obj: KubeObject) -> list[OwnerReference]:
    if isinstance(obj, Resource):
        return list(obj.metadata.owner_references or [])
    refs = _meta(obj).get("ownerReferences") or []
    # convert() keeps keys OwnerReference does not declare (a newer server's fields).
    return [convert(ref, OwnerReference) for ref in refs]
