"""The client's HTTP/1.1 exchanges: body framings, gzip, queries and kept-alive connections.

Against the scripted aiohttp server (the local server always sends a Content-Length
and never compresses); connection reuse and the local server's own answers are
covered by every other client test.
"""

from __future__ import annotations

import asyncio
import gzip

import orjson
from aiohttp import web
from kf_scripted import ok, scripted_server

from kubeforge.client import Client
from kubeforge.client._http1 import split_server
from kubeforge.config import ClientConfig

CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}


async def chunked(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    body = orjson.dumps(CONFIG_MAP)
    for start in range(0, len(body), 7):
        await response.write(body[start : start + 7])
    await response.write_eof()
    return response


async def gzipped(request: web.Request) -> web.StreamResponse:
    assert "gzip" in request.headers["Accept-Encoding"]
    body = gzip.compress(orjson.dumps(CONFIG_MAP))
    return web.Response(
        body=body, headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}
    )


async def test_a_chunked_answer_is_read_whole() -> None:
    async with scripted_server(chunked) as srv, Client(srv.config()) as client:
        assert await client.request("GET", "/api/v1/x") == CONFIG_MAP


async def test_a_gzipped_answer_is_decompressed() -> None:
    async with scripted_server(gzipped) as srv, Client(srv.config()) as client:
        assert await client.request("GET", "/api/v1/x") == CONFIG_MAP


async def test_an_answer_without_length_ends_with_the_connection() -> None:
    body = orjson.dumps(CONFIG_MAP)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + body)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with Client(ClientConfig(server=f"http://127.0.0.1:{port}")) as client:
            assert await client.request("GET", "/api/v1/x") == CONFIG_MAP
            assert await client.request("GET", "/api/v1/x") == CONFIG_MAP  # a new connection
    finally:
        server.close()
        await server.wait_closed()


async def test_query_values_arrive_as_sent() -> None:
    selector = "app in (a,b),tier!=web"
    async with scripted_server(ok()) as srv, Client(srv.config()) as client:
        await client.request(
            "GET", "/api/v1/x", params={"labelSelector": selector, "watch": False, "x": "a/b c+d"}
        )
    assert srv.seen[0].query == [
        ("labelSelector", selector),
        ("watch", "false"),
        ("x", "a/b c+d"),
    ]


async def test_consecutive_requests_reuse_one_connection() -> None:
    ports: list[int] = []

    async def remember(request: web.Request) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        ports.append(peer[1] if peer else -1)
        return web.json_response(CONFIG_MAP)

    async with scripted_server(remember, remember, remember) as srv, Client(srv.config()) as c:
        for _ in range(3):
            await c.request("GET", "/api/v1/x")
    assert len(set(ports)) == 1


def test_the_host_header_names_the_port_only_when_it_is_not_the_default() -> None:
    assert split_server("https://example.com").host_header == "example.com"
    assert split_server("https://example.com:6443/prefix/").host_header == "example.com:6443"
    assert split_server("https://example.com:6443/prefix/").base_path == "/prefix"
    assert split_server("http://[::1]:8080").host == "::1"
    assert split_server("http://[::1]:8080").host_header == "[::1]:8080"
