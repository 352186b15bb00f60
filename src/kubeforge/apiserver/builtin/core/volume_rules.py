"""Rules PersistentVolumes and PersistentVolumeClaims share in 1.32's validation: access
modes, volume modes, class names, the quantity checks, the immutable volume mode, and the
diff an "immutable after creation" error carries.

Go appends ``cmp.Diff(old, new)`` to those errors; go-cmp deliberately varies its own
whitespace from run to run, so no client can match it: here the changed fields are
listed one per line in its ``-``/``+`` style, after the same first line.

Entry points: the functions in ``__all__``.

>>> [str(e) for e in access_mode_errors(["ReadWriteOncePod", "ReadOnlyMany"], "spec.accessModes")]
['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']
"""

from __future__ import annotations

import math
from typing import Any

import orjson

from kubeforge.apiserver.builtin.podspec.resources import canonical_quantity, quantity_value
from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import dns1123_subdomain

__all__ = [
    "ACCESS_MODES",
    "BETA_CLASS",
    "VOLUME_MODES",
    "access_mode_errors",
    "basic_quantity_errors",
    "beta_class_warnings",
    "class_name_errors",
    "immutable_volume_mode",
    "positive_quantity_errors",
    "spec_diff",
]

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
VOLUME_MODES = ("Block", "Filesystem")


def access_mode_errors(modes: Any, path: str) -> list[FieldError]:
    """Each mode supported, and ReadWriteOncePod alone if used."""
    errors: list[FieldError] = []
    alone = others = False
    for mode in modes if isinstance(modes, list) else ():
        if mode not in ACCESS_MODES:
            errors.append(FieldError.not_supported(path, mode, ACCESS_MODES))
        elif mode == "ReadWriteOncePod":
            alone = True
        else:
            others = True
    if alone and others:
        detail = "may not use ReadWriteOncePod with other access modes"
        errors.append(FieldError.forbidden(path, detail))
    return errors


def positive_quantity_errors(amount: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveQuantityValue``: more than zero (shown as the server prints it)."""
    value = quantity_value(amount)
    if value is not None and value <= 0:
        shown = canonical_quantity(str(amount))
        return [FieldError.invalid(path, shown, "must be greater than zero")]
    return []


def basic_quantity_errors(amount: Any, path: str) -> list[FieldError]:
    """``validateBasicResource``: not below zero once rounded to a whole number."""
    value = quantity_value(amount)
    if value is not None and value < 0:
        whole = -math.ceil(-value)
        return [FieldError.invalid(path, whole, "must be a valid resource quantity")]
    return []


def class_name_errors(name: Any, path: str) -> list[FieldError]:
    """A storage (or volume attributes) class name, when given, is a DNS subdomain."""
    if not name or not isinstance(name, str):
        return []
    return [FieldError.invalid(path, name, message) for message in dns1123_subdomain(name)]


def immutable_volume_mode(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    """The volume mode never changes (Go reports it at ``volumeMode``, sic)."""
    new_mode, old_mode = new_spec.get("volumeMode"), old_spec.get("volumeMode")
    if new_mode != old_mode:
        return [FieldError.invalid("volumeMode", new_mode, "field is immutable")]
    return []


def _shown(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def spec_diff(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The changed fields as ``-``/``+`` lines, or None when nothing changed."""
    lines = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        if before is not None:
            lines.append(f"- \t{key}: {_shown(before)},")
        if after is not None:
            lines.append(f"+ \t{key}: {_shown(after)},")
    return "\n".join(lines) if lines else None


BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
"""The annotation that named a class before ``storageClassName`` (deprecated in 1.8)."""


def beta_class_warnings(obj: dict[str, Any]) -> list[str]:
    """The warning of a volume or claim still naming its class by the beta annotation."""
    metadata = obj.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict) and BETA_CLASS in annotations:
        detail = 'deprecated since v1.8; use "storageClassName" attribute instead'
        return [f"metadata.annotations[{BETA_CLASS}]: {detail}"]
    return []
