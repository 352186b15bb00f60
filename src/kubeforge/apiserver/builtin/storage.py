"""storage.k8s.io: StorageClasses, VolumeAttachments and the CSI objects.

Entry point: ``KINDS``; the rules are ``StorageClassStrategy`` and
``VolumeAttachmentStrategy`` (the CSI objects follow the generic ones).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, dict_at, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns

__all__ = ["KINDS"]


class StorageClassStrategy(CatalogStrategy):
    return_deleted_object = True  # the real store's ReturnDeletedObject: a delete answers the class

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


def _storage_class_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    name = name_of(obj)
    annotations = dict_at(obj, "metadata", "annotations")
    default_keys = (
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    )
    if any(annotations.get(k) == "true" for k in default_keys):
        name += " (default)"
    expansion = obj.get("allowVolumeExpansion")
    return [
        name,
        str(obj.get("provisioner") or ""),
        str(obj.get("reclaimPolicy") or "Delete"),
        str(obj.get("volumeBindingMode") or "Immediate"),
        "true" if expansion is True else "false",
        created(obj, now),
    ]


_STORAGE_CLASS_PRINTER = Printer(
    (
        *simple_columns(
            ("Provisioner", "string", "The volume plugin provisioning volumes."),
            ("ReclaimPolicy", "string", "What happens to released volumes."),
            ("VolumeBindingMode", "string", "When volumes are bound."),
            ("AllowVolumeExpansion", "string", "Whether volumes may grow."),
        ),
        AGE_COLUMN,
    ),
    _storage_class_row,
)

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
        printer=_STORAGE_CLASS_PRINTER,
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
