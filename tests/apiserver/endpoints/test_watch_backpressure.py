"""A watcher that stops reading: the server holds its events back (its socket is full)
without losing or reordering any, and without holding up the other watchers."""

from __future__ import annotations

import asyncio
import json

from kf_http import Api, configmap

# Enough bytes to fill every buffer between the server and a client that does not
# read (the client's stream and socket, the server's socket: up to 4 MiB on Linux,
# and the server's own 64 KiB), so the server has to wait for the client.
_EVENTS = 1200
_DATA = "x" * 8192
_WRITERS = 8


async def _open_watch(
    api: Api, path: str, rv: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A watch over a plain TLS connection, whose reading this test controls."""
    server = api.server
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", server.port, ssl=server.ssl_context()
    )
    query = f"watch=true&resourceVersion={rv}&timeoutSeconds=120"
    writer.write(
        f"GET {path}?{query} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), head
    assert b"transfer-encoding: chunked" in head.lower()
    return reader, writer


async def _read_events(reader: asyncio.StreamReader, count: int) -> list[tuple[str, int]]:
    """``count`` events from a chunked watch body: (name, resourceVersion)."""
    events: list[tuple[str, int]] = []
    pending = b""
    while len(events) < count:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        assert size > 0, "the stream ended early"
        pending += await reader.readexactly(size)
        assert await reader.readexactly(2) == b"\r\n"
        *lines, pending = pending.split(b"\n")
        for line in lines:
            meta = json.loads(line)["object"]["metadata"]
            events.append((meta["name"], int(meta["resourceVersion"])))
    return events


async def _read_all_events(api: Api, path: str, rv: str, count: int) -> list[tuple[str, int]]:
    events: list[tuple[str, int]] = []
    async for event in api.watch(path, resourceVersion=rv, timeoutSeconds="120"):
        meta = event["object"]["metadata"]
        events.append((meta["name"], int(meta["resourceVersion"])))
        if len(events) == count:
            break
    return events


async def test_a_watcher_that_stops_reading_gets_every_event_in_order_once_it_reads_again(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    rv = (await api.get(path)).body["metadata"]["resourceVersion"]
    stalled, connection = await _open_watch(api, path, rv)
    reading = asyncio.create_task(_read_all_events(api, path, rv, _EVENTS))
    acknowledged: list[tuple[str, int]] = []

    async def writer(n: int) -> None:
        for i in range(n, _EVENTS, _WRITERS):
            reply = await api.post(path, configmap(f"big-{i}", blob=_DATA))
            assert reply.status == 201, reply.body
            acknowledged.append((f"big-{i}", int(reply.body["metadata"]["resourceVersion"])))

    try:
        await asyncio.gather(*(writer(n) for n in range(_WRITERS)))
        # The watcher that kept reading got everything while the other one read nothing.
        expected = sorted(acknowledged, key=lambda event: event[1])
        assert await asyncio.wait_for(reading, timeout=60) == expected

        assert await asyncio.wait_for(_read_events(stalled, _EVENTS), timeout=60) == expected
    finally:
        reading.cancel()
        connection.close()
