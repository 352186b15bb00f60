"""JSON and Table responses (``json_response``, ``table_response``) and ``Warning`` headers
(``add_warnings``), shared by the handlers.

A request's warnings live on the request (``request_warnings``), not on its answer: like
k8s.io/apiserver's warning recorder, ``send_request_warnings`` writes them when any answer
goes out, a failure's included (a 422 still says what was warned of before it)."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

__all__ = [
    "add_warnings",
    "json_response",
    "request_warnings",
    "send_request_warnings",
    "table_response",
]

_WARNINGS = "warnings"


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, content_type="application/json")


def table_response(tables: Any, body: Any, status: int = 200) -> web.Response:
    """A ``meta.k8s.io/v1`` Table, with the content type that tells clients so."""
    content_type = getattr(tables, "TABLE_CONTENT_TYPE", "application/json")
    return web.Response(
        body=orjson.dumps(body), status=status, headers={"Content-Type": content_type}
    )


def add_warnings(response: web.StreamResponse, warnings: list[str]) -> None:
    """RFC 7234 ``Warning`` headers, code 299, once each and in order, as the real server
    sends them. Text a header cannot carry (control characters, non-ASCII: field names in
    a request body may hold anything) is escaped, so the answer always goes out."""
    for warning in dict.fromkeys(warnings):
        escaped = warning.replace("\\", "\\\\")
        escaped = escaped.encode("ascii", "backslashreplace").decode("ascii")
        escaped = "".join(c if " " <= c <= "~" else f"\\x{ord(c):02x}" for c in escaped)
        escaped = escaped.replace('"', '\\"')
        response.headers.add("Warning", f'299 - "{escaped}"')


def request_warnings(request: web.Request) -> list[str]:
    """The request's warnings, which its handler and the code it calls append to."""
    warnings: list[str] | None = request.get(_WARNINGS)
    if warnings is None:
        warnings = request[_WARNINGS] = []
    return warnings


async def send_request_warnings(request: web.Request, response: web.StreamResponse) -> None:
    """Headers go out at prepare (an ``on_response_prepare`` hook): every answer about a
    deprecated CRD version warns, errors and watches included, first, as the CRD handler
    records it before serving; then what the request itself was warned of."""
    warnings = list(request.get(_WARNINGS) or ())
    served = request.get("served")
    deprecation = getattr(served, "deprecation_warning", None)
    if deprecation:
        warnings.insert(0, deprecation)
    add_warnings(response, warnings)
