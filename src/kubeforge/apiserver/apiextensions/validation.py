"""Validation of CustomResourceDefinition objects: names, scope, versions, structural schema.

Entry point: ``validate_crd(obj) -> list[FieldError]``; covers the apiextensions
checks clients run into in practice: name = ``<plural>.<group>``, exactly one
storage version, a structural schema per version (every node typed, arrays with
``items``, defaults that validate, root ``metadata`` limited to name and
generateName, well-formed ``x-kubernetes-list-type``/``-map-keys``, CEL rules
that compile), ``selectableFields`` naming scalar fields, printer column types
and scale subresource paths.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.apiextensions.conversion_validation import conversion_errors
from kubeforge.apiserver.apiextensions.schema import validate_value
from kubeforge.apiserver.cel.crd_rules import schema_errors
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.validation import dns1035_label
from kubeforge.core.names import is_dns1123_subdomain

__all__ = ["validate_crd"]


_APPROVAL = "api-approved.kubernetes.io"


def _protected(group: str) -> bool:
    """Groups owned by the Kubernetes project need an API-review approval annotation."""
    return any(group == g or group.endswith("." + g) for g in ("k8s.io", "kubernetes.io"))


def _name_errors(names: dict[str, Any]) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionNames``: resource names are DNS-1035 labels, kinds
    too once lowercased; each name's problems are joined into one error."""
    errors: list[FieldError] = []
    path = "spec.names"
    for field in ("plural", "singular"):
        value = names.get(field)
        problems = dns1035_label(value) if isinstance(value, str) and value else []
        if problems:
            errors.append(FieldError("Invalid", f"{path}.{field}", ",".join(problems), value))
    for i, short in enumerate(names.get("shortNames") or []):
        problems = dns1035_label(short) if isinstance(short, str) else []
        if problems:
            where = f"{path}.shortNames[{i}]"
            errors.append(FieldError("Invalid", where, ",".join(problems), short))
    for field in ("kind", "listKind"):
        value = names.get(field)
        problems = dns1035_label(value.lower()) if isinstance(value, str) and value else []
        if problems:
            detail = "may have mixed case, but should otherwise match: " + ",".join(problems)
            errors.append(FieldError("Invalid", f"{path}.{field}", detail, value))
    return errors


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
    elif not isinstance(group, str) or "." not in group or not is_dns1123_subdomain(group):
        errors.append(
            FieldError("Invalid", "spec.group", "should be a domain with at least one dot", group)
        )
    if not plural:
        errors.append(FieldError("Required", "spec.names.plural"))
    if not kind:
        errors.append(FieldError("Required", "spec.names.kind"))
    errors += _name_errors(names)
    errors += conversion_errors(spec)
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
        errors.append(FieldError.not_supported("spec.scope", scope, ("Cluster", "Namespaced")))
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
            where = f"{path}.schema.openAPIV3Schema"
            errors += _structural(schema, where, root=True)
            errors += _root_metadata(schema, where)
            errors += schema_errors(schema, where)
            errors += _selectable_fields(version, schema, path)
        errors += _printer_columns(version, path)
        errors += _scale(version, path)
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
    elif schema.get("type") == "array":
        errors.append(FieldError("Required", f"{path}.items", "must be specified"))
    errors += _list_type(schema, path)
    if "default" in schema and isinstance(schema.get("type"), str):
        errors += [
            FieldError(e.kind, f"{path}.default", e.body(), schema["default"])
            for e in validate_value(schema["default"], schema)
        ]
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        errors += _structural(extra, f"{path}.additionalProperties")
    return errors


_LIST_TYPES = ("atomic", "set", "map")
_SCALARS = ("string", "integer", "number", "boolean")


def _list_type(schema: dict[str, Any], path: str) -> list[FieldError]:
    """``x-kubernetes-list-type`` / ``-map-keys``: a map list is keyed by required scalars."""
    errors: list[FieldError] = []
    list_type = schema.get("x-kubernetes-list-type")
    keys = schema.get("x-kubernetes-list-map-keys")
    if list_type is not None and list_type not in _LIST_TYPES:
        errors.append(
            FieldError.not_supported(
                f"{path}.x-kubernetes-list-type", list_type, ("atomic", "map", "set")
            )
        )
    if keys and list_type != "map":
        errors.append(
            FieldError(
                "Forbidden",
                f"{path}.x-kubernetes-list-map-keys",
                "must be empty if x-kubernetes-list-type is not map",
            )
        )
    raw_items = schema.get("items")
    items: dict[str, Any] = raw_items if isinstance(raw_items, dict) else {}
    if list_type == "map":
        if not keys:
            errors.append(
                FieldError(
                    "Required",
                    f"{path}.x-kubernetes-list-map-keys",
                    "must not be empty if x-kubernetes-list-type is map",
                )
            )
        if items.get("type") != "object":
            errors.append(
                FieldError(
                    "Invalid",
                    f"{path}.items.type",
                    "must be object if parent array's x-kubernetes-list-type is map",
                    items.get("type", ""),
                )
            )
        properties = items.get("properties") or {}
        required = set(items.get("required") or [])
        for key in keys or []:
            prop = properties.get(key)
            if not isinstance(prop, dict):
                errors.append(
                    FieldError(
                        "Invalid",
                        f"{path}.x-kubernetes-list-map-keys",
                        "entries must all be names of item properties",
                        keys,
                    )
                )
            elif prop.get("type") not in _SCALARS:
                errors.append(
                    FieldError(
                        "Invalid",
                        f"{path}.items.properties[{key}].type",
                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                        prop.get("type", ""),
                    )
                )
            elif key not in required and "default" not in prop:
                errors.append(
                    FieldError(
                        "Required",
                        f"{path}.items.required",
                        f"all map keys must be required or have a default value: {key!r}",
                    )
                )
    return errors


def _root_metadata(schema: dict[str, Any], path: str) -> list[FieldError]:
    """The root's ``metadata`` may only say something about ``name`` and ``generateName``."""
    metadata = (schema.get("properties") or {}).get("metadata")
    if not isinstance(metadata, dict):
        return []
    allowed = {"type", "properties", "description"}
    extra_props = set(metadata.get("properties") or {}) - {"name", "generateName"}
    if set(metadata) - allowed or extra_props:
        return [
            FieldError(
                "Forbidden",
                f"{path}.properties[metadata]",
                "must not specify anything other than name and generateName, but metadata is "
                "implicitly specified",
            )
        ]
    return []


def _schema_at(schema: dict[str, Any], json_path: str) -> dict[str, Any] | None:
    """The schema node at a simple path; ``{}`` below preserve-unknown-fields (any type)."""
    node: Any = schema
    for part in json_path.lstrip(".").split("."):
        if not isinstance(node, dict):
            return None
        child = (node.get("properties") or {}).get(part)
        if child is None and node.get("x-kubernetes-preserve-unknown-fields"):
            return {}
        node = child
    return node if isinstance(node, dict) else None


def _selectable_fields(
    version: dict[str, Any], schema: dict[str, Any], path: str
) -> list[FieldError]:
    fields = version.get("selectableFields") or []
    errors: list[FieldError] = []
    if len(fields) > 8:
        errors.append(
            FieldError("TooMany", f"{path}.selectableFields", "must have at most 8 items", 8)
        )
    seen: set[str] = set()
    for i, entry in enumerate(fields):
        where = f"{path}.selectableFields[{i}].jsonPath"
        json_path = entry.get("jsonPath") if isinstance(entry, dict) else None
        if not isinstance(json_path, str) or not json_path:
            errors.append(FieldError("Required", where))
            continue
        if not _SIMPLE_PATH.fullmatch(json_path):
            errors.append(FieldError("Invalid", where, "must be a simple json path", json_path))
            continue
        if json_path in seen:
            errors.append(FieldError("Duplicate", where, value=json_path))
        seen.add(json_path)
        target = _schema_at(schema, json_path)
        if target is None:
            errors.append(
                FieldError(
                    "Invalid",
                    where,
                    "is an invalid path: does not refer to a valid field",
                    json_path,
                )
            )
        elif target and target.get("type") not in ("string", "integer", "boolean"):
            errors.append(
                FieldError(
                    "Invalid",
                    where,
                    "must point to a field of type string, boolean or integer. Enum string "
                    "fields and strings with formats are allowed.",
                    json_path,
                )
            )
    return errors


_SIMPLE_PATH = re.compile(r"(\.[A-Za-z_][A-Za-z0-9_-]*)+")
_COLUMN_TYPES = ("integer", "number", "string", "boolean", "date")


def _printer_columns(version: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, column in enumerate(version.get("additionalPrinterColumns") or []):
        where = f"{path}.additionalPrinterColumns[{i}]"
        if not isinstance(column, dict):
            errors.append(FieldError("Invalid", where, "must be an object", column))
            continue
        for key in ("name", "type", "jsonPath"):
            if not column.get(key):
                errors.append(FieldError("Required", f"{where}.{key}"))
        if column.get("type") and column["type"] not in _COLUMN_TYPES:
            errors.append(
                FieldError.not_supported(
                    f"{where}.type",
                    column["type"],
                    ("boolean", "date", "integer", "number", "string"),
                )
            )
    return errors


def _scale(version: dict[str, Any], path: str) -> list[FieldError]:
    scale = (version.get("subresources") or {}).get("scale")
    if not isinstance(scale, dict):
        return []
    errors: list[FieldError] = []
    where = f"{path}.subresources.scale"
    for key, prefix in (("specReplicasPath", ".spec."), ("statusReplicasPath", ".status.")):
        value = scale.get(key)
        if not value:
            errors.append(FieldError("Required", f"{where}.{key}"))
        elif not str(value).startswith(prefix):
            errors.append(
                FieldError(
                    "Invalid", f"{where}.{key}", f"should be a json path under {prefix[:-1]}", value
                )
            )
    return errors
