r"""Request bodies and write options: the size limit, JSON/YAML decoding, content-type
defaults, ``dryRun`` and ``fieldValidation``.

Entry points: ``read_body`` and ``decode_body``; failures are ``StatusError``\ s
(413 too large, 400 malformed) like the real server's. The size limit is the app's
``BODY_LIMIT`` (``--max-request-bytes``), 3 MiB unless set; decoding, with its depth
and alias limits, is ``decoding``'s.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.endpoints.decoding import DecodeError, decode_json, decode_yaml
from kubeforge.apiserver.failures import FieldError

__all__ = [
    "APPLY_PATCH",
    "BODY_LIMIT",
    "MAX_BODY_BYTES",
    "body_content_type",
    "decode_body",
    "dry_run_requested",
    "field_validation",
    "read_body",
]

MAX_BODY_BYTES = 3 * 1024 * 1024
"""The real server's request body limit (``MaxRequestBodyBytes``, 3 MiB)."""

BODY_LIMIT = web.AppKey("kubeforge.body_limit", int)
"""The app's largest request body in bytes (``MAX_BODY_BYTES`` when unset)."""

APPLY_PATCH = "application/apply-patch+yaml"
_YAML_TYPES = frozenset({"application/yaml", APPLY_PATCH})


async def read_body(request: web.Request) -> bytes:
    limit = request.app.get(BODY_LIMIT, MAX_BODY_BYTES)
    if request.content_length is not None and request.content_length > limit:
        raise failures.too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(65536):
        size += len(chunk)
        if size > limit:
            raise failures.too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def decode_body(raw: bytes, content_type: str) -> Any:
    if content_type in _YAML_TYPES:
        # Most YAML bodies (server-side apply from controllers) are JSON: parse them as
        # such, many times faster, and fall back to YAML for anything else.
        if raw.lstrip()[:1] == b"{":
            try:
                return decode_json(raw)
            except DecodeError:
                pass
        try:
            return decode_yaml(raw)
        except DecodeError as error:
            raise failures.bad_request(f"error converting YAML to JSON: {error}") from None
    try:
        return decode_json(raw)
    except DecodeError as error:
        raise failures.bad_request(
            f"couldn't get version/kind; json parse error: {error}"
        ) from None


def body_content_type(request: web.Request) -> str:
    # Without a Content-Type the real server reads JSON, its first supported type
    # (the official Python client sends no Content-Type on create and update).
    if "Content-Type" not in request.headers:
        return "application/json"
    return request.content_type


# In the order the real server lists them in its error.
_FIELD_VALIDATIONS = ("Ignore", "Strict", "Warn")


def field_validation(request: web.Request) -> str:
    value = request.query.get("fieldValidation", "")
    if value not in ("", "Ignore", "Warn", "Strict"):
        unsupported = FieldError.not_supported("fieldValidation", value, _FIELD_VALIDATIONS)
        raise failures.bad_request(str(unsupported))
    return value


def dry_run_requested(request: web.Request) -> bool:
    values = request.query.getall("dryRun", [])
    for value in values:
        if value != "All":
            raise failures.bad_request(str(FieldError.not_supported("dryRun", value, ("All",))))
    return bool(values)
