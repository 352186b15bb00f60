"""``/openapi/v2``: one Swagger 2.0 document for every group/version, built from the v3 ones.

kubectl reads v2 in two places even when v3 is served: client-side validation when the
field-validation probe finds no resource path (a ``kind: List`` file, as ``kubectl get
-o yaml`` writes), and client-side ``apply``, which computes strategic merge patches
from the v2 schema of a kind before falling back to its compiled-in types. Both look a
kind up by the ``x-kubernetes-group-version-kind`` extension of ``definitions``.

The document is the union of the server's v3 documents: ``components.schemas`` become
``definitions`` (see ``swagger`` for how schemas change on the way; built-in
kinds keep the real 1.32 fields and merge keys), and every operation of
``paths`` keeps its ``x-kubernetes-action`` and GVK, with its request body turned into a
``body`` parameter and its media types into ``consumes``/``produces``.

Entry point: ``SwaggerDocuments(source)``, ``source`` returning the current v3 documents
as ``(path, body, hash)``; ``current()`` gives a ``Rendered`` whose JSON is built when the
v3 documents change and whose protobuf (gnostic ``openapi.v2.Document``) is built on the
first request for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from kubeforge.apiserver.openapi import gnostic
from kubeforge.apiserver.openapi.swagger import from_v3

__all__ = ["PROTOBUF", "PROTOBUF_ANSWER", "Rendered", "SwaggerDocuments", "swagger_document"]

PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PROTOBUF_ANSWER = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
VERSION = "v1.32.4"

Source = Callable[[], list[tuple[str, bytes, str]]]
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")


def _parameter(parameter: dict[str, Any]) -> dict[str, Any]:
    """A v3 path or query parameter: its schema's type folded into the parameter itself."""
    keys = ("name", "in", "description", "required")
    out: dict[str, Any] = {k: parameter[k] for k in keys if k in parameter}
    schema = parameter.get("schema") or {}
    out.update({k: schema[k] for k in ("type", "uniqueItems", "format") if k in schema})
    return out


def _first_schema(content: dict[str, Any]) -> dict[str, Any] | None:
    for media in content.values():
        if isinstance(media, dict) and "schema" in media:
            schema: dict[str, Any] = from_v3(media["schema"])
            return schema
    return None


def _operation(operation: dict[str, Any]) -> dict[str, Any]:
    keys = ("tags", "summary", "description", "operationId")
    out: dict[str, Any] = {k: operation[k] for k in keys if k in operation}
    body = operation.get("requestBody")
    out["consumes"] = list(body.get("content", {})) if body else ["*/*"]
    produces: list[str] = []
    responses: dict[str, Any] = {}
    for code, response in operation.get("responses", {}).items():
        content = response.get("content") or {}
        produces.extend(media for media in content if media not in produces)
        converted = {"description": response.get("description", "")}
        schema = _first_schema(content)
        if schema is not None:
            converted["schema"] = schema
        responses[code] = converted
    out["produces"] = produces or ["application/json"]
    out["schemes"] = ["https"]
    parameters = [_parameter(p) for p in operation.get("parameters", [])]
    if body:
        schema = _first_schema(body.get("content", {})) or {}
        parameters.insert(
            0,
            {
                "name": "body",
                "in": "body",
                "required": bool(body.get("required")),
                "schema": schema,
            },
        )
    if parameters:
        out["parameters"] = parameters
    out["responses"] = responses
    out.update({k: v for k, v in operation.items() if k.startswith("x-")})
    return out


def _path_item(item: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {m: _operation(item[m]) for m in _METHODS if m in item}
    if item.get("parameters"):
        out["parameters"] = [_parameter(p) for p in item["parameters"]]
    return out


def swagger_document(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """The Swagger 2.0 document of the given OpenAPI v3 group/version ``documents``."""
    paths: dict[str, Any] = {}
    converted: dict[str, dict[str, Any]] = {}
    for document in documents:
        for path, item in document.get("paths", {}).items():
            paths[path] = _path_item(item)
        for name, schema in document.get("components", {}).get("schemas", {}).items():
            if name not in converted:  # the meta/v1 schemas repeat in every document
                converted[name] = from_v3(schema)
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": VERSION},
        "paths": dict(sorted(paths.items())),
        "definitions": dict(sorted(converted.items())),
        "securityDefinitions": {
            "BearerToken": {
                "type": "apiKey",
                "name": "authorization",
                "in": "header",
                "description": "Bearer Token authentication",
            }
        },
        "security": [{"BearerToken": []}],
    }


def _etag(body: bytes) -> str:
    return hashlib.sha512(body).hexdigest().upper()


@dataclass(slots=True)
class Rendered:
    """One version of the document: JSON now, protobuf the first time someone asks."""

    key: tuple[tuple[str, str], ...]
    json: bytes
    json_etag: str
    _protobuf: tuple[bytes, str] | None = field(default=None)

    def protobuf(self) -> tuple[bytes, str]:
        """The gnostic protobuf bytes and their ETag."""
        if self._protobuf is None:
            # Parsed again rather than kept: the document as objects is several times
            # the size of its JSON, and most clients never ask for this form.
            body = gnostic.encode(orjson.loads(self.json))
            self._protobuf = (body, _etag(body))
        return self._protobuf


class SwaggerDocuments:
    """The v2 document, rebuilt only when some v3 document's hash changes."""

    def __init__(self, source: Source) -> None:
        self._source = source
        self._rendered: Rendered | None = None

    def current(self) -> Rendered:
        documents = sorted(self._source())
        key = tuple((path, digest) for path, _, digest in documents)
        if self._rendered is not None and self._rendered.key == key:
            return self._rendered
        document = swagger_document([orjson.loads(body) for _, body, _ in documents])
        body = orjson.dumps(document)
        self._rendered = Rendered(key, body, _etag(body))
        return self._rendered
