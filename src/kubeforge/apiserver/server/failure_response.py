"""Every failure as a ``Status``: what the server answers when a request fails.

A ``StatusError`` is answered as it is; a write the database refused (a full disk) is
the real server's 500 ``InternalError`` when etcd refuses one; aiohttp's own 404 and 405
become the real server's ``NotFound`` and ``MethodNotAllowed``; anything unexpected is
logged and answered 500 ``InternalError`` (never a traceback), and the server keeps
serving.

Entry point: ``failure_response(request, failure)``, called by the app's middleware.
"""

from __future__ import annotations

import logging

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.endpoints.responses import json_response
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import WriteFailedError

__all__ = ["failure_response"]

log = logging.getLogger("kubeforge.apiserver")


def failure_response(request: web.Request, failure: Exception) -> web.Response:
    """The ``Status`` answering ``failure``."""
    if isinstance(failure, StatusError):
        return json_response(failure.status, failure.code)
    if isinstance(failure, WriteFailedError):
        # What the real server answers when etcd refuses a write ("database space
        # exceeded"): a 500 InternalError; reads and watches go on.
        return json_response(failures.internal_error(str(failure)).status, 500)
    if isinstance(failure, web.HTTPNotFound):
        return json_response(failures.resource_not_found().status, 404)
    if isinstance(failure, web.HTTPMethodNotAllowed):
        refused = failures.method_not_allowed(
            None, "the server does not allow this method on the requested resource"
        )
        return json_response(refused.status, 405)
    if isinstance(failure, web.HTTPException):
        return json_response(_http_status(failure), failure.status)
    # The last line of defence: log, answer a Status, keep serving.
    log.error("unexpected error serving %s %s", request.method, request.path, exc_info=failure)
    return json_response(failures.internal_error(type(failure).__name__).status, 500)


def _http_status(failure: web.HTTPException) -> dict[str, object]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": failure.text or failure.reason,
        "reason": failure.reason.replace(" ", ""),
        "code": failure.status,
    }
