"""The fields ObjectMeta has, and dropping the ones it does not.

Entry point: ``prune_metadata(obj)``, run on every write of every kind (built-in kinds
prune against their type table, custom resources against their schema; both start
here), returning the dropped paths for ``fieldValidation`` to warn about or refuse.

>>> obj = {"metadata": {"name": "web", "color": "blue"}}
>>> prune_metadata(obj), obj
(['metadata.color'], {'metadata': {'name': 'web'}})
"""

from __future__ import annotations

from typing import Any

__all__ = ["OBJECT_META_FIELDS", "prune_metadata"]

OBJECT_META_FIELDS = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    }
)


def prune_metadata(obj: dict[str, Any]) -> list[str]:
    """Drop ``metadata`` fields ObjectMeta does not have; returns their paths."""
    dropped: list[str] = []
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        for key in [k for k in meta if k not in OBJECT_META_FIELDS]:
            del meta[key]
            dropped.append(f"metadata.{key}")
    return dropped
