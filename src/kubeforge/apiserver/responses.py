"""JSON and Table responses (``json_response``, ``table_response``), shared by the handlers."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

__all__ = ["json_response", "table_response"]


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, content_type="application/json")


def table_response(tables: Any, body: Any, status: int = 200) -> web.Response:
    """A ``meta.k8s.io/v1`` Table, with the content type that tells clients so."""
    content_type = getattr(tables, "TABLE_CONTENT_TYPE", "application/json")
    return web.Response(
        body=orjson.dumps(body), status=status, headers={"Content-Type": content_type}
    )
