"""The OpenAPI v3 schemas of Kubernetes 1.32's built-in types, as the real server publishes them.

Read from ``builtin_openapi.json.gz`` (written by ``generate`` from the pinned
1.32 definitions) on the first OpenAPI request, and kept: every built-in kind with all
its fields, descriptions, ``required`` lists, formats, list types and map keys, and the
strategic-merge-patch extensions kubectl computes client-side ``apply`` patches from.

Entry points: ``real_schemas()`` (name -> schema; shared, never to be mutated),
``kind_name(group, version, kind)`` (the schema a GVK is published under, if it is a
1.32 type), ``with_references(schemas, *nodes)`` (adds every schema the given nodes
refer to, transitively, so a document is self-contained) and ``ref(name, description)``.
"""

from __future__ import annotations

import functools
import gzip
import re
from importlib import resources
from typing import Any

import orjson

__all__ = ["META", "SCALE", "V3_REF", "kind_name", "real_schemas", "ref", "with_references"]

META = "io.k8s.apimachinery.pkg.apis.meta.v1."
SCALE = "io.k8s.api.autoscaling.v1.Scale"
V3_REF = "#/components/schemas/"
_DATA = "builtin_openapi.json.gz"
_REFERENCE = re.compile(rb'"\$ref":"#/components/schemas/([^"]+)"')


def ref(name: str, description: str = "") -> dict[str, Any]:
    """A reference to ``components.schemas[name]``, wrapped in ``allOf`` when described."""
    target = {"$ref": V3_REF + name}
    if not description:
        return target
    return {"allOf": [target], "default": {}, "description": description}


@functools.cache
def real_schemas() -> dict[str, dict[str, Any]]:
    """Every 1.32 type's v3 schema by its published name (loaded once, on first use)."""
    raw = resources.files(__package__).joinpath(_DATA).read_bytes()
    schemas: dict[str, dict[str, Any]] = orjson.loads(gzip.decompress(raw))
    return schemas


@functools.cache
def _kinds() -> dict[tuple[str, str, str], str]:
    found: dict[tuple[str, str, str], str] = {}
    for name, schema in real_schemas().items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or []:
            key = (gvk["group"], gvk["version"], gvk["kind"])
            # meta/v1 types such as DeleteOptions claim a GVK in every group; the
            # group's own type of that kind wins.
            if key not in found or (found[key].startswith(META) and not name.startswith(META)):
                found[key] = name
    return found


def kind_name(group: str, version: str, kind: str) -> str | None:
    """The ``components.schemas`` name of a 1.32 kind, or ``None`` for any other kind."""
    return _kinds().get((group, version, kind))


@functools.cache
def _references(name: str) -> frozenset[str]:
    return frozenset(m.decode() for m in _REFERENCE.findall(orjson.dumps(real_schemas()[name])))


def with_references(schemas: dict[str, Any], *nodes: Any) -> dict[str, Any]:
    """``schemas`` plus every 1.32 schema that it or ``nodes`` refer to, transitively.

    A name already in ``schemas`` is kept as it is; a referenced name that is neither
    there nor a 1.32 type stays unresolved (the caller's bug, caught by tests).
    """
    out = dict(schemas)
    pending = {m.decode() for m in _REFERENCE.findall(orjson.dumps([schemas, nodes]))}
    real = real_schemas()
    while pending:
        name = pending.pop()
        if name in out or name not in real:
            continue
        out[name] = real[name]
        pending |= _references(name) - out.keys()
    return out
