"""A pod's ``volumes`` (``ValidateVolumes`` of kubernetes 1.32): each has a unique DNS
label name and exactly one volume type, and the common types name what they mount.

Entry point: ``pod_volumes(volumes, path)``, the errors and the names of the valid
volumes (a mount may refer only to those, as in the real server).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import dns1123_label

__all__ = ["VOLUME_SOURCES", "pod_volumes"]

VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret",
    "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder",
    "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume",
    "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO",
    "storageos", "csi", "ephemeral", "image",
)  # fmt: skip
_REQUIRED_NAME = {
    "hostPath": "path",
    "secret": "secretName",
    "configMap": "name",
    "persistentVolumeClaim": "claimName",
    "nfs": "server",
    "csi": "driver",
}


def _source(volume: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    found = 0
    for kind in VOLUME_SOURCES:
        source = volume.get(kind)
        if source is None:
            continue
        if found:
            errors.append(
                FieldError.forbidden(f"{path}.{kind}", "may not specify more than 1 volume type")
            )
            continue
        found += 1
        required = _REQUIRED_NAME.get(kind)
        if required and isinstance(source, dict) and not source.get(required):
            errors.append(FieldError.required(f"{path}.{kind}.{required}"))
    if not found:
        errors.append(FieldError.required(path, "must specify a volume type"))
    return errors


def pod_volumes(volumes: Any, path: str) -> tuple[list[FieldError], set[str]]:
    """The volumes' errors, and the names of those without any."""
    errors: list[FieldError] = []
    valid: set[str] = set()
    seen: set[str] = set()
    for i, volume in enumerate(volumes if isinstance(volumes, list) else ()):
        if not isinstance(volume, dict):
            continue
        at = f"{path}[{i}]"
        name = volume.get("name") or ""
        found = _source(volume, at)
        if not name:
            found.append(FieldError.required(f"{at}.name"))
        else:
            found += [FieldError.invalid(f"{at}.name", name, m) for m in dns1123_label(name)]
        if name in seen:
            found.append(FieldError.duplicate(f"{at}.name", name))
        seen.add(name)
        if found:
            errors += found
        else:
            valid.add(name)
    return errors, valid
