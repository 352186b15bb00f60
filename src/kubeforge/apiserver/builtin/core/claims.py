"""PersistentVolumeClaims as 1.32 validates them (pkg/apis/core/validation:
``ValidatePersistentVolumeClaimSpec``, ``...Update``, ``...StatusUpdate``) and as its
strategy prepares them (pkg/api/persistentvolumeclaim: data sources normalised,
the fractional-byte and beta-annotation warnings).

Feature gates as 1.32 ships them: AnyVolumeDataSource and RecoverVolumeExpansionFailure on
(a bound claim may shrink its request, but not to status.capacity or below),
VolumeAttributesClass and CrossNamespaceVolumeDataSource off (their fields are dropped
unless the stored claim already uses them).

Entry points: ``prepare_claim``, ``claim_errors``, ``claim_update_errors``,
``claim_status_errors``, ``claim_warnings``.
"""

from __future__ import annotations

import copy
from typing import Any

from kubeforge.apiserver.builtin.core.volume_rules import (
    BETA_CLASS,
    VOLUME_MODES,
    access_mode_errors,
    basic_quantity_errors,
    beta_class_warnings,
    class_name_errors,
    immutable_volume_mode,
    positive_quantity_errors,
    spec_diff,
)
from kubeforge.apiserver.builtin.podspec.resources import canonical_quantity, quantity_value
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.core.names import dns1123_label, dns1123_subdomain, qualified_name

__all__ = [
    "claim_errors",
    "claim_status_errors",
    "claim_update_errors",
    "claim_warnings",
    "prepare_claim",
]

_RESIZE_STATUSES = (
    "ControllerResizeInProgress",
    "ControllerResizeInfeasible",
    "NodeResizeInProgress",
    "NodeResizeInfeasible",
    "NodeResizePending",
)
_IMMUTABLE_SPEC = (
    "spec is immutable after creation except resources.requests and "
    "volumeAttributesClassName for bound claims"
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _requests(spec: dict[str, Any]) -> dict[str, Any]:
    return _dict(_dict(spec.get("resources")).get("requests"))


def prepare_claim(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> None:
    """The claim strategy's spec changes: gated-off fields dropped, and on create
    dataSource and dataSourceRef made to mirror each other (NormalizeDataSources)."""
    old = old_spec or {}
    if "volumeAttributesClassName" not in old:
        spec.pop("volumeAttributesClassName", None)
    ref = spec.get("dataSourceRef")
    if isinstance(ref, dict) and not _dict(old.get("dataSourceRef")).get("namespace"):
        ref.pop("namespace", None)
    if old_spec is not None:
        return
    source = spec.get("dataSource")
    if isinstance(source, dict) and not isinstance(ref, dict):
        spec["dataSourceRef"] = {k: source[k] for k in ("apiGroup", "kind", "name") if k in source}
    elif isinstance(ref, dict) and source is None and not ref.get("namespace"):
        spec["dataSource"] = {k: ref[k] for k in ("apiGroup", "kind", "name") if k in ref}


def _data_source(source: dict[str, Any], path: str, *, ref: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    if not source.get("name"):
        errors.append(FieldError.required(f"{path}.name"))
    kind = str(source.get("kind") or "")
    if not kind:
        errors.append(FieldError.required(f"{path}.kind"))
    group = str(source.get("apiGroup") or "")
    if not group and kind != "PersistentVolumeClaim":
        detail = "must be 'PersistentVolumeClaim' when referencing the default apiGroup"
        errors.append(FieldError.invalid(path, kind, detail))
    for message in dns1123_subdomain(group) if group else ():
        errors.append(FieldError.invalid(f"{path}.apiGroup", group, message))
    namespace = str(source.get("namespace") or "") if ref else ""
    for message in dns1123_label(namespace) if namespace else ():
        errors.append(FieldError.invalid(f"{path}.namespace", namespace, message))
    return errors


def _storage_request(spec: dict[str, Any], path: str) -> list[FieldError]:
    at = f"{path}.resources[storage]"
    requests = _requests(spec)
    if "storage" not in requests:
        return [FieldError.required(at)]
    return positive_quantity_errors(requests["storage"], at)


def claim_spec_errors(
    spec: dict[str, Any], path: str, *, selector_values: bool = True
) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimSpec`` (also a claim template's)."""
    modes = spec.get("accessModes")
    errors: list[FieldError] = []
    if not modes:
        errors.append(
            FieldError.required(f"{path}.accessModes", "at least 1 access mode is required")
        )
    errors += validate_selector(
        spec.get("selector"), f"{path}.selector", check_values=selector_values
    )
    errors += access_mode_errors(modes, f"{path}.accessModes")
    errors += _storage_request(spec, path)
    errors += class_name_errors(spec.get("storageClassName"), f"{path}.storageClassName")
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errors.append(FieldError.not_supported(f"{path}.volumeMode", mode, VOLUME_MODES))
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if isinstance(source, dict):
        errors += _data_source(source, f"{path}.dataSource", ref=False)
    if isinstance(ref, dict):
        errors += _data_source(ref, f"{path}.dataSourceRef", ref=True)
    where = GoValue(f"{path}.dataSource")
    if isinstance(ref, dict) and ref.get("namespace"):
        if isinstance(source, dict):
            detail = "may not be specified when dataSourceRef.namespace is specified"
            errors.append(FieldError.invalid(path, where, detail))
    elif (
        isinstance(source, dict)
        and isinstance(ref, dict)
        and any(source.get(k) != ref.get(k) for k in ("apiGroup", "kind", "name"))
    ):
        errors.append(FieldError.invalid(path, where, "must match dataSourceRef"))
    return errors


def claim_errors(claim: dict[str, Any]) -> list[FieldError]:
    return claim_spec_errors(_dict(claim.get("spec")), "spec")


def _class_change_allowed(
    new: dict[str, Any], old: dict[str, Any]
) -> tuple[bool, list[FieldError]]:
    """Whether the class may move from the beta annotation (or from nothing) to
    ``storageClassName``; otherwise the annotation is immutable."""
    new_notes = _dict(_dict(new.get("metadata")).get("annotations"))
    old_notes = _dict(_dict(old.get("metadata")).get("annotations"))
    new_class = _dict(new.get("spec")).get("storageClassName")
    old_class = _dict(old.get("spec")).get("storageClassName")
    if (
        BETA_CLASS in old_notes
        and old_class is None
        and new_class == old_notes[BETA_CLASS]
        and new_notes.get(BETA_CLASS, old_notes[BETA_CLASS]) == old_notes[BETA_CLASS]
    ):
        return True, []
    errors: list[FieldError] = []
    if new_notes.get(BETA_CLASS, "") != old_notes.get(BETA_CLASS, ""):
        at = f"metadata.annotations.{BETA_CLASS}"  # sic: Go's Child, not Key
        errors.append(FieldError.invalid(at, new_notes.get(BETA_CLASS, ""), "field is immutable"))
    from_nil = new_class is not None and old_class is None
    if from_nil and (BETA_CLASS not in old_notes or new_class == old_notes[BETA_CLASS]):
        return True, errors
    return False, errors


def claim_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimUpdate`` past the metadata."""
    new_spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    old_selector_ok = not validate_selector(old_spec.get("selector"), "", check_values=True)
    errors = claim_spec_errors(new_spec, "spec", selector_values=old_selector_ok)
    compared_new, compared_old = copy.deepcopy(new_spec), copy.deepcopy(old_spec)
    if not old_spec.get("volumeName"):
        compared_old["volumeName"] = compared_new.get("volumeName")
    class_moves, class_errors = _class_change_allowed(new, old)
    errors += class_errors
    if class_moves:
        compared_new["storageClassName"] = old_spec.get("storageClassName")
    bound = _dict(new.get("status")).get("phase") == "Bound"
    if bound and "requests" in _dict(compared_new.get("resources")):
        requests = _requests(compared_new)
        requests.pop("storage", None)
        if "storage" in _requests(old_spec):
            requests["storage"] = _requests(old_spec)["storage"]
    if bound and "volumeAttributesClassName" in compared_new:
        compared_new["volumeAttributesClassName"] = old_spec.get("volumeAttributesClassName")
    if spec_diff(compared_old, compared_new) is not None:
        detail = f"{_IMMUTABLE_SPEC}\n{spec_diff(compared_old, compared_new)}"
        errors.append(FieldError.forbidden("spec", detail))
    errors += _shrink_errors(new_spec, old_spec, old)
    errors += immutable_volume_mode(new_spec, old_spec)
    return errors


def _shrink_errors(
    new_spec: dict[str, Any], old_spec: dict[str, Any], old: dict[str, Any]
) -> list[FieldError]:
    new_size = quantity_value(_requests(new_spec).get("storage", "0")) or 0
    old_size = quantity_value(_requests(old_spec).get("storage", "0")) or 0
    capacity = _dict(_dict(old.get("status")).get("capacity"))
    status_size = quantity_value(capacity.get("storage", "0")) or 0
    if new_size < old_size and new_size <= status_size:
        at = "spec.resources.requests.storage"
        return [FieldError.forbidden(at, "field can not be less than status.capacity")]
    return []


def claim_status_errors(new: dict[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimStatusUpdate`` past the metadata."""
    errors: list[FieldError] = []
    if not _dict(new.get("spec")).get("accessModes"):
        errors.append(FieldError.required("Spec.accessModes"))  # sic: Go's capital S
    status = _dict(new.get("status"))
    for name, amount in _dict(status.get("capacity")).items():
        errors += basic_quantity_errors(amount, f"status.capacity[{name}]")
    at = "status.allocatedResourceStatus"
    for name, state in _dict(status.get("allocatedResourceStatuses")).items():
        errors += _claim_resource_key(name, at)
        if state not in _RESIZE_STATUSES:
            errors.append(FieldError.not_supported(at, name, _RESIZE_STATUSES))
    for name, amount in _dict(status.get("allocatedResources")).items():
        key_errors = _claim_resource_key(name, "status.allocatedResources")
        errors += key_errors or basic_quantity_errors(amount, f"status.allocatedResources[{name}]")
    return errors


def _claim_resource_key(name: str, path: str) -> list[FieldError]:
    problems = qualified_name(name)
    if problems:
        return [FieldError.invalid(path, name, m) for m in problems]
    native = "/" not in name or name.startswith("kubernetes.io/")
    if native and name != "storage":
        return [FieldError.not_supported(path, name, ("storage",))]
    return []


def _fraction_warnings(spec: dict[str, Any], path: str) -> list[str]:
    warnings = []
    for part in ("requests", "limits"):
        amount = _dict(_dict(spec.get("resources")).get(part)).get("storage")
        value = quantity_value(amount) if amount is not None else None
        if value is not None and value.denominator != 1:
            shown = canonical_quantity(str(amount))
            warnings.append(
                f'{path}.resources.{part}[storage]: fractional byte value "{shown}" is invalid, '
                "must be an integer"
            )
    return warnings


def claim_warnings(claim: dict[str, Any]) -> list[str]:
    """``GetWarningsForPersistentVolumeClaim``: the beta class annotation, fractional bytes."""
    warnings = beta_class_warnings(claim)
    return warnings + _fraction_warnings(_dict(claim.get("spec")), "spec")
