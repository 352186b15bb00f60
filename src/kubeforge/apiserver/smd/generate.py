"""Generate ``builtin_types.json``: the structure of every built-in kind, for SSA and SMP.

Run ``python -m kubeforge.apiserver.smd.generate`` (``--check`` only compares and
exits 1 when the committed table is stale). Development tool only: it reads the
Kubernetes 1.32 OpenAPI definitions shipped (as JSON Schema) by the pinned
``kubernetes-validate`` package of the ``test`` extra; the server itself reads the
generated JSON and never imports this module or that package.

What the table keeps, per named type: every field name, and for non-scalar fields
how they merge -- list types and keys (``x-kubernetes-list-type``/``-map-keys``),
atomic maps (``x-kubernetes-map-type``), strategic-merge-patch strategies and merge
keys (``x-kubernetes-patch-strategy``/``-merge-key``). A scalar is ``"=<Go type>"``
(``=string``, ``=int32``, ``=resource.Quantity``, ...: what decoding JSON into it
accepts, see ``strict``); free-form JSON is ``"any"``.

Field specs in the JSON: ``"=<Go type>"``, ``"any"``, a type name, or an object with
``ref`` (a type with a patch strategy), ``map`` (``additionalProperties``) or
``list`` (with ``type``, ``keys``, ``strategy``, ``mergeKey``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import metadata, resources
from pathlib import Path
from typing import Any

__all__ = ["OUTPUT", "load_definitions", "main", "render"]

OUTPUT = Path(__file__).with_name("builtin_types.json")
KUBERNETES_VERSION = "1.32"
_SOURCE = "kubernetes-validate"
_SOURCE_VERSION = "1.37.0"
_REF = "#/$defs/"

# List keys the API server defaults when an item omits them (``default`` markers,
# which the JSON Schema conversion drops): server-side apply fills these in.
_KEY_DEFAULTS: dict[tuple[str, str], str] = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.EndpointPort", "protocol"): "TCP",
    ("io.k8s.api.discovery.v1.EndpointPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.HostIP", "ip"): "",
}
_ANY = frozenset(
    {
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    }
)


# Named scalar types and the Go types they decode into (the JSON Schema form gives only
# "string" or a oneOf for these).
_NAMED_SCALARS = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "=resource.Quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "=intstr.IntOrString",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "=v1.Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "=v1.MicroTime",
}


def _go_scalar(schema: dict[str, Any]) -> str:
    """The Go type a JSON Schema scalar decodes into, as ``reflect.Type.String()`` names
    it (named string and integer types show as their underlying type)."""
    types = schema.get("type")
    kinds = set(types) if isinstance(types, list) else {types}
    format_ = schema.get("format")
    if "integer" in kinds:
        return "=int32" if format_ == "int32" else "=int64"
    if "number" in kinds:
        return "=float64"
    if "boolean" in kinds:
        return "=bool"
    return "=[]uint8" if format_ == "byte" else "=string"


def _short(name: str) -> str:
    """``io.k8s.api.core.v1.PodSpec`` -> ``core.v1.PodSpec`` (group, version, type)."""
    return ".".join(name.split(".")[-3:])


def load_definitions() -> dict[str, dict[str, Any]]:
    """The Kubernetes 1.32 definitions (JSON Schema ``$defs``) of the pinned source package."""
    found = metadata.version(_SOURCE)
    if found != _SOURCE_VERSION:
        raise RuntimeError(f"{_SOURCE}=={_SOURCE_VERSION} is needed ({found} is installed)")
    folder = resources.files("kubernetes_validate") / "kubernetes-json-schema"
    path = folder / f"v{KUBERNETES_VERSION}.0-local" / "_definitions.json"
    definitions: dict[str, dict[str, Any]] = json.loads(path.read_text("utf-8"))["$defs"]
    return definitions


class _Builder:
    def __init__(self, definitions: dict[str, dict[str, Any]]) -> None:
        self.definitions = definitions
        self.types: dict[str, dict[str, Any]] = {}
        self.names: dict[str, str] = {}

    def named(self, name: str) -> Any:
        """The spec of a reference to definition ``name`` (built on first use)."""
        if name in _ANY:
            return "any"
        if name in _NAMED_SCALARS:
            return _NAMED_SCALARS[name]
        definition = self.definitions[name]
        if "properties" not in definition:
            if "additionalProperties" in definition:
                return self.spec(definition, owner=name, field="")
            types = definition.get("type") or []
            return "any" if "object" in types else _go_scalar(definition)
        short = _short(name)
        if self.names.setdefault(short, name) != name:
            raise RuntimeError(f"two definitions shorten to {short}: {name}, {self.names[short]}")
        if short not in self.types:
            entry: dict[str, Any] = {}
            self.types[short] = entry  # registered first: types may refer to themselves
            if definition.get("x-kubernetes-map-type") == "atomic":
                entry["atomic"] = True
            entry["fields"] = {
                field: self.spec(schema, owner=name, field=field)
                for field, schema in sorted(definition["properties"].items())
            }
        return short

    def spec(self, schema: dict[str, Any], *, owner: str, field: str) -> Any:
        ref = schema.get("$ref")
        strategy = schema.get("x-kubernetes-patch-strategy")
        if ref:
            target = self.named(ref.removeprefix(_REF))
            if (
                strategy
                and isinstance(target, str)
                and target != "any"
                and not target.startswith("=")
            ):
                return {"ref": target, "strategy": strategy}
            return target
        if "items" in schema:
            item = schema["items"]
            result: dict[str, Any] = {"list": self.spec(item, owner=owner, field=field)}
            list_type = schema.get("x-kubernetes-list-type", "atomic")
            result["type"] = list_type
            keys = schema.get("x-kubernetes-list-map-keys")
            if keys:
                result["keys"] = keys
                item_type = str(item.get("$ref", "")).removeprefix(_REF)
                defaults = {
                    key: _KEY_DEFAULTS[(item_type, key)]
                    for key in keys
                    if (item_type, key) in _KEY_DEFAULTS
                }
                if defaults:
                    result["keyDefaults"] = defaults
            if strategy:
                result["strategy"] = strategy
            merge_key = schema.get("x-kubernetes-patch-merge-key")
            if merge_key:
                result["mergeKey"] = merge_key
            return result
        additional = schema.get("additionalProperties")
        if isinstance(additional, dict):
            result = {"map": self.spec(additional, owner=owner, field=field)}
            if schema.get("x-kubernetes-map-type") == "atomic":
                result["atomic"] = True
            return result
        types = schema.get("type")
        if types is None and "oneOf" not in schema:
            return "any"
        if types == "object" or (isinstance(types, list) and "object" in types):
            return "any"
        return _go_scalar(schema)


def render() -> str:
    """The table as the committed JSON text (deterministic: sorted, one type per line)."""
    definitions = load_definitions()
    builder = _Builder(definitions)
    kinds: dict[str, str] = {}
    for name, definition in sorted(definitions.items()):
        for gvk in definition.get("x-kubernetes-group-version-kind") or []:
            meta = (definition.get("properties") or {}).get("metadata") or {}
            if str(meta.get("$ref", "")).endswith(".ObjectMeta"):
                key = f"{gvk['group']}/{gvk['version']}/{gvk['kind']}"
                kinds.setdefault(key, str(builder.named(name)))
    builder.named("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    lines = ["{", f'"kubernetes": "{KUBERNETES_VERSION}",', '"kinds": {']
    items = sorted(kinds.items())
    lines += [
        f"{json.dumps(k)}: {json.dumps(v)}{',' if i < len(items) - 1 else ''}"
        for i, (k, v) in enumerate(items)
    ]
    lines.append("},")
    lines.append('"types": {')
    types = sorted(builder.types.items())
    lines += [
        f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}{',' if i < len(types) - 1 else ''}"
        for i, (k, v) in enumerate(types)
    ]
    lines += ["}", "}", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kubeforge.apiserver.smd.generate")
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUTPUT.read_text("utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.name} is out of date: run python -m {__spec__.name}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
