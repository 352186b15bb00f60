"""PersistentVolumes as 1.32 validates them (``ValidatePersistentVolumeSpec``, ``...Update``)
and as its strategy keeps their status (``lastPhaseTransitionTime`` stamped when the phase
moves, PersistentVolumeLastPhaseTransitionTime being GA) and warns of them
(``GetWarningsForPersistentVolume``).

Of the volume sources, exactly one must be set; the inner rules of the sources a cluster
without cloud plugins can use are checked (hostPath, local, nfs, csi and the other
in-tree sources' required names).

Entry points: ``volume_errors``, ``volume_update_errors``, ``stamp_phase``,
``volume_warnings``.
"""

from __future__ import annotations

import posixpath
from typing import Any

from kubeforge.apiserver.builtin.core.volume_rules import (
    VOLUME_MODES,
    access_mode_errors,
    basic_quantity_errors,
    beta_class_warnings,
    class_name_errors,
    immutable_volume_mode,
    positive_quantity_errors,
    spec_diff,
)
from kubeforge.apiserver.builtin.podspec.affinity import node_selector
from kubeforge.apiserver.builtin.podspec.resources import go_quantity
from kubeforge.apiserver.builtin.podspec.warnings import node_term_warnings
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import dns1123_subdomain

__all__ = [
    "csi_driver_name_errors",
    "stamp_phase",
    "volume_errors",
    "volume_update_errors",
    "volume_warnings",
]

# The sources in Go's order, with the path Go reports a source's own errors under
# (two differ from the JSON name) and the fields each requires.
_SOURCES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("hostPath", "hostPath", ("path",)),
    ("gcePersistentDisk", "persistentDisk", ("pdName",)),
    ("awsElasticBlockStore", "awsElasticBlockStore", ("volumeID",)),
    ("glusterfs", "glusterfs", ("endpoints", "path")),
    ("flocker", "flocker", ()),
    ("nfs", "nfs", ("server", "path")),
    ("rbd", "rbd", ("monitors", "image")),
    ("quobyte", "quobyte", ()),
    ("cephfs", "cephfs", ("monitors",)),
    ("iscsi", "iscsi", ()),
    ("cinder", "cinder", ("volumeID",)),
    ("fc", "fc", ()),
    ("flexVolume", "flexVolume", ("driver",)),
    ("azureFile", "azureFile", ("secretName", "shareName")),
    ("vsphereVolume", "vsphereVolume", ("volumePath",)),
    ("photonPersistentDisk", "photonPersistentDisk", ("pdID",)),
    ("portworxVolume", "portworxVolume", ("volumeID",)),
    ("azureDisk", "azureDisk", ("diskName", "diskURI")),
    ("scaleIO", "scaleIO", ("gateway", "system", "volumeName")),
    ("local", "local", ("path",)),
    ("storageos", "storageos", ("volumeName",)),
    ("csi", "csi", ()),
)
_HOST_PATH_TYPES = (
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
)
_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
_DEPRECATED = (
    ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("storageos", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _no_backsteps(value: str, path: str) -> list[FieldError]:
    if ".." in value.replace("\\", "/").split("/"):
        return [FieldError.invalid(path, value, "must not contain '..'")]
    return []


def csi_driver_name_errors(driver: str, path: str) -> list[FieldError]:
    """``ValidateCSIDriverName``: given, at most 63 bytes, a DNS subdomain once lowercased."""
    errors = [] if driver else [FieldError.required(path)]
    if len(driver) > 63:
        errors.append(FieldError.too_long(path, "", 63))
    return errors + [FieldError.invalid(path, driver, m) for m in dns1123_subdomain(driver.lower())]


def _csi_errors(csi: dict[str, Any], path: str) -> list[FieldError]:
    errors = csi_driver_name_errors(str(csi.get("driver") or ""), f"{path}.driver")
    if not csi.get("volumeHandle"):
        errors.append(FieldError.required(f"{path}.volumeHandle"))
    return errors


def _source_errors(
    kind: str, source: dict[str, Any], path: str, required: tuple[str, ...]
) -> list[FieldError]:
    missing = [FieldError.required(f"{path}.{name}") for name in required if not source.get(name)]
    if kind in ("hostPath", "local"):
        value = str(source.get("path") or "")
        if not value:
            return missing
        errors = _no_backsteps(value, f"{path}.path")
        host_type = source.get("type")
        if kind == "hostPath" and host_type is not None and host_type not in _HOST_PATH_TYPES:
            errors.append(FieldError.not_supported(f"{path}.type", host_type, _HOST_PATH_TYPES))
        return errors
    if kind == "nfs" and not posixpath.isabs(str(source.get("path") or "")):
        missing.append(
            FieldError.invalid(
                f"{path}.path", str(source.get("path") or ""), "must be an absolute path"
            )
        )
    if kind == "csi":
        return _csi_errors(source, path)
    return missing


def _sources(spec: dict[str, Any], path: str, affinity_given: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    found = 0
    for kind, error_name, required in _SOURCES:
        source = spec.get(kind)
        if source is None:
            continue
        if found and kind != "flexVolume":  # Go counts flexVolume without the check
            errors.append(
                FieldError.forbidden(f"{path}.{kind}", "may not specify more than 1 volume type")
            )
            continue
        found += 1
        errors += _source_errors(kind, _dict(source), f"{path}.{error_name}", required)
        if kind == "local" and not affinity_given:
            errors.append(
                FieldError.required(f"{path}.nodeAffinity", "Local volume requires node affinity")
            )
    if not found:
        errors.append(FieldError.required(path, "must specify a volume type"))
    return errors


def _resource_list(capacity: Any) -> GoValue:
    if capacity is None:
        return GoValue("core.ResourceList(nil)")
    items = ", ".join(
        f"{GoValue.quote(k)}:{go_quantity(str(v))}" for k, v in sorted(_dict(capacity).items())
    )
    return GoValue(f"core.ResourceList{{{items}}}")


def _capacity(spec: dict[str, Any], path: str) -> list[FieldError]:
    capacity = spec.get("capacity")
    errors: list[FieldError] = []
    if not capacity:
        errors.append(FieldError.required(f"{path}.capacity"))
    if "storage" not in _dict(capacity) or len(_dict(capacity)) > 1:
        errors.append(
            FieldError.not_supported(f"{path}.capacity", _resource_list(capacity), ("storage",))
        )
    for name, amount in _dict(capacity).items():
        errors += basic_quantity_errors(amount, f"{path}.capacity[{name}]")
        errors += positive_quantity_errors(amount, f"{path}.capacity[{name}]")
    return errors


def volume_errors(volume: dict[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeSpec`` of a stored (not inline) volume."""
    spec, path = _dict(volume.get("spec")), "spec"
    modes = spec.get("accessModes")
    errors = [] if modes else [FieldError.required(f"{path}.accessModes")]
    errors += access_mode_errors(modes, f"{path}.accessModes")
    errors += _capacity(spec, path)
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy not in _RECLAIM_POLICIES:
        errors.append(
            FieldError.not_supported(
                f"{path}.persistentVolumeReclaimPolicy", policy, _RECLAIM_POLICIES
            )
        )
    affinity = spec.get("nodeAffinity")
    if isinstance(affinity, dict):
        required = affinity.get("required")
        if isinstance(required, dict):
            errors += node_selector(required, f"{path}.nodeAffinity.required")
        else:
            errors.append(
                FieldError.required(
                    f"{path}.nodeAffinity.required", "must specify required node constraints"
                )
            )
    errors += _sources(spec, path, isinstance(affinity, dict))
    host = spec.get("hostPath")
    if (
        isinstance(host, dict)
        and posixpath.normpath(str(host.get("path") or ".")) == "/"
        and policy == "Recycle"
    ):
        errors.append(
            FieldError.forbidden(
                f"{path}.persistentVolumeReclaimPolicy",
                "may not be 'recycle' for a hostPath mount of '/'",
            )
        )
    errors += class_name_errors(spec.get("storageClassName"), f"{path}.storageClassName")
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errors.append(FieldError.not_supported(f"{path}.volumeMode", mode, VOLUME_MODES))
    return errors


def _source_of(spec: dict[str, Any]) -> dict[str, Any]:
    return {kind: spec.get(kind) for kind, _, _ in _SOURCES if spec.get(kind) is not None}


def volume_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeUpdate``: the create rules, then the source (a CSI
    volume may gain a controllerExpandSecretRef), volume mode and node affinity fixed."""
    new_spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    errors = volume_errors(new)
    new_source = _source_of(new_spec)
    old_csi = _dict(old_spec.get("csi"))
    if "csi" in new_source and old_csi and "controllerExpandSecretRef" not in old_csi:
        new_source["csi"] = {
            k: v for k, v in _dict(new_source["csi"]).items() if k != "controllerExpandSecretRef"
        }
    diff = spec_diff(_source_of(old_spec), new_source)
    if diff is not None:
        detail = f"spec.persistentvolumesource is immutable after creation\n{diff}"
        errors.append(FieldError.forbidden("spec.persistentvolumesource", detail))
    errors += immutable_volume_mode(new_spec, old_spec)
    old_affinity = old_spec.get("nodeAffinity")
    if old_affinity is not None and new_spec.get("nodeAffinity") != old_affinity:
        shown = GoValue("core.VolumeNodeAffinity{Required:(*core.NodeSelector)(0xc000010000)}")
        if new_spec.get("nodeAffinity") is None:
            shown = GoValue("null")
        errors.append(FieldError.invalid("nodeAffinity", shown, "field is immutable"))
    return errors


def stamp_phase(new: dict[str, Any], old: dict[str, Any] | None, now: str) -> None:
    """Set ``status.lastPhaseTransitionTime`` as the 1.32 strategy does: now on create,
    now when the phase moved and the writer did not set a new time, kept otherwise."""
    status = new.setdefault("status", {})
    if old is None:
        status["lastPhaseTransitionTime"] = now
        return
    before = _dict(old.get("status"))
    given = status.get("lastPhaseTransitionTime")
    if before.get("phase") == status.get("phase"):
        if given is None and before.get("lastPhaseTransitionTime") is not None:
            status["lastPhaseTransitionTime"] = before["lastPhaseTransitionTime"]
    elif given is None or given == before.get("lastPhaseTransitionTime"):
        status["lastPhaseTransitionTime"] = now


def volume_warnings(volume: dict[str, Any]) -> list[str]:
    """``GetWarningsForPersistentVolume``."""
    spec = _dict(volume.get("spec"))
    warnings = beta_class_warnings(volume)
    if spec.get("persistentVolumeReclaimPolicy") == "Recycle":
        warnings.append(
            "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. "
            "Instead, the recommended approach is to use dynamic provisioning."
        )
    required = _dict(_dict(spec.get("nodeAffinity")).get("required"))
    terms = required.get("nodeSelectorTerms")
    for i, term in enumerate(terms if isinstance(terms, list) else ()):
        warnings += node_term_warnings(term, f"spec.nodeAffinity.required.nodeSelectorTerms[{i}]")
    for kind, message in _DEPRECATED:
        if spec.get(kind) is not None:
            warnings.append(f"spec.{kind}: {message}")
    return warnings
