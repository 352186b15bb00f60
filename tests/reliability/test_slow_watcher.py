"""A watcher that stops reading is cut off once its backlog passes a byte bound; the
client re-watches from the last resourceVersion it got and misses nothing.

Before, a watch that was never read made the server buffer without a byte bound (300
updates of 512 KiB: +303 MiB). A real server closes a watcher that falls too far
behind and its client re-watches (or relists on 410). Here the bound is set to 1 MiB
(``--max-watch-backlog-bytes``) and 100 ConfigMaps of 200 KiB are written while the
watcher reads nothing; then it reads what it was sent, sees the stream end, and
watches again from the last event it got: the two streams together hold every
ConfigMap exactly once, in order.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable

from kubeforge.testing import LocalApiServer
from reliability.kf_rawhttp import call

NS = "slow-watcher"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"
_WRITES = 100
_BLOB = "x" * 200_000


async def _open_watch(
    server: LocalApiServer, rv: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A watch on a socket with a small receive buffer, whose reading the test controls."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    reader, writer = await asyncio.open_connection(
        sock=sock, ssl=server.ssl_context(), server_hostname="127.0.0.1"
    )
    query = f"watch=true&resourceVersion={rv}&timeoutSeconds=300"
    writer.write(
        f"GET {CONFIGMAPS}?{query} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), head
    return reader, writer


async def _read_events(reader: asyncio.StreamReader, wanted: int) -> list[tuple[str, int]]:
    """(name, resourceVersion) of the events sent, until ``wanted`` of them or the end of
    the stream (its last chunk, or the server dropping the connection)."""
    events: list[tuple[str, int]] = []
    pending = b""
    try:
        async with asyncio.timeout(120):  # a bound on a stream that must end, not a timing
            while len(events) < wanted:
                size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                if size == 0:
                    break
                pending += await reader.readexactly(size)
                await reader.readexactly(2)
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    meta = json.loads(line)["object"]["metadata"]
                    events.append((meta["name"], int(meta["resourceVersion"])))
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        pass  # cut off mid-chunk: the server dropped the connection
    return events


async def test_a_watcher_that_stops_reading_is_cut_off_and_re_watches_without_loss(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(
        data_dir=None, extra_args=("--max-watch-backlog-bytes", str(1024 * 1024))
    )
    status, _ = call(
        server, "POST", "/api/v1/namespaces", json.dumps({"metadata": {"name": NS}}).encode()
    )
    assert status == 201
    _, listed = call(server, "GET", CONFIGMAPS)
    start = listed["metadata"]["resourceVersion"]
    reader, writer = await _open_watch(server, start)
    try:
        for i in range(_WRITES):  # the watcher reads nothing meanwhile
            body = {"metadata": {"name": f"cm-{i:03d}"}, "data": {"blob": _BLOB}}
            answer = await asyncio.to_thread(
                call, server, "POST", CONFIGMAPS, json.dumps(body).encode()
            )
            assert answer[0] == 201, answer
        first = await _read_events(reader, _WRITES)
    finally:
        writer.transport.abort()
    assert len(first) < _WRITES, "the slow watcher was never cut off"

    resume = str(first[-1][1]) if first else start
    reader, writer = await _open_watch(server, resume)
    try:
        second = await _read_events(reader, _WRITES - len(first))
    finally:
        writer.transport.abort()
    names = [name for name, _ in first + second]
    assert names == [f"cm-{i:03d}" for i in range(_WRITES)]
    assert call(server, "GET", "/readyz")[0] == 200
