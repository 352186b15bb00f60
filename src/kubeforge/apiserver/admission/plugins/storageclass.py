"""``DefaultStorageClass`` (plugin/pkg/admission/storage/persistentvolume/storageclass/
setdefault, 1.32): a PersistentVolumeClaim created without ``storageClassName`` (and
without the beta annotation) gets the default class's name: the class annotated
``storageclass.kubernetes.io/is-default-class: "true"`` (or its beta twin), the newest
when there are several.

Entry point: ``DefaultStorageClassPlugin``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.admission.plugins.base import Plugin, is_create_of
from kubeforge.apiserver.registry.admit import Attempt

__all__ = ["DefaultStorageClassPlugin"]

_DEFAULT_KEYS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
_BETA_CLASS = "volume.beta.kubernetes.io/storage-class"


def _is_default(storage_class: dict[str, Any]) -> bool:
    annotations = (storage_class.get("metadata") or {}).get("annotations") or {}
    return any(annotations.get(key) == "true" for key in _DEFAULT_KEYS)


class DefaultStorageClassPlugin(Plugin):
    name = "DefaultStorageClass"
    resources = frozenset({("", "persistentvolumeclaims")})

    def mutate(self, attempt: Attempt) -> None:
        if not is_create_of(attempt, "", "persistentvolumeclaims"):
            return
        claim = attempt.obj
        spec = claim.get("spec")
        annotations = (claim.get("metadata") or {}).get("annotations") or {}
        if not isinstance(spec, dict) or "storageClassName" in spec or _BETA_CLASS in annotations:
            return
        defaults = [
            c for c in self.storage.objects(("storage.k8s.io", "storageclasses")) if _is_default(c)
        ]
        if not defaults:
            return
        # Newest first; on a tie the first name alphabetically (max keeps the first seen).
        by_name = sorted(defaults, key=lambda c: str(c["metadata"]["name"]))
        newest = max(by_name, key=lambda c: str(c["metadata"].get("creationTimestamp", "")))
        spec["storageClassName"] = newest["metadata"]["name"]
