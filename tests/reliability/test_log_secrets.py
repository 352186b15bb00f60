"""No token reaches the server's log, whatever a client sends and at every verbosity.

Attempts: the admin token in an ``Authorization`` header of 9 KiB (over aiohttp's
default line limit, within a real server's 1 MiB: answered 401) and of 70 KiB (over
the server's limit: refused), and as ``?access_token=`` in the query string (logged
by ``-v``'s request line unless redacted). A real server does not take tokens from
the query string, so that request is a 401.
"""

from __future__ import annotations

import http.client
from collections.abc import Callable

import pytest

from kubeforge.testing import LocalApiServer


def _get(server: LocalApiServer, path: str, authorization: str | None = None) -> int:
    connection = http.client.HTTPSConnection(
        "127.0.0.1", server.port, context=server.ssl_context(), timeout=30
    )
    headers = {"Authorization": authorization} if authorization is not None else {}
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    except (ConnectionError, http.client.HTTPException):
        return 0  # the server closed the connection: refused all the same
    finally:
        connection.close()


@pytest.mark.parametrize("verbosity", [(), ("-v",), ("-vv",)], ids=["default", "-v", "-vv"])
def test_oversized_headers_and_query_string_tokens_never_reach_the_log(
    kube_apiserver_factory: Callable[..., LocalApiServer], verbosity: tuple[str, ...]
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=verbosity)
    token = server.token
    within_limit = f"Bearer {token}" + "a" * 9 * 1024
    over_limit = f"Bearer {token}" + "a" * 70 * 1024

    assert _get(server, "/api", within_limit) == 401
    assert _get(server, "/api", over_limit) in (0, 400, 431)
    assert _get(server, f"/api/v1/namespaces?watch=0&access_token={token}") == 401
    assert _get(server, f"/api/v1/namespaces?ACCESS_TOKEN={token}&limit=1") == 401
    assert _get(server, "/api", f"Bearer {token}") == 200  # still serving
    server.stop()

    log = server.log()
    assert token not in log, log
    assert token[:16] not in log, "a prefix of the token is in the log"
    if verbosity:
        assert "access_token=REDACTED" in log and "ACCESS_TOKEN=REDACTED" in log, log
    assert "Traceback" not in log, log
