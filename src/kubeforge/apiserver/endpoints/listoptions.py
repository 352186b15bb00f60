"""List options read as the real server reads them, and the two odd answers of a list.

``parse_resource_version`` is the storage versioner's ``strconv.ParseUint`` and
``parse_int64`` the parameter codec's ``ParseInt`` for ``*int64`` options
(``timeoutSeconds``): what Go cannot parse is a 400 in Go's words (``"²"`` is a digit
to Python, not to Go; 5,000 digits are out of range, never a crash).
``without_type_meta`` is an item of a typed Go list; ``error_event`` a watch that ends
at once with one ``ERROR`` event.

Example::

    >>> parse_resource_version("42")
    42
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import go_quote

__all__ = ["error_event", "parse_int64", "parse_resource_version", "without_type_meta"]


_UINT64_MAX = (1 << 64) - 1
_INT64_MAX = (1 << 63) - 1


def _go_number_error(func: str, text: str, bits_max: int, signed: bool) -> str | None:
    """Go's ``strconv`` error for ``text``, or ``None`` when it parses (ASCII digits only:
    ``"²"`` is a digit to Python, not to Go; 5,000 digits are out of range, not a crash)."""
    body = text[1:] if signed and text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return f"strconv.{func}: parsing {go_quote(text)}: invalid syntax"
    if len(body) > 20 or int(body) > bits_max + (1 if text.startswith("-") else 0):
        return f"strconv.{func}: parsing {go_quote(text)}: value out of range"
    return None


def parse_resource_version(rv: str) -> int:
    """The storage versioner's ``strconv.ParseUint``: a 400 for anything else."""
    error = _go_number_error("ParseUint", rv, _UINT64_MAX, signed=False)
    if error is not None:
        raise failures.bad_request(f"Invalid value: {go_quote(rv)}: {error}")
    return int(rv)


def parse_int64(text: str) -> int:
    """A ``*int64`` list option (``timeoutSeconds``): the parameter codec's 400."""
    error = _go_number_error("ParseInt", text, _INT64_MAX, signed=True)
    if error is not None:
        raise failures.bad_request(error)
    return int(text)


def without_type_meta(item: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key not in ("apiVersion", "kind")}


async def error_event(request: web.Request, status: dict[str, Any]) -> web.StreamResponse:
    """A watch that ends at once with one ``ERROR`` event (the real ``errWatcher``)."""
    response = web.StreamResponse(status=200)
    response.content_type = "application/json"
    await response.prepare(request)
    await response.write(orjson.dumps({"type": "ERROR", "object": status}) + b"\n")
    await response.write_eof()
    return response
