"""Generate ``builtin_proto.json``: the protobuf wire layout of every built-in kind.

Run ``python -m kubeforge.apiserver.protobuf.generate`` (``--check`` only compares and
exits 1 when the committed table is stale). Development tool only: it reads the
Kubernetes 1.32 ``generated.proto`` files kept in the shared research folder
(``--source``, default ``../shared/research/k8s-proto`` beside the checkout) and the
committed OpenAPI definitions (``openapi/builtin_openapi.json.gz``) for each field's
JSON name; the server reads the generated JSON and never imports this module.

The table holds, per message (``core.v1.Pod``, ``meta.v1.ObjectMeta``, ...), its fields
as ``[number, json name, type, mode]``: ``type`` is a proto scalar (``string``,
``int64``, ...) or another message's short name; ``mode`` holds ``*`` for a repeated
field, ``m`` for a ``map<string, type>``, ``i`` for a Go struct embedded inline
(``Probe.handler``: its fields are the parent's in JSON), ``z`` for a scalar whose
zero JSON leaves out and ``w`` for a scalar Go writes even when zero.

The ``.proto`` files do not say which Go fields are pointers (``replicas: 0`` is kept,
``hostNetwork: false`` is not) nor which JSON tags have ``omitempty``: those facts are
in ``go_fields.json`` beside this module (message -> field numbers that are
``pointer`` / ``omitempty``), read from the Go types of the same 1.32 release; a
message it lacks falls back to the ``+optional`` comment.
``lists`` names the wrapper messages whose JSON is their one repeated field
(``ExtraValue``, ``Verbs``: ``+protobuf.nullable=true``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["OUTPUT", "default_source", "main", "parse_proto", "render"]

OUTPUT = Path(__file__).with_name("builtin_proto.json")
_OPENAPI = Path(__file__).parent.parent / "openapi" / "builtin_openapi.json.gz"
_RESEARCH = "shared/research/k8s-proto"
_GO_FIELDS = Path(__file__).with_name("go_fields.json")
KUBERNETES_VERSION = "1.32"

# Proto package prefix -> the short prefix of the table and the OpenAPI one.
_PACKAGES = (
    ("k8s.io.apimachinery.pkg.apis.meta.", "meta.", "io.k8s.apimachinery.pkg.apis.meta."),
    ("k8s.io.apimachinery.pkg.api.resource.", "resource.", "io.k8s.apimachinery.pkg.api.resource."),
    ("k8s.io.apimachinery.pkg.util.intstr.", "intstr.", "io.k8s.apimachinery.pkg.util.intstr."),
    (
        "k8s.io.apimachinery.pkg.runtime.schema.",
        "schema.",
        "io.k8s.apimachinery.pkg.runtime.schema.",
    ),
    ("k8s.io.apimachinery.pkg.runtime.", "runtime.", "io.k8s.apimachinery.pkg.runtime."),
    (
        "k8s.io.apiextensions_apiserver.pkg.apis.",
        "",
        "io.k8s.apiextensions-apiserver.pkg.apis.",
    ),
    ("k8s.io.kube_aggregator.pkg.apis.", "", "io.k8s.kube-aggregator.pkg.apis."),
    ("k8s.io.api.", "", "io.k8s.api."),
)
_FIELD = re.compile(
    r"^\s*(?:(optional|repeated)\s+([\w.]+)|map<\s*string\s*,\s*([\w.]+)\s*>)\s+(\w+)\s*=\s*(\d+)\s*;"
)
_MESSAGE = re.compile(r"^message\s+(\w+)\s*\{")
_PACKAGE = re.compile(r"^package\s+([\w.]+)\s*;")
_SCALARS = frozenset({"string", "bytes", "bool", "int32", "int64", "double", "float", "uint32"})


def default_source() -> Path:
    """The shared research folder beside the checkout (or beside one of its parents)."""
    for folder in Path(__file__).resolve().parents[4:]:
        if (folder / _RESEARCH).is_dir():
            return folder / _RESEARCH
    return Path(__file__).resolve().parents[5] / _RESEARCH


def _short(full: str) -> str:
    full = full.lstrip(".")
    for proto, short, _ in _PACKAGES:
        if full.startswith(proto):
            return short + full[len(proto) :]
    raise ValueError(f"unknown proto package of {full}")


def _openapi_name(short: str) -> str:
    api_group = re.match(r"[\w-]+\.v\d", short) is not None  # resource.v1beta1 is not resource.
    for _, prefix, openapi in _PACKAGES:
        if prefix and short.startswith(prefix) and (prefix == "meta." or not api_group):
            return openapi + short[len(prefix) :]
    if short.startswith(("apiextensions.", "apiregistration.")):
        owner = (
            "apiextensions-apiserver" if short.startswith("apiextensions.") else "kube-aggregator"
        )
        return f"io.k8s.{owner}.pkg.apis.{short}"
    return "io.k8s.api." + short


def parse_proto(text: str) -> dict[str, dict[str, Any]]:
    """``{short message name: {"fields": [(number, name, type, mode)], "list": bool}}``."""
    package, messages = "", {}
    current: dict[str, Any] | None = None
    comment: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if match := _PACKAGE.match(stripped):
            package = match.group(1)
        elif stripped.startswith("//"):
            comment.append(stripped)
            continue
        elif match := _MESSAGE.match(stripped):
            name = _short(f"{package}.{match.group(1)}")
            current = {"fields": [], "list": any("+protobuf.nullable=true" in c for c in comment)}
            messages[name] = current
        elif stripped == "}":
            current = None
        elif current is not None and (match := _FIELD.match(line)):
            label, kind, map_value, field, number = match.groups()
            type_name = kind or map_value
            if type_name not in _SCALARS:
                type_name = _short(type_name if "." in type_name else f"{package}.{type_name}")
            mode = "m" if map_value else ("*" if label == "repeated" else "")
            if any(c.strip("/ ") == "+optional" for c in comment):
                mode += "o"  # only a fallback: go_fields.json says what Go does
            current["fields"].append((int(number), field, type_name, mode))
        comment = []
    return messages


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _json_fields(messages: dict[str, Any], openapi: dict[str, Any], name: str) -> set[str]:
    """The JSON names of a message's fields, inline members included."""
    schema = openapi.get(_openapi_name(name)) or _sibling(openapi, name)
    if schema is not None and schema.get("properties"):
        return set(schema["properties"])
    return {field[1] for field in messages.get(name, {}).get("fields", ())}


def _sibling(openapi: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The same type in a served version of its group (versions not served in 1.32 are
    not in the OpenAPI definitions; their JSON names are the served version's)."""
    group, _, simple = name.partition(".")
    simple = simple.split(".", 1)[-1]
    prefix = _openapi_name(f"{group}.v0.")[: -len("v0.")]
    same_name = [name for name in sorted(openapi, reverse=True) if name.endswith(f".{simple}")]
    for definition in sorted(same_name, key=lambda name: not name.startswith(prefix)):
        schema: dict[str, Any] = openapi[definition]
        return schema
    return None


def _resolve(
    messages: dict[str, Any], openapi: dict[str, Any], go_fields: dict[str, Any], name: str
) -> list[list[Any]]:
    """The table rows of one message: proto names turned into JSON names."""
    known = _json_fields(messages, openapi, name)
    by_normal = {_normal(json_name): json_name for json_name in known}
    rows: list[list[Any]] = []
    for number, field, type_name, mode in messages[name]["fields"]:
        json_name = field if field in known else by_normal.get(_normal(field))
        if json_name is None and type_name in messages and "*" not in mode:
            embedded = _json_fields(messages, openapi, type_name)
            if embedded <= known or field[0].lower() + field[1:] == _lower_camel(type_name):
                json_name, mode = "", mode + "i"
        mode = _go_mode(go_fields.get(name), number, type_name, mode)
        rows.append([number, field if json_name is None else json_name, type_name, mode])
    return rows


def _go_mode(go: dict[str, list[int]] | None, number: int, type_name: str, mode: str) -> str:
    """``z``: a zero scalar on the wire is left out of the JSON (a Go value field with
    ``omitempty``); ``w``: Go writes the scalar even when zero (a value, not a pointer)."""
    if type_name not in _SCALARS or "*" in mode or "m" in mode:
        return mode.replace("o", "")
    if go is None:
        return mode.replace("o", "z")
    value = number not in go["pointer"]
    flags = ("z" if value and number in go["omitempty"] else "") + ("w" if value else "")
    return mode.replace("o", "") + flags


def _lower_camel(type_name: str) -> str:
    simple = type_name.rsplit(".", 1)[-1]
    return simple[0].lower() + simple[1:]


def render(source: Path) -> str:
    """The table as the committed JSON text."""
    messages: dict[str, dict[str, Any]] = {}
    for path in sorted(source.rglob("generated.proto")):
        messages.update(parse_proto(path.read_text()))
    with gzip.open(_OPENAPI, "rt") as handle:
        openapi = json.load(handle)
    go_fields = json.loads(_GO_FIELDS.read_text())["messages"]
    table = {
        "kubernetes": KUBERNETES_VERSION,
        "lists": sorted(name for name, message in messages.items() if message["list"]),
        "messages": {
            name: _resolve(messages, openapi, go_fields, name) for name in sorted(messages)
        },
    }
    return json.dumps(table, separators=(",", ":"), sort_keys=True) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or ``--check``) the committed table; the exit code says whether it was current."""
    parser = argparse.ArgumentParser(prog="python -m kubeforge.apiserver.protobuf.generate")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when stale")
    parser.add_argument("--source", type=Path, default=None)
    args = parser.parse_args(argv)
    text = render(args.source or default_source())
    current = OUTPUT.read_text() if OUTPUT.exists() else ""
    if args.check:
        if text != current:
            print(f"{OUTPUT.name} is stale: run python -m kubeforge.apiserver.protobuf.generate")
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
