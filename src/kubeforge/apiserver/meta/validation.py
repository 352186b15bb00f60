"""Metadata validation every resource shares: names, labels, annotations, finalizers, owners.

Rules and messages follow apimachinery's ``util/validation`` and ``api/validation``
(``ValidateObjectMeta``/``ValidateObjectMetaUpdate``). Each function returns a list
of ``FieldError``; the engine raises one 422 ``Invalid`` with all of them.
Entry points: ``validate_object_meta`` and ``validate_meta_update``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import (
    dns1035_label,
    dns1123_label,
    dns1123_subdomain,
    label_value,
    qualified_name,
)

# The three DNS name rules are kubeforge.core.names' (one copy for every layer), named
# here too because each kind's strategy picks its name rule from this module.
__all__ = [
    "NameValidator",
    "dns1035_label",
    "dns1123_label",
    "dns1123_subdomain",
    "is_qualified_name",
    "mask_trailing_dash",
    "path_segment_name",
    "validate_meta_update",
    "validate_object_meta",
]

NameValidator = Callable[[str], list[str]]
"""Returns the problems with a name; empty when valid."""


def path_segment_name(name: str) -> list[str]:
    """Names that only need to be usable in a URL path (e.g. RBAC objects)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def is_qualified_name(name: str) -> bool:
    return not qualified_name(name)


_MAX_ANNOTATIONS_BYTES = 256 * 1024


def mask_trailing_dash(prefix: str) -> str:
    """A name prefix as apimachinery's ``maskTrailingDash`` checks it: a trailing '-' is
    fine there. Go drops the last two characters before appending its "a", and so must this.

    >>> mask_trailing_dash("web-"), mask_trailing_dash("-")
    ('wea', '-')
    """
    return prefix[:-2] + "a" if prefix.endswith("-") and len(prefix) > 1 else prefix


def validate_object_meta(
    meta: dict[str, Any], *, namespaced: bool, name_validator: NameValidator
) -> list[FieldError]:
    """Problems with ``metadata`` of an object about to be stored."""
    errors: list[FieldError] = []
    name = meta.get("name")
    generate_name = meta.get("generateName")
    if generate_name:
        for problem in name_validator(mask_trailing_dash(str(generate_name))):
            errors.append(FieldError("Invalid", "metadata.generateName", problem, generate_name))
    if not name:
        errors.append(FieldError("Required", "metadata.name", "name or generateName is required"))
    elif not isinstance(name, str):
        errors.append(FieldError("Invalid", "metadata.name", "must be a string", name))
    else:
        for problem in name_validator(name):
            errors.append(FieldError("Invalid", "metadata.name", problem, name))
    if namespaced and not meta.get("namespace"):
        errors.append(FieldError("Required", "metadata.namespace"))
    errors += _validate_labels(meta.get("labels"))
    errors += _validate_annotations(meta.get("annotations"))
    errors += _validate_finalizers(meta.get("finalizers"))
    errors += _validate_owner_references(meta.get("ownerReferences"))
    return errors


def _validate_labels(labels: Any) -> list[FieldError]:
    if labels is None:
        return []
    if not isinstance(labels, dict):
        return [FieldError("Invalid", "metadata.labels", "must be an object", labels)]
    errors = []
    for key, value in labels.items():
        for problem in qualified_name(key):
            errors.append(FieldError("Invalid", "metadata.labels", problem, key))
        if not isinstance(value, str):
            errors.append(
                FieldError("Invalid", f"metadata.labels.{key}", "must be a string", value)
            )
            continue
        for problem in label_value(value):
            errors.append(FieldError("Invalid", "metadata.labels", problem, value))
    return errors


def _validate_annotations(annotations: Any) -> list[FieldError]:
    if annotations is None:
        return []
    if not isinstance(annotations, dict):
        return [FieldError("Invalid", "metadata.annotations", "must be an object", annotations)]
    errors = []
    total = 0
    for key, value in annotations.items():
        for problem in qualified_name(key.lower()):
            errors.append(FieldError("Invalid", "metadata.annotations", problem, key))
        if not isinstance(value, str):
            errors.append(
                FieldError("Invalid", f"metadata.annotations.{key}", "must be a string", value)
            )
            continue
        total += len(key) + len(value)
    if total > _MAX_ANNOTATIONS_BYTES:
        # 1.32's field.TooLong words it "may not be more than N bytes" (a k3s 1.32.3
        # server answers so for an over-large last-applied annotation).
        errors.append(FieldError.too_long("metadata.annotations", "", _MAX_ANNOTATIONS_BYTES))
    return errors


def _validate_finalizers(finalizers: Any) -> list[FieldError]:
    if finalizers is None:
        return []
    if not isinstance(finalizers, list):
        return [FieldError("Invalid", "metadata.finalizers", "must be a list", finalizers)]
    errors = []
    for i, finalizer in enumerate(finalizers):
        field = f"metadata.finalizers[{i}]"
        if not isinstance(finalizer, str):
            errors.append(FieldError("Invalid", field, "must be a string", finalizer))
            continue
        for problem in qualified_name(finalizer):
            errors.append(FieldError("Invalid", field, problem, finalizer))
    return errors


def _validate_owner_references(refs: Any) -> list[FieldError]:
    if refs is None:
        return []
    if not isinstance(refs, list):
        return [FieldError("Invalid", "metadata.ownerReferences", "must be a list", refs)]
    errors: list[FieldError] = []
    controllers = []
    for i, ref in enumerate(refs):
        field = f"metadata.ownerReferences[{i}]"
        if not isinstance(ref, dict):
            errors.append(FieldError("Invalid", field, "must be an object", ref))
            continue
        for key in ("apiVersion", "kind", "name", "uid"):
            if not ref.get(key):
                detail = {"apiVersion": "version must not be empty"}.get(key, "")
                kind = "Invalid" if key == "apiVersion" else "Required"
                errors.append(FieldError(kind, f"{field}.{key}", detail))
        if ref.get("controller") is True:
            controllers.append(ref)
    if len(controllers) > 1:
        summary = ", ".join(
            f"Kind={r.get('kind')}, Name={r.get('name')}, UID={r.get('uid')}" for r in controllers
        )
        errors.append(
            FieldError(
                "Invalid",
                "metadata.ownerReferences",
                f'Only one reference can have Controller set to true. Found "true" in '
                f"references for {summary}",
                orjson.loads(orjson.dumps(refs)),
            )
        )
    return errors


def validate_meta_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Immutable metadata, and the rule that a deleting object may only lose finalizers."""
    errors: list[FieldError] = []
    for key in ("name", "namespace", "uid"):
        new_value, old_value = new.get(key) or "", old.get(key) or ""
        if new_value != old_value:
            errors.append(FieldError("Invalid", f"metadata.{key}", "field is immutable", new_value))
    if old.get("deletionTimestamp"):
        added = set(new.get("finalizers") or []) - set(old.get("finalizers") or [])
        if added:
            errors.append(
                FieldError(
                    "Forbidden",
                    "metadata.finalizers",
                    "no new finalizers can be added if the object is being deleted, found new "
                    f"finalizers {orjson.dumps(sorted(added)).decode()}",
                )
            )
    return errors
