"""Streamed answers (watches) on the client's own HTTP/1.1 connections: framings, gzip,
lines cut anywhere, error answers, backpressure and closing.

Against scripted servers, for what the local server never does (lines cut mid-chunk,
gzip, answers framed by length or by the connection's end); watches against the local
server itself are in ``test_client_watch.py``.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Awaitable, Callable

import orjson
import pytest
from aiohttp import web
from kf_scripted import scripted_server

from kubeforge.client import Client
from kubeforge.config import ClientConfig
from kubeforge.core.errors import Forbidden, TransportError
from kubeforge.models.core_v1 import ConfigMap

EVENTS = [
    {"type": "ADDED", "object": {"metadata": {"name": f"cm-{n}", "namespace": "ns"}}}
    for n in range(5)
]
BODY = b"".join(orjson.dumps(event) + b"\n" for event in EVENTS)


async def names(events: AsyncIterator[object]) -> list[str]:
    return [event.object.metadata.name async for event in events]  # type: ignore[attr-defined]


def watch(client: Client) -> AsyncIterator[object]:
    return client.api(ConfigMap, namespace="ns").watch(resource_version="1")


async def test_lines_cut_anywhere_by_chunks_arrive_whole() -> None:
    async def in_7_byte_chunks(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        for start in range(0, len(BODY), 7):
            await response.write(BODY[start : start + 7])
            await asyncio.sleep(0)
        await response.write_eof()
        return response

    async with scripted_server(in_7_byte_chunks) as srv, Client(srv.config()) as client:
        assert await names(watch(client)) == [f"cm-{n}" for n in range(5)]
        assert srv.seen[0].query[0] == ("watch", "true")
        assert srv.seen[0].headers["accept-encoding"] == ["gzip"]  # as Go's transport asks


async def test_a_gzipped_stream_is_inflated_as_it_arrives() -> None:
    async def gzipped(request: web.Request) -> web.StreamResponse:
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        response = web.StreamResponse(headers=headers)
        response.enable_chunked_encoding()
        await response.prepare(request)
        packed = gzip.compress(BODY)
        for start in range(0, len(packed), 11):
            await response.write(packed[start : start + 11])
        await response.write_eof()
        return response

    async with scripted_server(gzipped) as srv, Client(srv.config()) as client:
        assert await names(watch(client)) == [f"cm-{n}" for n in range(5)]


async def raw_server(
    answer: Callable[[asyncio.StreamWriter], Awaitable[None]],
) -> tuple[asyncio.Server, ClientConfig]:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await answer(writer)

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, ClientConfig(server=f"http://127.0.0.1:{port}")


@pytest.mark.parametrize("framing", ["length", "until close"])
async def test_a_stream_framed_by_length_or_by_the_connection_ends_cleanly(framing: str) -> None:
    async def answer(writer: asyncio.StreamWriter) -> None:
        length = f"Content-Length: {len(BODY)}\r\n" if framing == "length" else ""
        writer.write(f"HTTP/1.1 200 OK\r\n{length}Connection: close\r\n\r\n".encode())
        for start in range(0, len(BODY), 13):
            writer.write(BODY[start : start + 13])
            await writer.drain()
        writer.close()

    server, config = await raw_server(answer)
    try:
        async with Client(config) as client:
            assert await names(watch(client)) == [f"cm-{n}" for n in range(5)]
    finally:
        server.close()
        await server.wait_closed()


async def test_a_stream_cut_inside_a_line_is_a_transport_error() -> None:
    async def answer(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        writer.write(f"{len(BODY) - 5:x}\r\n".encode() + BODY[:-5] + b"\r\n")
        await writer.drain()
        writer.close()  # no last chunk: the answer never ended

    server, config = await raw_server(answer)
    try:
        async with Client(config) as client:
            events = watch(client)
            assert [e.object.metadata.name for e in [await anext(events) for _ in range(4)]] == [  # type: ignore[attr-defined]
                f"cm-{n}" for n in range(4)
            ]
            with pytest.raises(TransportError) as info:
                await anext(events)
            assert info.value.__cause__ is not None
    finally:
        server.close()
        await server.wait_closed()


async def test_a_refused_watch_raises_the_servers_status() -> None:
    status = {"kind": "Status", "status": "Failure", "code": 403, "reason": "Forbidden"}
    async with (
        scripted_server((403, {**status, "message": "no watching"}, {})) as srv,
        Client(srv.config()) as client,
    ):
        with pytest.raises(Forbidden, match="no watching"):
            await anext(watch(client))


async def test_a_consumer_far_behind_pauses_reading_and_misses_nothing() -> None:
    event = {"type": "ADDED", "object": {"metadata": {"name": "x" * 200_000, "namespace": "ns"}}}
    line = orjson.dumps(event) + b"\n"
    count = 40  # 8 MB: far past what the client buffers before it stops reading

    async def answer(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        for _ in range(count):
            writer.write(line)
            await writer.drain()
        writer.close()

    server, config = await raw_server(answer)
    try:
        async with Client(config) as client:
            seen = 0
            async for item in watch(client):
                assert len(item.object.metadata.name) == 200_000  # type: ignore[attr-defined]
                seen += 1
                await asyncio.sleep(0.01)  # slower than the server writes
            assert seen == count
    finally:
        server.close()
        await server.wait_closed()


async def test_closing_the_client_ends_an_open_watch_with_a_transport_error() -> None:
    async def first_then_silence(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        await response.write(orjson.dumps(EVENTS[0]) + b"\n")
        await asyncio.sleep(30)
        return response

    async with scripted_server(first_then_silence) as srv:
        client = Client(srv.config())
        events = watch(client)
        await anext(events)
        pending = asyncio.ensure_future(anext(events))
        await asyncio.sleep(0.05)
        await client.close()
        with pytest.raises(TransportError):
            await asyncio.wait_for(pending, 5)
