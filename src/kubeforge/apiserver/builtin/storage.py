"""storage.k8s.io: StorageClasses, VolumeAttachments and the CSI objects.

Entry point: ``KINDS``; the strategies' rules are in ``storage_rules`` (CSINodes and
CSIStorageCapacities follow the generic ones).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.builtin.storage_rules import (
    csi_driver_errors,
    csi_driver_update_errors,
    default_csi_driver,
    storage_class_errors,
    storage_class_update_errors,
    storage_class_warnings,
    volume_attachment_errors,
    volume_attachment_update_errors,
)
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
        return storage_class_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return storage_class_errors(new) + storage_class_update_errors(new, old)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return storage_class_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return storage_class_warnings(new)


class CSIDriverStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        default_csi_driver(spec)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return csi_driver_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return csi_driver_update_errors(new, old)


class VolumeAttachmentStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"attached": False}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return volume_attachment_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return volume_attachment_update_errors(new, old)


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
    Kind(_GROUP, "v1", "CSIDriver", "csidrivers", namespaced=False, strategy=CSIDriverStrategy),
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
