"""JSON and Table responses (``json_response``, ``table_response``) and ``Warning`` headers
(``add_warnings``), shared by the handlers."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

__all__ = ["add_warnings", "json_response", "table_response"]


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
