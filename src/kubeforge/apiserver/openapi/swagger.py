"""Schemas for ``/openapi/v2``: OpenAPI v3 schemas turned into Swagger 2.0 definitions.

``from_v3(schema)`` rewrites one ``components.schemas`` entry the way the real server
publishes schemas in v2: ``$ref``\\ s point into ``#/definitions/``, a described
reference (``allOf: [$ref]``) becomes a plain ``$ref`` with its description, and the
v3-only constructs kubectl's v2 parser cannot read are dropped (``oneOf``/``anyOf``/
``not``, ``nullable`` values lose their type, preserved-unknown objects their
properties, arrays without items their type), which only ever loosens validation:
``IntOrString`` and ``Quantity`` (``oneOf`` in v3) accept any value. Built-in types
arrive here as the real 1.32 schemas, strategic-merge hints (``x-kubernetes-patch-
strategy``/``-merge-key``) included: kubectl computes client-side ``apply`` patches
from v2 when it finds a kind there, and without those a removed container, finalizer
or owner reference would silently stay.
"""

from __future__ import annotations

from typing import Any

__all__ = ["V2_REF", "from_v3"]

V2_REF = "#/definitions/"
_V3_REF = "#/components/schemas/"

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
