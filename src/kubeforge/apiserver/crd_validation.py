"""Validation of CustomResourceDefinition objects: names, scope, versions, structural schema.

Entry point: ``validate_crd(obj) -> list[FieldError]``; covers the apiextensions
checks clients run into in practice (name = ``<plural>.<group>``, exactly one
storage version, a schema per version, every schema node typed).
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.validation import dns1035_label, dns1123_label

__all__ = ["validate_crd"]


_GROUP = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


_APPROVAL = "api-approved.kubernetes.io"


def _protected(group: str) -> bool:
    """Groups owned by the Kubernetes project need an API-review approval annotation."""
    return any(group == g or group.endswith("." + g) for g in ("k8s.io", "kubernetes.io"))


def validate_crd(obj: dict[str, Any]) -> list[FieldError]:
    """The checks of ``apiextensions`` validation that clients run into in practice."""
    errors: list[FieldError] = []
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return [FieldError("Required", "spec")]
    group = spec.get("group")
    raw_names = spec.get("names")
    names: dict[str, Any] = raw_names if isinstance(raw_names, dict) else {}
    plural, kind = names.get("plural"), names.get("kind")
    if not group:
        errors.append(FieldError("Required", "spec.group"))
    elif not isinstance(group, str) or "." not in group or not _GROUP.fullmatch(group):
        errors.append(
            FieldError("Invalid", "spec.group", "should be a domain with at least one dot", group)
        )
    if not plural:
        errors.append(FieldError("Required", "spec.names.plural"))
    else:
        errors += [
            FieldError("Invalid", "spec.names.plural", p, plural)
            for p in dns1123_label(str(plural))
        ]
    if not kind:
        errors.append(FieldError("Required", "spec.names.kind"))
    singular = names.get("singular")
    if singular:
        errors += [
            FieldError("Invalid", "spec.names.singular", p, singular)
            for p in dns1123_label(str(singular))
        ]
    name = obj["metadata"].get("name")
    if plural and group and name != f"{plural}.{group}":
        errors.append(
            FieldError("Invalid", "metadata.name", 'must be spec.names.plural+"."+spec.group', name)
        )
    if isinstance(group, str) and _protected(group):
        annotations = obj["metadata"].get("annotations") or {}
        if not annotations.get(_APPROVAL):
            errors.append(
                FieldError(
                    "Required",
                    f"metadata.annotations[{_APPROVAL}]",
                    f'protected groups must have approval annotation "{_APPROVAL}", see '
                    "https://github.com/kubernetes/enhancements/pull/1111",
                )
            )
    scope = spec.get("scope")
    if scope not in ("Namespaced", "Cluster"):
        errors.append(
            FieldError(
                "NotSupported", "spec.scope", 'supported values: "Cluster", "Namespaced"', scope
            )
        )
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        errors.append(
            FieldError(
                "Invalid",
                "spec.versions",
                "must have exactly one version marked as storage version",
                versions or [],
            )
        )
        return errors
    storage = 0
    seen: set[str] = set()
    for i, version in enumerate(versions):
        path = f"spec.versions[{i}]"
        if not isinstance(version, dict):
            errors.append(FieldError("Invalid", path, "must be an object", version))
            continue
        vname = version.get("name")
        if not vname:
            errors.append(FieldError("Required", f"{path}.name"))
        else:
            errors += [
                FieldError("Invalid", f"{path}.name", p, vname) for p in dns1035_label(str(vname))
            ]
            if vname in seen:
                errors.append(FieldError("Duplicate", f"{path}.name", value=vname))
            seen.add(str(vname))
        storage += 1 if version.get("storage") is True else 0
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if not isinstance(schema, dict):
            errors.append(
                FieldError("Required", f"{path}.schema.openAPIV3Schema", "schemas are required")
            )
        else:
            errors += _structural(schema, f"{path}.schema.openAPIV3Schema", root=True)
    if storage != 1:
        errors.append(
            FieldError(
                "Invalid",
                "spec.versions",
                "must have exactly one version marked as storage version",
                [v.get("name") for v in versions if isinstance(v, dict)],
            )
        )
    return errors


def _structural(schema: dict[str, Any], path: str, *, root: bool = False) -> list[FieldError]:
    """Structural-schema basics: every node has a type unless it opts out explicitly."""
    errors: list[FieldError] = []
    opted_out = schema.get("x-kubernetes-int-or-string") or schema.get(
        "x-kubernetes-preserve-unknown-fields"
    )
    if not schema.get("type") and not opted_out:
        detail = (
            "must not be empty at the root"
            if root
            else "must not be empty for specified object fields"
        )
        errors.append(FieldError("Required", f"{path}.type", detail))
    if root and schema.get("type") not in (None, "object"):
        errors.append(
            FieldError(
                "Invalid", f"{path}.type", 'must be "object" at the root', schema.get("type")
            )
        )
    if "$ref" in schema:
        errors.append(FieldError("Forbidden", f"{path}.$ref", "$ref is not supported"))
    if "properties" in schema and "additionalProperties" in schema:
        errors.append(
            FieldError(
                "Forbidden",
                f"{path}.additionalProperties",
                "additionalProperties and properties are mutual exclusive",
            )
        )
    for key, child in (schema.get("properties") or {}).items():
        if isinstance(child, dict):
            errors += _structural(child, f"{path}.properties[{key}]")
    items = schema.get("items")
    if isinstance(items, dict):
        errors += _structural(items, f"{path}.items")
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        errors += _structural(extra, f"{path}.additionalProperties")
    return errors
