"""Connections and request limits: nobody can hold the server, or lock others out.

- A connection that never finishes its TLS handshake, one that completes it and then
  says nothing, and a slowloris sending its headers a byte at a time are all closed
  by the server after ``--connection-idle-timeout``, while others are served.
- Under a hard limit of 128 open files, 200 idle connections cannot lock a client out
  for good: they are cut and the client gets in.
- ``--request-timeout`` answers 504 ``Timeout``; past ``--max-requests-inflight`` a
  user gets the real plain 429 with ``Retry-After`` while the admin
  (``system:masters``) never does; ``--min-request-timeout`` ends watches that gave
  no ``timeoutSeconds``.

Timeouts are set small here; nothing asserts how long anything took.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import yaml

from kubeforge.testing import LocalApiServer

NAMESPACES = "/api/v1/namespaces"
_BOUND = 60.0  # seconds: how long a test waits for something that must happen at all


async def _closed_by_server(reader: asyncio.StreamReader) -> bool:
    """Wait (bounded) until the server ends the connection."""
    try:
        async with asyncio.timeout(_BOUND):
            while await reader.read(4096):
                pass
    except (ConnectionError, ssl.SSLError):
        return True
    except TimeoutError:
        return False
    return True


async def _get(server: LocalApiServer, path: str, token: str | None = None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token or server.token}"}
    async with (
        aiohttp.ClientSession() as session,
        session.get(server.url + path, headers=headers, ssl=server.ssl_context()) as response,
    ):
        return response.status, await response.text()


async def test_silent_and_slow_connections_are_cut_while_others_are_served(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("--connection-idle-timeout", "1s"))
    context = server.ssl_context()

    # No TLS handshake at all.
    no_handshake, no_handshake_writer = await asyncio.open_connection("127.0.0.1", server.port)
    # A handshake, then nothing.
    silent, silent_writer = await asyncio.open_connection("127.0.0.1", server.port, ssl=context)
    # Headers a byte at a time, forever.
    slow, slow_writer = await asyncio.open_connection("127.0.0.1", server.port, ssl=context)

    async def drip() -> None:
        for byte in b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10_000:
            slow_writer.write(bytes([byte]))
            await slow_writer.drain()
            await asyncio.sleep(0.2)

    dripping = asyncio.create_task(drip())
    try:
        assert (await _get(server, NAMESPACES))[0] == 200  # served all the while
        results = await asyncio.gather(
            _closed_by_server(no_handshake), _closed_by_server(silent), _closed_by_server(slow)
        )
        assert results == [True, True, True]
        assert (await _get(server, NAMESPACES))[0] == 200
    finally:
        dripping.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError, ssl.SSLError):
            await dripping
        for writer in (no_handshake_writer, silent_writer, slow_writer):
            writer.transport.abort()


class _LimitedServer(LocalApiServer):
    """The server process under a hard limit on open files (soft = hard: nothing to raise)."""

    def __init__(self, files: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.files = files

    def _command(self) -> list[str]:
        command = super()._command()
        launcher = (
            "import os, resource, sys; "
            f"resource.setrlimit(resource.RLIMIT_NOFILE, ({self.files}, {self.files})); "
            "os.execv(sys.executable, sys.argv[1:])"
        )
        return [sys.executable, "-c", launcher, *command]


async def test_idle_connections_at_the_open_file_limit_do_not_lock_clients_out(
    tmp_path: Path,
) -> None:
    server = _LimitedServer(128, data_dir=None, extra_args=("--connection-idle-timeout", "1s"))
    server.start()
    held: list[socket.socket] = []
    try:
        for _ in range(200):  # more than the server can hold open
            held.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))

        async def answered() -> bool:
            with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                async with asyncio.timeout(5):
                    return (await _get(server, NAMESPACES))[0] == 200
            return False

        async with asyncio.timeout(_BOUND):
            while not await answered():
                await asyncio.sleep(0.2)
        assert server.running, server.log()
    finally:
        for sock in held:
            sock.close()
        server.close()


async def test_request_timeout_answers_504_timeout(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("--request-timeout", "500ms"))
    # A list at a resourceVersion the store has not reached waits for it (3 s at most).
    status, text = await _get(server, f"{NAMESPACES}?resourceVersion=999999999")
    body = json.loads(text)
    assert status == 504 and body["kind"] == "Status", body
    assert body["reason"] == "Timeout", body
    assert body["message"] == "Timeout: request did not complete within the allotted timeout"
    assert (await _get(server, NAMESPACES))[0] == 200


async def test_past_max_requests_inflight_users_get_429_and_the_admin_never_does(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("--max-requests-inflight", "1"))
    config: Any = yaml.safe_load(server.kubeconfig_for("jane").read_text())
    jane = str(config["users"][0]["user"]["token"])
    waiting = f"{NAMESPACES}?resourceVersion=999999999"  # held for up to 3 s
    first = asyncio.create_task(_get(server, waiting, jane))
    await asyncio.sleep(0.5)  # let it get in first (an ordering aid, not a timing check)
    second = await _get(server, NAMESPACES, jane)
    admin = await _get(server, NAMESPACES)
    await first
    assert second == (429, "Too many requests, please try again later.\n"), second
    assert admin[0] == 200
    assert (await _get(server, NAMESPACES, jane))[0] == 200  # the slot is free again


async def test_a_watch_without_timeout_seconds_ends_after_min_request_timeout(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("--min-request-timeout", "1"))
    headers = {"Authorization": f"Bearer {server.token}"}
    async with aiohttp.ClientSession() as session, asyncio.timeout(_BOUND):
        url = f"{server.url}{NAMESPACES}?watch=1"
        async with session.get(url, headers=headers, ssl=server.ssl_context()) as response:
            assert response.status == 200
            lines = [line async for line in response.content]  # ends when the server ends it
    events = [json.loads(line)["type"] for line in lines if line.strip()]
    assert events and set(events) == {"ADDED"}


async def test_max_request_bytes_bounds_every_body(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("--max-request-bytes", "4096"))
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}
    body = {"metadata": {"name": "big"}, "data": {"blob": "x" * 5000}}
    async with aiohttp.ClientSession() as session:
        url = f"{server.url}{NAMESPACES}/default/configmaps"
        async with session.post(
            url, json=body, headers=headers, ssl=server.ssl_context()
        ) as response:
            answer = await response.json()
    assert response.status == 413 and answer["reason"] == "RequestEntityTooLarge", answer
    assert answer["message"] == "Request entity too large: limit is 4096"
