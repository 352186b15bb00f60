"""Schemas for ``/openapi/v2``: OpenAPI v3 schemas turned into Swagger 2.0 definitions.

Two sources, two rules:

* ``from_v3(schema)`` rewrites one ``components.schemas`` entry the way the real server
  publishes CRD schemas in v2: ``$ref``\\ s point into ``#/definitions/``, a described
  reference (``allOf: [$ref]``) becomes a plain ``$ref`` with its description, and the
  v3-only constructs kubectl's v2 parser cannot read are dropped (``oneOf``/``anyOf``/
  ``not``, ``nullable`` values lose their type, preserved-unknown objects their
  properties, arrays without items their type), which only ever loosens validation.
* ``builtin_definitions(overlay)`` gives every built-in type of Kubernetes 1.32 with all
  its fields and their strategic-merge hints (``x-kubernetes-patch-strategy``/
  ``-merge-key``, list and map types), from the table server-side apply uses. kubectl
  computes client-side ``apply`` patches from v2 when it finds a kind there, so a
  shallow built-in schema would make it send patches without merge keys (a removed
  container, finalizer or owner reference would silently stay). Field types come from
  ``overlay`` (the server's v3 schemas) where those say more than "a scalar".
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import orjson

__all__ = ["PRIMITIVE_TYPES", "V2_REF", "builtin_definitions", "builtin_kind_names", "from_v3"]

V2_REF = "#/definitions/"
_V3_REF = "#/components/schemas/"
PRIMITIVE_TYPES = frozenset({"string", "integer", "number", "boolean"})

# What a gnostic Schema can carry; anything else (v3-only keywords) is left out.
_SCHEMA_KEYS = frozenset(
    "$ref format title description default multipleOf maximum exclusiveMaximum minimum "  # noqa: SIM905
    "exclusiveMinimum maxLength minLength pattern maxItems minItems uniqueItems maxProperties "
    "minProperties required enum additionalProperties type items allOf properties "
    "discriminator readOnly xml externalDocs example".split()
)


def from_v3(schema: Any) -> Any:
    """The Swagger 2.0 form of one OpenAPI v3 schema (a new object; ``schema`` is not changed)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key.startswith("x-") or key in _SCHEMA_KEYS:
            out[key] = value
    ref = out.pop("$ref", None)
    wrapped = out.pop("allOf", None)
    if ref is None and isinstance(wrapped, list) and len(wrapped) == 1:
        ref = wrapped[0].get("$ref") if isinstance(wrapped[0], dict) else None
    if isinstance(ref, str):
        # A reference carries its description (and extensions) only; v2 readers take
        # the referenced definition for everything else.
        kept = {k: v for k, v in out.items() if k == "description" or k.startswith("x-")}
        return {"$ref": V2_REF + ref.removeprefix(_V3_REF), **kept}
    if "properties" in out:
        out["properties"] = {name: from_v3(sub) for name, sub in out["properties"].items()}
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = from_v3(out["additionalProperties"])
    if isinstance(out.get("items"), dict):
        out["items"] = from_v3(out["items"])
    elif isinstance(out.get("items"), list):
        out.pop("items")  # tuple validation: not a structural schema
    if schema.get("nullable"):
        # As the real server does for v2: an untyped value with nothing below it.
        for key in ("type", "items", "properties"):
            out.pop(key, None)
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        out.pop("items", None)
        out.pop("properties", None)
    if out.get("type") == "array" and "items" not in out:
        del out["type"]  # kubectl's parser rejects an array without an item schema
    nullable = {
        name for name, sub in (schema.get("properties") or {}).items()
        if isinstance(sub, dict) and sub.get("nullable")
    }  # fmt: skip
    if nullable and isinstance(out.get("required"), list):
        out["required"] = [name for name in out["required"] if name not in nullable]
        if not out["required"]:
            del out["required"]
    return out


# --- built-in types from the server-side apply table ------------------------------------

_PACKAGES = {
    "core": "io.k8s.api.core",
    "meta": "io.k8s.apimachinery.pkg.apis.meta",
    "apiextensions": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
    "apiregistration": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
}


def _full_name(short: str) -> str:
    """``core.v1.PodSpec`` -> ``io.k8s.api.core.v1.PodSpec``, the name the real server uses."""
    group, version, kind = short.split(".")
    return f"{_PACKAGES.get(group, 'io.k8s.api.' + group)}.{version}.{kind}"


@functools.cache
def _table() -> dict[str, Any]:
    raw = resources.files("kubeforge.apiserver.ssa").joinpath("builtin_types.json").read_bytes()
    table: dict[str, Any] = orjson.loads(raw)
    return table


def builtin_kind_names() -> dict[tuple[str, str, str], str]:
    """``(group, version, kind)`` -> definition name, for every built-in kind of the table."""
    out: dict[tuple[str, str, str], str] = {}
    for key, short in _table()["kinds"].items():
        group, version, kind = key.split("/")
        out[(group, version, kind)] = _full_name(short)
    return out


def _field(spec: Any) -> dict[str, Any]:
    """The v2 schema of one table field spec (see ``ssa.generate`` for the format)."""
    if spec in ("scalar", "any"):
        return {}  # untyped: kubectl accepts any value there
    if isinstance(spec, str):
        return {"$ref": V2_REF + _full_name(spec)}
    if "ref" in spec:
        return {"$ref": V2_REF + _full_name(spec["ref"]), **_merge_hints(spec)}
    if "map" in spec:
        schema = {"type": "object", "additionalProperties": _field(spec["map"])}
        if spec.get("atomic"):
            schema["x-kubernetes-map-type"] = "atomic"
        return schema
    schema = {"type": "array", "items": _field(spec["list"]), **_merge_hints(spec)}
    schema["x-kubernetes-list-type"] = spec.get("type", "atomic")
    if spec.get("keys"):
        schema["x-kubernetes-list-map-keys"] = list(spec["keys"])
    return schema


def _merge_hints(spec: dict[str, Any]) -> dict[str, Any]:
    hints = {}
    if spec.get("mergeKey"):
        hints["x-kubernetes-patch-merge-key"] = spec["mergeKey"]
    if spec.get("strategy"):
        hints["x-kubernetes-patch-strategy"] = spec["strategy"]
    return hints


def _typed(table_field: dict[str, Any], v3_field: Any, resolve: dict[str, Any]) -> dict[str, Any]:
    """``table_field`` with the type and description ``v3_field`` adds, where it is sure."""
    if not isinstance(v3_field, dict):
        return table_field
    out = dict(table_field)
    if "description" in v3_field:
        out["description"] = v3_field["description"]

    def primitive(schema: Any) -> dict[str, Any] | None:
        if not isinstance(schema, dict):
            return None
        if schema.get("type") in PRIMITIVE_TYPES:
            return {k: v for k, v in schema.items() if k in ("type", "format")}
        target = resolve.get(str(schema.get("$ref", "")).removeprefix(V2_REF))
        if target is not None and target.get("type") in PRIMITIVE_TYPES:
            return {"$ref": schema["$ref"]}
        return None

    if not table_field:
        found = primitive(v3_field)
        if found is not None:
            return {
                **found,
                **({"description": out["description"]} if "description" in out else {}),
            }
    elif out.get("type") == "object" and out["additionalProperties"] == {}:
        found = primitive(v3_field.get("additionalProperties"))
        if found is not None:
            out["additionalProperties"] = found
    elif out.get("type") == "array" and out["items"] == {}:
        found = primitive(v3_field.get("items"))
        if found is not None:
            out["items"] = found
    return out


def builtin_definitions(overlay: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every built-in type as a v2 definition; ``overlay``: v2 definitions of the same names
    (converted from the server's v3 schemas) lending descriptions, scalar types and GVKs."""
    definitions: dict[str, dict[str, Any]] = {}
    for short, entry in _table()["types"].items():
        name = _full_name(short)
        v3 = overlay.get(name, {})
        v3_properties = v3.get("properties") or {}
        properties = {
            field: _typed(_field(spec), v3_properties.get(field), overlay)
            for field, spec in sorted(entry["fields"].items())
        }
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if "description" in v3:
            schema["description"] = v3["description"]
        if entry.get("atomic"):
            schema["x-kubernetes-map-type"] = "atomic"
        if "x-kubernetes-group-version-kind" in v3:
            schema["x-kubernetes-group-version-kind"] = v3["x-kubernetes-group-version-kind"]
        definitions[name] = schema
    return definitions
