"""List options read as the real server reads them, and the two odd answers of a list.

``parse_resource_version`` is the storage versioner's ``strconv.ParseUint`` and
``parse_int64`` the parameter codec's ``ParseInt`` for ``*int64`` options
(``timeoutSeconds``): what Go cannot parse is a 400 in Go's words (``"²"`` is a digit
to Python, not to Go; 5,000 digits are out of range, never a crash).
``check_list_options`` and ``check_watch_options`` are ``ValidateListOptions``' rules
on ``resourceVersionMatch``, ``continue`` and ``sendInitialEvents`` (one 422 listing
every broken rule). ``wait_for_revision`` is how a resourceVersion ahead of the store
is met: up to 3 s of waiting, then 504 ``ResourceVersionTooLarge``.
``without_type_meta`` is an item of a typed Go list; ``error_event`` a watch that ends
at once with one ``ERROR`` event.

Example::

    >>> parse_resource_version("42")
    42
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError, StatusError, go_quote
from kubeforge.apiserver.meta.queryparams import query_bool, query_optional_bool
from kubeforge.apiserver.storage.sqlite import Storage
from kubeforge.core.status import failure

__all__ = [
    "check_list_options",
    "check_watch_options",
    "error_event",
    "parse_int64",
    "parse_resource_version",
    "wait_for_revision",
    "without_type_meta",
]

_TOO_LARGE_WAIT = 3.0
_MATCH = "resourceVersionMatch"


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


def check_list_options(query: Mapping[str, str], rv: str) -> None:
    """A list's ``resourceVersionMatch``/``continue``/``sendInitialEvents`` rules: every
    broken one in one 422, then a 400 for a resourceVersion sent with ``continue``."""
    match, token = query.get(_MATCH, ""), query.get("continue", "")
    errors: list[FieldError] = []
    if match and match not in ("Exact", "NotOlderThan"):
        errors.append(FieldError.not_supported(_MATCH, match, ("Exact", "NotOlderThan", "")))
    if match and not rv:
        detail = "resourceVersionMatch is forbidden unless resourceVersion is provided"
        errors.append(FieldError("Forbidden", _MATCH, detail))
    if match and token:
        detail = "resourceVersionMatch is forbidden when continue is provided"
        errors.append(FieldError("Forbidden", _MATCH, detail))
    if match == "Exact" and rv == "0":
        detail = 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'
        errors.append(FieldError("Forbidden", _MATCH, detail))
    if "sendInitialEvents" in query:
        detail = "sendInitialEvents is forbidden for list"
        errors.append(FieldError("Forbidden", "sendInitialEvents", detail))
    if errors:
        raise _list_options_invalid(errors)
    if token and rv and rv != "0":
        raise failures.bad_request("specifying resource version is not allowed when using continue")


def check_watch_options(query: Mapping[str, str]) -> tuple[bool | None, bool]:
    """A watch's ``sendInitialEvents`` rules (one 422 listing every broken one); returns
    ``(sendInitialEvents, allowWatchBookmarks)``."""
    match = query.get(_MATCH, "")
    send_initial = query_optional_bool(query, "sendInitialEvents")
    bookmarks = query_bool(query, "allowWatchBookmarks")
    errors: list[FieldError] = []
    if send_initial is None and match:
        detail = "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"
        errors.append(FieldError("Forbidden", _MATCH, detail))
    if send_initial is not None:
        if match != "NotOlderThan":
            detail = "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
            errors.append(FieldError("Forbidden", _MATCH, detail))
        if not bookmarks:
            detail = "sendInitialEvents requires setting allowWatchBookmarks to true"
            errors.append(FieldError("Forbidden", "allowWatchBookmarks", detail))
    if errors:
        raise _list_options_invalid(errors)
    return send_initial, bookmarks


async def wait_for_revision(storage: Storage, revision: int) -> None:
    """Wait (up to 3 s, like the real server) for the store to reach ``revision``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _TOO_LARGE_WAIT
    while storage.revision < revision:
        if loop.time() >= deadline:
            raise _too_large(revision, storage.revision)
        await asyncio.sleep(0.05)


def _too_large(revision: int, current: int) -> StatusError:
    message = f"Timeout: Too large resource version: {revision}, current: {current}"
    cause = {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
    return StatusError(
        failure(504, "Timeout", message, {"causes": [cause], "retryAfterSeconds": 1})
    )


def _list_options_invalid(errors: list[FieldError]) -> StatusError:
    return failures.invalid("ListOptions", "meta.k8s.io", "", errors)
