"""OpenAPI: ``/openapi/v3`` (an index plus one document per group/version) and ``/openapi/v2``.

kubectl 1.32 reads OpenAPI v3 for three things, and each shapes these documents:

* ``create``/``apply``/``replace`` (default ``--validate=strict``) look for a
  **PATCH** operation whose ``x-kubernetes-group-version-kind`` is the object's
  GVK and which takes a ``fieldValidation`` query parameter. Finding it, kubectl
  leaves validation to the server; so every resource, ``namespaces`` included,
  gets such an operation with its parameters inline.
* client-side ``apply`` computes a strategic merge patch from v3 *only* when the
  PATCH operation lists ``application/strategic-merge-patch+json``. Custom
  resources must never list it (the server answers 415). Built-ins list it, as on
  a real server: their schemas are Kubernetes 1.32's own (``builtin_schemas``),
  with every patch strategy and merge key, so the patch kubectl computes from them
  removes a deleted container or env entry by its name.
* ``explain`` finds the GVK on the collection or item path's operations, then the
  schema in ``components.schemas`` whose ``x-kubernetes-group-version-kind`` list
  contains it. CRD schemas are published there as written, with ``apiVersion``,
  ``kind`` and ``metadata`` (a reference to ``ObjectMeta``) added; built-in kinds,
  the meta/v1 types and everything they refer to are the real 1.32 schemas, loaded
  from the generated data file on the first request and cached per group/version.

The index's ``serverRelativeURL`` carries a content hash: kubectl caches documents
by URL, so the hash changes whenever a group/version's resources change.

``/openapi/v2`` is one Swagger 2.0 document built from all the v3 ones
(``openapi.v2``), in JSON or, as client-go asks for it, gnostic
protobuf. kubectl 1.32 needs it even though v3 is served: a ``kind: List`` file has
no resource path for the field-validation probe, so kubectl validates it client-side
against the v2 definitions; and client-side ``apply`` looks a built-in kind up there
for its strategic-merge keys before using its compiled-in types. Both forms carry an
ETag (``If-None-Match`` answers 304) and are rebuilt only when a v3 document changes.

Entry points: ``add_routes(app, registry)`` and ``OpenApiDocuments``.
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver.negotiation import MediaRange, media_ranges
from kubeforge.apiserver.openapi import builtin_schemas
from kubeforge.apiserver.openapi.paths import resource_paths
from kubeforge.apiserver.openapi.v2 import PROTOBUF, PROTOBUF_ANSWER, SwaggerDocuments
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.core.status import failure

__all__ = ["OpenApiDocuments", "add_routes", "group_version_document", "schema_name"]

_OBJECT_META = builtin_schemas.META + "ObjectMeta"
_LIST_META = builtin_schemas.META + "ListMeta"
_BUILTIN_PACKAGES = {
    "": "io.k8s.api.core",
    "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
    "apiregistration.k8s.io": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
}


def schema_name(served: ServedResource, kind: str | None = None) -> str:
    """The ``components.schemas`` key of a kind, named the way the real server names it.

    >>> from kubeforge.core.resource import ResourceInfo
    >>> info = ResourceInfo(group="example.com", version="v1", kind="PodToIp", plural="podtoips")
    >>> schema_name(ServedResource(info=info, builtin=False))
    'com.example.v1.PodToIp'
    """
    info = served.info
    kind = kind or info.kind
    if served.builtin:
        real = builtin_schemas.kind_name(info.group, info.version, kind)
        if real is not None:
            return real
        package = _BUILTIN_PACKAGES.get(info.group)
        if package is None:
            package = "io.k8s.api." + info.group.removesuffix(".k8s.io").split(".")[0]
    else:
        package = ".".join(reversed(info.group.split(".")))
    return f"{package}.{info.version}.{kind}"


def group_version_document(
    group: str, version: str, served: list[ServedResource]
) -> dict[str, Any]:
    """The OpenAPI 3.0 document for one group/version serving ``served``."""
    schemas: dict[str, Any] = {}
    paths: dict[str, Any] = {}
    real = builtin_schemas.real_schemas()
    for item in sorted(served, key=lambda r: r.info.plural):
        name, list_name = schema_name(item), schema_name(item, item.info.list_kind)
        if not (item.builtin and name in real):
            schemas[name] = _kind_schema(item)
        if not (item.builtin and list_name in real) and "list" in item.verbs:
            schemas[list_name] = _list_schema(item, name)
        paths.update(resource_paths(item, name, list_name))
    # Built-in kinds, meta/v1 and every type they use come from the 1.32 definitions.
    schemas = builtin_schemas.with_references(
        schemas, paths, [builtin_schemas.ref(n) for n in _kind_names(served)]
    )
    is_crd = any(not item.builtin for item in served)
    title = "Kubernetes CRD Swagger" if is_crd else "Kubernetes"
    return {
        "openapi": "3.0.0",
        "info": {"title": title, "version": "v0.1.0" if is_crd else "v1.32.4"},
        "paths": paths,
        "components": {"schemas": dict(sorted(schemas.items()))},
    }


def _kind_names(served: list[ServedResource]) -> list[str]:
    names = []
    for item in served:
        if item.builtin:
            names += [schema_name(item), schema_name(item, item.info.list_kind)]
    return names


def _gvk(served: ServedResource, kind: str | None = None) -> dict[str, str]:
    info = served.info
    return {"group": info.group, "kind": kind or info.kind, "version": info.version}


def _common_properties(served: ServedResource) -> dict[str, Any]:
    return {
        "apiVersion": {
            "type": "string",
            "description": f"The versioned schema of this object: {served.info.api_version}.",
        },
        "kind": {"type": "string", "description": f"The kind of this object: {served.info.kind}."},
        "metadata": builtin_schemas.ref(_OBJECT_META, "Standard object metadata."),
    }


def _kind_schema(served: ServedResource) -> dict[str, Any]:
    """A CRD's schema as written; for a built-in outside the 1.32 types, an open object."""
    if served.schema is not None:
        schema = copy.deepcopy(served.schema)
        schema.setdefault("type", "object")
        properties = schema.setdefault("properties", {})
        # The CRD may restrict metadata.name; clients still expect the full ObjectMeta here.
        properties.update(_common_properties(served))
    else:
        schema = {
            "type": "object",
            "description": f"A {served.info.kind}.",
            "properties": _common_properties(served),
            "x-kubernetes-preserve-unknown-fields": True,
        }
    schema["x-kubernetes-group-version-kind"] = [_gvk(served)]
    return schema


def _list_schema(served: ServedResource, item_schema: str) -> dict[str, Any]:
    kind = served.info.list_kind
    return {
        "type": "object",
        "description": f"{kind} is a list of {served.info.kind}.",
        "required": ["items"],
        "properties": {
            "apiVersion": _common_properties(served)["apiVersion"],
            "items": {
                "type": "array",
                "description": f"The {served.info.plural}.",
                "items": builtin_schemas.ref(item_schema),
            },
            "kind": {"type": "string", "description": f"The kind of this list: {kind}."},
            "metadata": builtin_schemas.ref(_LIST_META, "Standard list metadata."),
        },
        "x-kubernetes-group-version-kind": [_gvk(served, kind)],
    }


@dataclass(frozen=True, slots=True)
class _Rendered:
    fingerprint: bytes
    body: bytes
    hash: str


def _code_name(value: object) -> str:
    """What stands in the fingerprint for code (a built-in printer's row function): its name."""
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value))}"


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


class OpenApiDocuments:
    """Renders and caches the v3 documents; a document is rebuilt only when its resources change."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._cache: dict[str, _Rendered] = {}

    def _by_path(self) -> dict[str, tuple[str, str, list[ServedResource]]]:
        grouped: dict[str, tuple[str, str, list[ServedResource]]] = {}
        for served in self._registry.resources():
            key = _gv_path(served.info.group, served.info.version)
            grouped.setdefault(key, (served.info.group, served.info.version, []))[2].append(served)
        return grouped

    def _render(
        self, path: str, group: str, version: str, served: list[ServedResource]
    ) -> _Rendered:
        # orjson serialises the frozen dataclasses field by field, which makes a cheap
        # and exact fingerprint of everything the document is built from.
        fingerprint = orjson.dumps(served, option=orjson.OPT_SORT_KEYS, default=_code_name)
        cached = self._cache.get(path)
        if cached is not None and cached.fingerprint == fingerprint:
            return cached
        body = orjson.dumps(group_version_document(group, version, served))
        rendered = _Rendered(fingerprint, body, hashlib.sha512(body).hexdigest().upper())
        self._cache[path] = rendered
        return rendered

    def index(self) -> dict[str, Any]:
        """``GET /openapi/v3``: where each group/version document lives, with its hash."""
        paths = {}
        for path, _, digest in self.documents():
            paths[path] = {"serverRelativeURL": f"/openapi/v3/{path}?hash={digest}"}
        return {"paths": paths}

    def documents(self) -> list[tuple[str, bytes, str]]:
        """Every current document as ``(path, JSON bytes, hash)``; forgets removed ones."""
        out = []
        grouped = self._by_path()
        for path, (group, version, served) in grouped.items():
            rendered = self._render(path, group, version, served)
            out.append((path, rendered.body, rendered.hash))
        for stale in set(self._cache) - set(grouped):
            del self._cache[stale]
        return out

    def document(self, path: str) -> tuple[bytes, str] | None:
        """The JSON bytes and hash of one document (``api/v1``, ``apis/g/v``), or ``None``."""
        entry = self._by_path().get(path)
        if entry is None:
            return None
        rendered = self._render(path, *entry)
        return rendered.body, rendered.hash


_HASH = re.compile(r"^[0-9A-F]+$")
# The media type client-go asks for, and the spelling answers carry (Go's MIME parser
# rejects the "@"); the real server takes either.
_V2_PROTOBUF = frozenset({PROTOBUF, PROTOBUF_ANSWER})


def add_routes(app: web.Application, registry: Registry) -> None:
    """Mount ``/openapi/v2`` and ``/openapi/v3[/...]`` on ``app``."""
    documents = OpenApiDocuments(registry)
    swagger = SwaggerDocuments(documents.documents)

    async def v2(request: web.Request) -> web.Response:
        ranges = media_ranges(request.headers.get("Accept")) or [MediaRange("*/*")]
        for wanted in ranges:
            if wanted.type in _V2_PROTOBUF:
                body, digest = swagger.current().protobuf()
                return _cacheable(request, body, digest, "no-cache", PROTOBUF_ANSWER)
            if wanted.is_json:
                rendered = swagger.current()
                return _cacheable(request, rendered.json, rendered.json_etag, "no-cache")
        return _status(406, "NotAcceptable", "only JSON and gnostic protobuf are served here")

    async def v3_index(request: web.Request) -> web.Response:
        body = orjson.dumps(documents.index())
        return _cacheable(request, body, hashlib.sha256(body).hexdigest().upper(), "no-cache")

    async def v3_document(request: web.Request) -> web.Response:
        found = documents.document(request.match_info["path"].strip("/"))
        if found is None:
            return _status(404, "NotFound", "the server could not find the requested resource")
        body, digest = found
        asked = request.query.get("hash", "")
        # A URL naming the current hash can never change, as on the real server;
        # anything else must be revalidated.
        cache = "public, immutable" if _HASH.match(asked) and asked == digest else "no-cache"
        return _cacheable(request, body, digest, cache)

    app.router.add_get("/openapi/v2", v2)
    app.router.add_get("/openapi/v3", v3_index)
    app.router.add_get("/openapi/v3/{path:.+}", v3_document)


def _cacheable(
    request: web.Request,
    body: bytes,
    digest: str,
    cache: str,
    content_type: str = "application/json",
) -> web.Response:
    """``body`` with an ETag; ``304`` when the client already holds this version."""
    etag = f'"{digest}"'
    headers = {"Content-Type": content_type, "ETag": etag, "Cache-Control": cache}
    headers["Vary"] = "Accept"
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=body, headers=headers)


def _status(code: int, reason: str, message: str) -> web.Response:
    return web.Response(
        status=code,
        body=orjson.dumps(failure(code, reason, message)),
        headers={"Content-Type": "application/json"},
    )
