"""Custom resources against their CRD's structural schema: prune, default, validate.

Entry points, applied in this order on every write (as the real server does):

* ``prune(obj, schema)`` drops fields the schema does not declare (except below
  ``x-kubernetes-preserve-unknown-fields`` or ``additionalProperties``) and
  explicit nulls of non-nullable fields; it returns the dropped paths, which
  ``fieldValidation=Strict`` turns into a 400 instead.
* ``apply_defaults(obj, schema)`` fills ``default`` values inside objects that exist.
* ``validate(obj, schema)`` checks types, ``enum``, ``required``, bounds, lengths,
  ``pattern``, ``format``, item and property counts, returning ``FieldError``\\ s worded like
  kube-openapi's (``spec.replicas in body must be of type integer: "x"``).

``x-kubernetes-list-type`` ``set``/``map`` lists are checked for repeated items or
keys (``Duplicate value``); ``allOf``/``anyOf``/``oneOf``/``not`` are checked as
value validations; ``format`` is checked as the real server does (``formats``).
CEL rules (``x-kubernetes-validations``) are ``kubeforge.apiserver.cel``'s.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from kubeforge.apiserver.apiextensions import formats
from kubeforge.apiserver.failures import FieldError, go_quote
from kubeforge.apiserver.meta.fields import prune_metadata

__all__ = [
    "apply_defaults",
    "prune",
    "validate",
    "validate_value",
]

_ROOT_KEEP = ("apiVersion", "kind", "metadata")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _preserves(schema: dict[str, Any]) -> bool:
    return bool(schema.get("x-kubernetes-preserve-unknown-fields"))


def prune(obj: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Remove undeclared fields in place; returns their paths (``.spec.foo`` style)."""
    dropped = prune_metadata(obj)
    _prune_object(obj, schema, "", dropped, root=True)
    return dropped


def _prune_object(
    obj: dict[str, Any], schema: dict[str, Any], path: str, dropped: list[str], *, root: bool
) -> None:
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    embedded = root or schema.get("x-kubernetes-embedded-resource")
    for key in list(obj):
        if embedded and key in _ROOT_KEEP:
            continue
        child_schema = properties.get(key)
        if child_schema is None and isinstance(additional, dict):
            child_schema = additional
        if child_schema is None:
            if not _preserves(schema) and additional is not True:
                del obj[key]
                dropped.append(_join(path, key))
            continue
        value = obj[key]
        if value is None and not child_schema.get("nullable"):
            del obj[key]  # non-nullable nulls are dropped (then defaulted, if a default exists)
            continue
        _prune_value(value, child_schema, _join(path, key), dropped)


def _prune_value(value: Any, schema: dict[str, Any], path: str, dropped: list[str]) -> None:
    if isinstance(value, dict):
        if not schema.get("x-kubernetes-int-or-string"):
            _prune_object(value, schema, path, dropped, root=False)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            _prune_value(item, schema["items"], f"{path}[{i}]", dropped)


def apply_defaults(obj: dict[str, Any], schema: dict[str, Any]) -> None:
    """Fill missing properties that declare a ``default``, recursively, in place."""
    _default_object(obj, schema)


def _default_object(obj: dict[str, Any], schema: dict[str, Any]) -> None:
    for key, child in (schema.get("properties") or {}).items():
        if not isinstance(child, dict):
            continue
        if key not in obj and "default" in child:
            obj[key] = copy.deepcopy(child["default"])
        if key in obj:
            _default_value(obj[key], child)
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        for key, value in obj.items():
            if key not in (schema.get("properties") or {}):
                _default_value(value, additional)


def _default_value(value: Any, schema: dict[str, Any]) -> None:
    if isinstance(value, dict):
        _default_object(value, schema)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            _default_value(item, schema["items"])


def validate(
    obj: dict[str, Any], schema: dict[str, Any], *, skip: tuple[str, ...] = ()
) -> list[FieldError]:
    """Schema violations of ``obj`` (root keys in ``skip`` are not checked)."""
    errors: list[FieldError] = []
    root = {k: v for k, v in obj.items() if k not in (*_ROOT_KEEP, *skip)}
    # apiVersion, kind and metadata are the server's to check, not the schema's: a root
    # schema that requires them (Argo CD's CRDs require metadata) is satisfied.
    skipped = (*_ROOT_KEEP, *skip)
    trimmed = {**schema, "required": [r for r in schema.get("required") or [] if r not in skipped]}
    _check(root, trimmed, "", errors)
    return errors


def validate_value(value: Any, schema: dict[str, Any]) -> list[FieldError]:
    """Violations of one value against one schema node (paths relative to it)."""
    errors: list[FieldError] = []
    _check(value, schema, "", errors)
    return errors


_TYPE_NAMES = {
    "string": (str,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _type_ok(value: Any, type_: str) -> bool:
    if type_ == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if type_ == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    expected = _TYPE_NAMES.get(type_)
    return expected is None or isinstance(value, expected)


def _check(value: Any, schema: dict[str, Any], path: str, errors: list[FieldError]) -> None:
    where = path or "<root>"
    if value is None:
        if not schema.get("nullable") and schema.get("type"):
            errors.append(
                FieldError(
                    "TypeInvalid",
                    where,
                    f'{where} in body must be of type {schema["type"]}: "null"',
                    "null",
                )
            )
        return
    if schema.get("x-kubernetes-int-or-string"):
        if not (isinstance(value, str) or _type_ok(value, "integer")):
            errors.append(
                FieldError(
                    "TypeInvalid",
                    where,
                    f"{where} in body must be of type int-or-string: {go_quote(_json_type(value))}",
                    _json_type(value),
                )
            )
        return
    type_ = schema.get("type")
    if type_ and not _type_ok(value, type_):
        named = formats.numeric_type_name(value, schema)
        expected, got = named if named is not None else (type_, _json_type(value))
        errors.append(
            FieldError(
                "TypeInvalid",
                where,
                f"{where} in body must be of type {expected}: {go_quote(got)}",
                got,
            )
        )
        return
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        errors.append(FieldError.not_supported(where, value, enum))
    _check_bounds(value, schema, where, errors)
    _check_combinators(value, schema, path, errors)
    if isinstance(value, dict):
        for required in schema.get("required") or []:
            if required not in value:
                errors.append(FieldError("Required", _join(path, required)))
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        for key, child in value.items():
            child_schema = properties.get(key)
            if child_schema is None and isinstance(additional, dict):
                child_schema = additional
            if isinstance(child_schema, dict):
                _check(child, child_schema, _join(path, key), errors)
    elif isinstance(value, list):
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                _check(item, schema["items"], f"{path}[{i}]", errors)
        _check_unique(value, schema, path, errors)


def _check_combinators(
    value: Any, schema: dict[str, Any], path: str, errors: list[FieldError]
) -> None:
    """``allOf``/``anyOf``/``oneOf``/``not``: value validations a structural schema may
    carry (their subschemas add constraints, never types of their own)."""
    where = path or "<root>"

    def passes(sub: Any) -> bool:
        found: list[FieldError] = []
        if isinstance(sub, dict):
            _check(value, sub, path, found)
        return not found

    for sub in schema.get("allOf") or []:
        if isinstance(sub, dict):
            _check(value, sub, path, errors)
    any_of = schema.get("anyOf")
    if any_of and not any(passes(sub) for sub in any_of):
        errors.append(
            FieldError("Invalid", where, "must validate at least one schema (anyOf)", value)
        )
    one_of = schema.get("oneOf")
    if one_of and sum(1 for sub in one_of if passes(sub)) != 1:
        errors.append(
            FieldError("Invalid", where, "must validate one and only one schema (oneOf)", value)
        )
    negated = schema.get("not")
    if isinstance(negated, dict) and passes(negated):
        errors.append(FieldError("Invalid", where, "must not validate the schema (not)", value))


def _check_unique(
    value: list[Any], schema: dict[str, Any], path: str, errors: list[FieldError]
) -> None:
    """``x-kubernetes-list-type``: ``set`` items and ``map`` keys must not repeat."""
    list_type = schema.get("x-kubernetes-list-type")
    if list_type not in ("set", "map"):
        return
    keys = tuple(schema.get("x-kubernetes-list-map-keys") or ())
    seen: set[str] = set()
    for i, item in enumerate(value):
        if list_type == "map":
            if not isinstance(item, dict):
                continue
            identity: Any = {k: item[k] for k in keys if k in item}
        else:
            identity = item
        # json, not orjson: YAML bodies may hold integers wider than 64 bits.
        fingerprint = json.dumps(identity, sort_keys=True, default=str)
        if fingerprint in seen:
            errors.append(FieldError("Duplicate", f"{path}[{i}]", value=identity))
        seen.add(fingerprint)


def _check_bounds(value: Any, schema: dict[str, Any], where: str, errors: list[FieldError]) -> None:
    def fail(detail: str) -> None:
        errors.append(FieldError("Invalid", where, f"{where} in body {detail}", value))

    if isinstance(value, int | float) and not isinstance(value, bool):
        if "maximum" in schema:
            if schema.get("exclusiveMaximum") and value >= schema["maximum"]:
                fail(f"should be less than {schema['maximum']}")
            elif value > schema["maximum"]:
                fail(f"should be less than or equal to {schema['maximum']}")
        if "minimum" in schema:
            if schema.get("exclusiveMinimum") and value <= schema["minimum"]:
                fail(f"should be greater than {schema['minimum']}")
            elif value < schema["minimum"]:
                fail(f"should be greater than or equal to {schema['minimum']}")
        if schema.get("multipleOf") and value % schema["multipleOf"]:
            fail(f"should be a multiple of {schema['multipleOf']}")
    elif isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(
                FieldError(
                    "TooLong", where, f"may not be more than {schema['maxLength']} bytes", value
                )
            )
        if "minLength" in schema and len(value) < schema["minLength"]:
            fail(f"should be at least {schema['minLength']} chars long")
        pattern = schema.get("pattern")
        if pattern and not re.search(pattern, value):
            fail(f"should match '{pattern}'")
        failed = formats.check(value, schema)
        if failed is not None:
            errors.append(
                FieldError(
                    "TypeInvalid",
                    where,
                    f"{where} in body must be of type {failed}: {go_quote(value)}",
                    value,
                )
            )
    elif isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(
                FieldError(
                    "TooMany", where, f"must have at most {schema['maxItems']} items", len(value)
                )
            )
        if "minItems" in schema and len(value) < schema["minItems"]:
            fail(f"should have at least {schema['minItems']} items")
    elif isinstance(value, dict):
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            fail(f"should have at most {schema['maxProperties']} properties")
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            fail(f"should have at least {schema['minProperties']} properties")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number" if isinstance(value, float) and not value.is_integer() else "integer"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
