"""The object a create, update or namespace ``finalize`` sends, decoded and checked.

The body is decoded by its content type (JSON, YAML or Kubernetes protobuf; anything
else is a 415 listing the accepted types), must decode into the kind's Go types
(``typecheck``), is checked for duplicate fields when ``fieldValidation`` asks, and
must name the URL's kind and version (a custom resource must name both), with the real
server's 400 messages.

Entry point: ``read_object(request, served, warnings)``.
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.endpoints import protobody
from kubeforge.apiserver.endpoints.bodies import (
    body_content_type,
    decode_body,
    field_validation,
    read_body,
)
from kubeforge.apiserver.endpoints.typecheck import check_decodable
from kubeforge.apiserver.meta.fieldvalidation import check_duplicates
from kubeforge.apiserver.protobuf import wire
from kubeforge.apiserver.registry.served import ServedResource

__all__ = ["read_object"]

_BODY_TYPES = ("application/json", "application/yaml")
_PROTOBUF = "application/vnd.kubernetes.protobuf"


async def read_object(
    request: web.Request, served: ServedResource, warnings: list[str] | None = None
) -> dict[str, Any]:
    """The request's body as an object of ``served``'s kind (``{}`` for an empty one);
    duplicate-field warnings go to ``warnings``."""
    content_type = body_content_type(request)
    accepted = (*_BODY_TYPES, _PROTOBUF)
    raw: bytes | None = None
    if content_type == _PROTOBUF:
        info = served.info
        try:
            body = protobody.decode_protobuf(await read_body(request), info.api_version, info.kind)
        except wire.UnsupportedKind:
            raise failures.unsupported_media_type(content_type, accepted) from None
    elif content_type in _BODY_TYPES:
        raw = await read_body(request)
        body = decode_body(raw, content_type)
        if content_type != "application/json":
            raw = None
    else:
        raise failures.unsupported_media_type(content_type, accepted)
    body = {} if body is None else body
    check_decodable(served, body, raw)
    if raw is not None:
        check_duplicates(raw, served.info, field_validation(request), warnings)
    _check_type(served, body)
    return body


def _check_type(served: ServedResource, body: dict[str, Any]) -> None:
    info = served.info
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if not served.builtin and (not api_version or not kind):
        missing = "Kind" if not kind else "Version"
        raise failures.bad_request(
            f"Object '{missing}' is missing in '{orjson.dumps(body).decode()[:1024]}'"
        )
    if api_version and api_version != info.api_version:
        raise failures.bad_request(
            f"the API version in the data ({api_version}) does not match the expected API "
            f"version ({info.api_version})"
        )
    if kind and kind != info.kind:
        raise failures.bad_request(
            f"the kind in the data ({kind}) does not match the expected kind ({info.kind})"
        )
