"""Generate ``builtin_openapi.json.gz``: the Kubernetes 1.32 OpenAPI v3 schemas of built-in types.

Run ``python -m kubeforge.apiserver.openapi.generate`` (``--check`` only compares and
exits 1 when the committed file is stale). Development tool only: it reads the
Kubernetes 1.32 definitions shipped as JSON Schema by the pinned ``kubernetes-validate``
package of the ``test`` extra; the server reads the generated file (through
``_builtin_schemas.real_schemas``) and never imports this module or that package.

The JSON Schema form is turned back into what kube-apiserver 1.32 publishes in its
``/openapi/v3`` documents:

* ``$ref`` points into ``#/components/schemas/``; a reference that carries its own
  description (or extensions) is wrapped as ``allOf: [{$ref}]`` beside them, as the
  real server writes every described field;
* the ``null`` the conversion added to every optional field's ``type`` is dropped,
  and so is the ``enum`` it pinned ``apiVersion``/``kind`` to;
* ``IntOrString`` is ``oneOf`` integer/string with format ``int-or-string``, and
  ``Quantity`` ``oneOf`` string/number, each with their real descriptions.

The file holds one JSON object, name -> schema, sorted, gzip-compressed with a zero
mtime so that regenerating it changes nothing when the source did not change.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubeforge.apiserver.smd.generate import load_definitions

__all__ = ["OUTPUT", "convert", "main", "render"]

OUTPUT = Path(__file__).with_name("builtin_openapi.json.gz")
_JSON_SCHEMA_REF = "#/$defs/"
_V3_REF = "#/components/schemas/"

_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
# The JSON Schema conversion dropped these two types' descriptions with their OpenAPI form.
_ONE_OF: dict[str, dict[str, Any]] = {
    _INT_OR_STRING: {
        "description": (
            "IntOrString is a type that can hold an int32 or a string.  When used in JSON or"
            " YAML marshalling and unmarshalling, it produces or consumes the inner type.  This"
            " allows you to have, for example, a JSON field that can accept a name or number."
        ),
        "format": "int-or-string",
        "oneOf": [{"type": "integer"}, {"type": "string"}],
    },
    _QUANTITY: {
        "description": (
            "Quantity is a fixed-point representation of a number. It provides convenient"
            " marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64()"
            " accessors. Written as a string such as 100m, 1.5Gi or 2e3, or as a plain number."
        ),
        "oneOf": [{"type": "string"}, {"type": "number"}],
    },
}


def convert(schema: Any) -> Any:
    """The OpenAPI v3 form (as the real server publishes it) of one JSON Schema node."""
    if isinstance(schema, list):
        return [convert(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "enum":
            continue  # only ever apiVersion/kind pinned by the conversion: not in the real API
        if key == "type" and isinstance(value, list):
            kept = [t for t in value if t != "null"]
            if not kept:
                continue
            value = kept[0] if len(kept) == 1 else kept
        if key == "properties":
            value = {name: convert(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "oneOf", "anyOf", "allOf", "not"):
            value = convert(value)
        out[key] = value
    ref = out.pop("$ref", None)
    if isinstance(ref, str):
        target = {"$ref": _V3_REF + ref.removeprefix(_JSON_SCHEMA_REF)}
        if not out:
            return target
        return {"allOf": [target], **out}
    return out


def _schemas() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, definition in sorted(load_definitions().items()):
        out[name] = _ONE_OF[name] if name in _ONE_OF else convert(definition)
    return out


def render() -> bytes:
    """The JSON text of the schemas (deterministic: sorted keys, one schema per line)."""
    schemas = _schemas()
    lines = ["{"]
    for i, (name, schema) in enumerate(schemas.items()):
        comma = "," if i < len(schemas) - 1 else ""
        text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        lines.append(f"{json.dumps(name)}:{text}{comma}")
    lines += ["}", ""]
    return "\n".join(lines).encode("utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kubeforge.apiserver.openapi.generate")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        # Compared uncompressed: another zlib may compress the same text differently.
        current = gzip.decompress(OUTPUT.read_bytes()) if OUTPUT.exists() else b""
        if current != text:
            print(f"{OUTPUT.name} is out of date: run python -m {__spec__.name}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
