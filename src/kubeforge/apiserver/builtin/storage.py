"""storage.k8s.io: StorageClasses, VolumeAttachments and the CSI objects.

Entry point: ``KINDS``; the rules are ``StorageClassStrategy`` and
``VolumeAttachmentStrategy`` (the CSI objects follow the generic ones).
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError

__all__ = ["KINDS"]


class StorageClassStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("reclaimPolicy", "Delete")
        obj.setdefault("volumeBindingMode", "Immediate")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        if not obj.get("provisioner"):
            return [FieldError("Required", "provisioner")]
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        for key in ("parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"):
            if new.get(key) != old.get(key):
                errors.append(FieldError("Forbidden", key, "updates to " + key + " are forbidden."))
        return errors


class VolumeAttachmentStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"attached": False}


_GROUP = "storage.k8s.io"

KINDS = (
    Kind(_GROUP, "v1", "CSIDriver", "csidrivers", namespaced=False),
    Kind(_GROUP, "v1", "CSINode", "csinodes", namespaced=False),
    Kind(_GROUP, "v1", "CSIStorageCapacity", "csistoragecapacities"),
    Kind(
        _GROUP,
        "v1",
        "StorageClass",
        "storageclasses",
        namespaced=False,
        short=("sc",),
        strategy=StorageClassStrategy,
    ),
    Kind(
        _GROUP,
        "v1",
        "VolumeAttachment",
        "volumeattachments",
        namespaced=False,
        subresources=STATUS,
        strategy=VolumeAttachmentStrategy,
    ),
)
