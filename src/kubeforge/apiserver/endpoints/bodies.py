r"""Request bodies and write options: the 3 MiB limit, JSON/YAML decoding, content-type
defaults, ``dryRun`` and ``fieldValidation``.

Entry points: ``read_body`` and ``decode_body``; failures are ``StatusError``\ s
(413 too large, 400 malformed) like the real server's.
"""

from __future__ import annotations

from typing import Any

import orjson
import yaml
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError

__all__ = [
    "APPLY_PATCH",
    "MAX_BODY_BYTES",
    "body_content_type",
    "decode_body",
    "dry_run_requested",
    "field_validation",
    "read_body",
]

MAX_BODY_BYTES = 3 * 1024 * 1024
"""The real server's request body limit (``MaxRequestBodyBytes``, 3 MiB)."""

APPLY_PATCH = "application/apply-patch+yaml"


async def read_body(request: web.Request) -> bytes:
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise failures.too_large(MAX_BODY_BYTES)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(65536):
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise failures.too_large(MAX_BODY_BYTES)
        chunks.append(chunk)
    return b"".join(chunks)


def decode_body(raw: bytes, content_type: str) -> Any:
    if content_type == "application/yaml" or content_type == APPLY_PATCH:
        try:
            return yaml.safe_load(raw)
        except yaml.YAMLError as error:
            raise failures.bad_request(f"error converting YAML to JSON: {error}") from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
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
