"""The request log of ``kubeforge apiserver -v``: one line per request, two per watch.

Entry point: ``enable_request_log(app)``, called on the application before it is
frozen; it returns the ``AppRunner`` keyword arguments that turn on aiohttp's access
log with ``RequestLog`` as its writer. Nothing is installed without it, so a server
run without ``-v`` pays nothing per request.

A line carries what kube-apiserver's httplog carries at ``-v=3``, in a form meant to
be read: method, the path and query as sent, status, latency, bytes sent, the user
and the client's User-Agent::

    GET /api/v1/namespaces?limit=500 200 1.4ms 2.1KiB user=kubernetes-admin agent="kubectl/v1.32.0"

A watch is logged when its stream opens (``watch started``) and when it ends
(``watch ended after 30.0s``), never once per event. Headers other than the
User-Agent are never read, so no bearer token, client certificate or
``Impersonate-*`` value reaches the log, and bodies (Secret data) are never looked at.
Query parameters that carry credentials (``?access_token=``, as some clients send a
bearer token) are logged as ``REDACTED``.

``protocol_log`` is the logger given to aiohttp's connection handler (always, at any
verbosity): aiohttp reports a malformed request by quoting its first bytes (an
oversized ``Authorization`` header: the whole token), so its records keep only the
kind of error, at debug level, as Go's HTTP server (which logs none of them) would.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import unquote_plus

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_request import BaseRequest

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.endpoints.access import USER_KEY
from kubeforge.apiserver.server.limits import is_long_running

__all__ = [
    "SECRET_QUERY_PARAMETERS",
    "RequestLog",
    "enable_request_log",
    "format_line",
    "log",
    "protocol_log",
    "redact_uri",
]

log = logging.getLogger("kubeforge.apiserver.http")
protocol_log = logging.getLogger("kubeforge.apiserver.http.protocol")

SECRET_QUERY_PARAMETERS = frozenset(
    {"access_token", "token", "id_token", "refresh_token", "password", "client_secret"}
)
"""Query parameters whose values are never logged (compared case-insensitively)."""

_WATCH_KEY = "kubeforge.httplog.watch"


def enable_request_log(app: web.Application) -> dict[str, Any]:
    """Log ``app``'s requests; returns the ``web.AppRunner`` keyword arguments to use."""
    app.on_response_prepare.append(_watch_started)
    return {"access_log": log, "access_log_class": RequestLog}


class RequestLog(AbstractAccessLogger):
    """aiohttp's access-log writer: called once a response is complete."""

    @property
    def enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.INFO)

    def log(self, request: BaseRequest, response: web.StreamResponse, time: float) -> None:
        if request.get(_WATCH_KEY):
            # No size: a stream the client dropped never learns how much it sent.
            outcome = f"watch ended after {_duration(time)}"
        else:
            outcome = f"{_duration(time)} {_size(response.body_length)}"
        self.logger.info("%s", format_line(request, response.status, outcome))


def format_line(request: BaseRequest, status: int, outcome: str) -> str:
    """``METHOD URI STATUS OUTCOME user=NAME agent="..."``; ``user=-`` when no one
    was authenticated (health checks, 401s)."""
    user = request.get(USER_KEY)
    name = _quoted(user.name) if isinstance(user, UserInfo) else "-"
    if isinstance(user, UserInfo) and "Impersonate-User" in request.headers:
        name += " (impersonated)"  # the name is the identity requested, not the token's
    agent = json.dumps(request.headers.get("User-Agent", ""), ensure_ascii=False)
    uri = redact_uri(request.raw_path)
    return f"{request.method} {uri} {status} {outcome} user={name} agent={agent}"


def redact_uri(raw_path: str) -> str:
    """``raw_path`` with the values of credential-carrying query parameters replaced.

    >>> redact_uri("/api?watch=1&access_token=s3cr3t")
    '/api?watch=1&access_token=REDACTED'
    """
    path, sep, query = raw_path.partition("?")
    if not sep:
        return raw_path
    parts = []
    for part in query.split("&"):
        key, equals, _ = part.partition("=")
        if unquote_plus(key).lower() in SECRET_QUERY_PARAMETERS:
            part = f"{key}=REDACTED" if equals else part
        parts.append(part)
    return f"{path}?{'&'.join(parts)}"


class _WithoutRequestContent(logging.Filter):
    """Rewrites aiohttp's reports of malformed requests to name the error only."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, HttpProcessingError):
            return True
        what = record.getMessage()
        record.msg = "%s: %s (HTTP %d); its content is not logged"
        record.args = (what, type(error).__name__, error.code)
        record.exc_info = record.exc_text = None
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return protocol_log.isEnabledFor(logging.DEBUG)


protocol_log.addFilter(_WithoutRequestContent())


async def _watch_started(request: web.Request, response: web.StreamResponse) -> None:
    # A plain Response is prepared only when it is complete; a bare StreamResponse
    # opens a stream whose end may be half an hour away, so say when it begins.
    if isinstance(response, web.Response) or not is_long_running(request):
        return
    request[_WATCH_KEY] = True
    log.info("%s", format_line(request, response.status, "watch started"))


def _duration(seconds: float) -> str:
    if seconds < 1.0:
        return f"{seconds * 1000:.1f}ms"
    return f"{seconds:.1f}s"


def _size(count: int) -> str:
    if count < 1024:
        return f"{count}B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f}KiB"
    return f"{count / (1024 * 1024):.1f}MiB"


def _quoted(text: str) -> str:
    # Names are safe to show as they are unless a space or quote would blur the columns.
    if text and all(c.isprintable() and c not in ' "' for c in text):
        return text
    return json.dumps(text, ensure_ascii=False)
