"""storage.k8s.io/v1 as 1.32 defaults, validates and warns of it (pkg/apis/storage):
StorageClasses (provisioner, parameters, reclaim policy, binding mode, allowed topologies;
all but the metadata fixed once created), CSIDrivers (their defaults, token requests,
lifecycle modes, the fields fixed once created) and VolumeAttachments (attacher, source,
node, status sizes; the spec fixed once created).

Entry points: the ``*_errors`` functions, ``default_csi_driver``, ``storage_class_warnings``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.core.persistent_volumes import csi_driver_name_errors
from kubeforge.apiserver.builtin.podspec.affinity import dict_items, label_name
from kubeforge.apiserver.builtin.podspec.warnings import deprecated_node_label
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import dns1123_subdomain, qualified_name

__all__ = [
    "csi_driver_errors",
    "csi_driver_update_errors",
    "default_csi_driver",
    "storage_class_errors",
    "storage_class_update_errors",
    "storage_class_warnings",
    "volume_attachment_errors",
    "volume_attachment_update_errors",
]

_RECLAIM = ("Delete", "Retain")
_BINDING = ("Immediate", "WaitForFirstConsumer")
_MAX_PARAMETERS = 512
_MAX_PARAMETER_BYTES = 256 * 1024
_FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")
_LIFECYCLE_MODES = ("Persistent", "Ephemeral")
_MAX_METADATA_BYTES = 256 * 1024
_MAX_ERROR_MESSAGE = 1024
_ONE_SOURCE = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _parameter_errors(params: dict[str, Any]) -> list[FieldError]:
    if len(params) > _MAX_PARAMETERS:
        return [FieldError.too_long("parameters", "", _MAX_PARAMETERS)]
    errors = [
        FieldError.invalid("parameters", "", "field can not be empty.") for k in params if not k
    ]
    if (
        sum(len(str(k).encode()) + len(str(v).encode()) for k, v in params.items())
        > _MAX_PARAMETER_BYTES
    ):
        errors.append(FieldError.too_long("parameters", "", _MAX_PARAMETER_BYTES))
    return errors


def _topology_errors(terms: Any) -> list[FieldError]:
    """``validateAllowedTopologies``: each term's keys once each, values given and unique,
    no term twice."""
    errors: list[FieldError] = []
    seen_terms: list[dict[str, set[str]]] = []
    for i, term in dict_items(terms):
        at = f"allowedTopologies[{i}].matchLabelExpressions"
        found: dict[str, set[str]] = {}
        for j, requirement in dict_items(term.get("matchLabelExpressions")):
            where = f"{at}[{j}]"
            values = requirement.get("values")
            values = values if isinstance(values, list) else []
            if not values:
                errors.append(FieldError.required(f"{where}.values"))
            distinct: set[str] = set()
            for k, value in enumerate(values):
                if value in distinct:
                    errors.append(FieldError.duplicate(f"{where}.values[{k}]", value))
                distinct.add(value)
            key = str(requirement.get("key") or "")
            errors += label_name(key, f"{where}.key")
            if key in found:
                errors.append(FieldError.duplicate(f"{where}.key", key))
            found[key] = distinct
        if found and found in seen_terms:
            errors.append(FieldError.duplicate(at, ""))
        seen_terms.append(found)
    return errors


def storage_class_errors(storage_class: dict[str, Any]) -> list[FieldError]:
    """``ValidateStorageClass`` past the metadata."""
    provisioner = str(storage_class.get("provisioner") or "")
    errors: list[FieldError] = []
    if not provisioner:
        errors.append(FieldError.required("provisioner"))
    else:
        lowered = provisioner.lower()
        errors += [FieldError.invalid("provisioner", lowered, m) for m in qualified_name(lowered)]
    errors += _parameter_errors(_dict(storage_class.get("parameters")))
    policy = storage_class.get("reclaimPolicy")
    if policy and policy not in _RECLAIM:
        errors.append(FieldError.not_supported("reclaimPolicy", policy, _RECLAIM))
    mode = storage_class.get("volumeBindingMode")
    if mode is None:
        errors.append(FieldError.required("volumeBindingMode"))
    elif mode not in _BINDING:
        errors.append(FieldError.not_supported("volumeBindingMode", mode, _BINDING))
    return errors + _topology_errors(storage_class.get("allowedTopologies"))


def storage_class_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateStorageClassUpdate``: parameters, provisioner, reclaim policy and binding
    mode never change."""
    errors: list[FieldError] = []
    for key in ("parameters", "provisioner", "reclaimPolicy"):
        if (new.get(key) or None) != (old.get(key) or None):
            errors.append(FieldError.forbidden(key, f"updates to {key} are forbidden."))
    if new.get("volumeBindingMode") != old.get("volumeBindingMode"):
        mode = new.get("volumeBindingMode")
        errors.append(FieldError.invalid("volumeBindingMode", mode, "field is immutable"))
    return errors


def storage_class_warnings(storage_class: dict[str, Any]) -> list[str]:
    """``GetWarningsForStorageClass``: deprecated node labels in allowed topologies."""
    warnings = []
    for i, term in dict_items(storage_class.get("allowedTopologies")):
        for j, requirement in dict_items(term.get("matchLabelExpressions")):
            key = requirement.get("key")
            message = deprecated_node_label(key)
            if message:
                at = f"allowedTopologies[{i}].matchLabelExpressions[{j}].key"
                warnings.append(f"{at}: {key} is {message}")
    return warnings


def default_csi_driver(spec: dict[str, Any]) -> None:
    """``SetDefaults_CSIDriver`` (SELinuxMountReadWriteOncePod on, as 1.32 ships it)."""
    spec.setdefault("attachRequired", True)
    spec.setdefault("podInfoOnMount", False)
    spec.setdefault("storageCapacity", False)
    spec.setdefault("fsGroupPolicy", "ReadWriteOnceWithFSType")
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]
    spec.setdefault("requiresRepublish", False)
    spec.setdefault("seLinuxMount", False)


def _token_request_errors(requests: Any) -> list[FieldError]:
    errors: list[FieldError] = []
    audiences: set[str] = set()
    for i, request in dict_items(requests):
        at = f"spec.tokenRequests[{i}]"
        audience = str(request.get("audience") or "")
        if audience in audiences:
            errors.append(FieldError.duplicate(f"{at}.audience", audience))
            continue
        audiences.add(audience)
        seconds = request.get("expirationSeconds")
        if isinstance(seconds, int) and seconds < 600:
            detail = "may not specify a duration less than 10 minutes"
            errors.append(FieldError.invalid(f"{at}.expirationSeconds", seconds, detail))
        if isinstance(seconds, int) and seconds > 1 << 32:
            detail = "may not specify a duration larger than 2^32 seconds"
            errors.append(FieldError.invalid(f"{at}.expirationSeconds", seconds, detail))
    return errors


def _csi_spec_errors(spec: dict[str, Any]) -> list[FieldError]:
    errors = [
        FieldError.required(f"spec.{path}")
        for key, path in (
            ("attachRequired", "attachedRequired"),  # sic: Go's path
            ("podInfoOnMount", "podInfoOnMount"),
            ("storageCapacity", "storageCapacity"),
        )
        if spec.get(key) is None
    ]
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in _FS_GROUP_POLICIES:
        errors.append(FieldError.not_supported("spec.fsGroupPolicy", policy, _FS_GROUP_POLICIES))
    errors += _token_request_errors(spec.get("tokenRequests"))
    modes = spec.get("volumeLifecycleModes")
    for mode in modes if isinstance(modes, list) else ():
        if mode not in _LIFECYCLE_MODES:
            errors.append(
                FieldError.not_supported("spec.volumeLifecycleModes", mode, _LIFECYCLE_MODES)
            )
    if spec.get("seLinuxMount") is None:
        errors.append(FieldError.required("spec.seLinuxMount"))
    return errors


def csi_driver_errors(driver: dict[str, Any]) -> list[FieldError]:
    """``ValidateCSIDriver`` past the metadata (its name is a DNS subdomain, as most)."""
    return _csi_spec_errors(_dict(driver.get("spec")))


def csi_driver_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateCSIDriverUpdate``: the spec's rules, attachRequired and the lifecycle
    modes fixed once created."""
    spec, before = _dict(new.get("spec")), _dict(old.get("spec"))
    errors = _csi_spec_errors(spec)
    if spec.get("attachRequired") != before.get("attachRequired"):
        value = spec.get("attachRequired")
        errors.append(FieldError.invalid("spec.attachedRequired", value, "field is immutable"))
    if spec.get("volumeLifecycleModes") != before.get("volumeLifecycleModes"):
        modes = spec.get("volumeLifecycleModes") or []
        shown = GoValue(
            "[]storage.VolumeLifecycleMode{" + ", ".join(GoValue.quote(str(m)) for m in modes) + "}"
        )
        errors.append(FieldError.invalid("spec.volumeLifecycleModes", shown, "field is immutable"))
    return errors


def _attachment_source_errors(source: dict[str, Any]) -> list[FieldError]:
    inline, volume = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and volume is None:
        return [FieldError.required("spec.source", _ONE_SOURCE)]
    if inline is not None and volume is not None:
        return [FieldError.forbidden("spec.source", _ONE_SOURCE)]
    if volume is not None and not volume:
        detail = "must specify non empty persistentVolumeName"
        return [FieldError.required("spec.source.persistentVolumeName", detail)]
    return []


def volume_attachment_errors(attachment: dict[str, Any]) -> list[FieldError]:
    """``ValidateVolumeAttachment`` past the metadata, then ``ValidateVolumeAttachmentV1``."""
    spec, status = _dict(attachment.get("spec")), _dict(attachment.get("status"))
    attacher = str(spec.get("attacher") or "")
    errors = [] if attacher else [FieldError.required("spec.attacher")]
    errors += _attachment_source_errors(_dict(spec.get("source")))
    node = str(spec.get("nodeName") or "")
    errors += [FieldError.invalid("spec.nodeName", node, m) for m in dns1123_subdomain(node)]
    metadata = _dict(status.get("attachmentMetadata"))
    if (
        sum(len(str(k).encode()) + len(str(v).encode()) for k, v in metadata.items())
        > _MAX_METADATA_BYTES
    ):
        errors.append(FieldError.too_long("status.attachmentMetadata", "", _MAX_METADATA_BYTES))
    for key in ("attachError", "detachError"):
        message = str(_dict(status.get(key)).get("message") or "")
        if len(message.encode()) > _MAX_ERROR_MESSAGE:  # Go reports the metadata limit (sic)
            errors.append(FieldError.too_long(f"status.{key}.message", "", _MAX_METADATA_BYTES))
    errors += csi_driver_name_errors(attacher, "spec.attacher")
    volume = _dict(spec.get("source")).get("persistentVolumeName")
    if volume is not None:
        at = "spec.source.persistentVolumeName"
        errors += [FieldError.invalid(at, volume, m) for m in dns1123_subdomain(str(volume))]
    return errors


def _spec_value(spec: dict[str, Any]) -> GoValue:
    source = _dict(spec.get("source"))
    volume = "nil" if source.get("persistentVolumeName") is None else "0xc000010000"
    inline = "nil" if source.get("inlineVolumeSpec") is None else "0xc000010010"
    return GoValue(
        f"storage.VolumeAttachmentSpec{{Attacher:{GoValue.quote(str(spec.get('attacher') or ''))}, "
        f"Source:storage.VolumeAttachmentSource{{PersistentVolumeName:(*string)({volume}), "
        f"InlineVolumeSpec:(*core.PersistentVolumeSpec)({inline})}}, "
        f"NodeName:{GoValue.quote(str(spec.get('nodeName') or ''))}}}"
    )


def volume_attachment_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateVolumeAttachmentUpdate``: every create rule, and the spec never changes."""
    errors = volume_attachment_errors(new)
    spec = _dict(new.get("spec"))
    if spec != _dict(old.get("spec")):
        errors.append(FieldError.invalid("spec", _spec_value(spec), "field is immutable"))
    return errors
