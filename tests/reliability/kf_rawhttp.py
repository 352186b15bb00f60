"""Raw HTTPS requests to a ``LocalApiServer``, synchronous, for bodies no client would send.

``call(server, method, path, body, ...)`` -> ``(status, decoded JSON or None)``.
Synchronous on purpose: hypothesis drives it example by example.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

from kubeforge.testing import LocalApiServer

__all__ = ["call"]


def call(
    server: LocalApiServer,
    method: str,
    path: str,
    body: bytes | None = None,
    *,
    content_type: str = "application/json",
    token: str | None = "server",
    timeout: float = 30.0,
) -> tuple[int, Any]:
    """One request; ``token="server"`` sends the server's own token, ``None`` none."""
    connection = http.client.HTTPSConnection(
        "127.0.0.1", server.port, context=server.ssl_context(), timeout=timeout
    )
    headers = {"Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = content_type
    if token is not None:
        headers["Authorization"] = f"Bearer {server.token if token == 'server' else token}"
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    try:
        decoded = json.loads(data) if data else None
    except ValueError:
        decoded = None
    return response.status, decoded
