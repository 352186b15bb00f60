"""The client facing broken servers: a watch cut mid-line, and a server that is not there.

The broken server is a real aiohttp server on loopback that answers a watch with
one good event and then part of the next line before it drops the connection.
The client must hand over the good event, then raise ``TransportError``: never
hang, never yield half an object. A manager whose
kubeconfig points at a closed port fails with ``CacheSyncTimeout`` naming the
caches it waited for.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import web

from kubeforge.cache import CacheSyncTimeout
from kubeforge.client import Client
from kubeforge.config import ClientConfig
from kubeforge.core import errors
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.runtime import Manager, ManagerOptions

GOOD = {
    "type": "ADDED",
    "object": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "first", "namespace": "default", "resourceVersion": "7"},
        "data": {"k": "v"},
    },
}
PARTIAL = b'{"type": "MODIFIED", "object": {"apiVersion": "v1", "kind": "Conf'

Ending = Callable[[web.StreamResponse, web.Request], Awaitable[None]]


async def _drop_connection(response: web.StreamResponse, request: web.Request) -> None:
    assert request.transport is not None
    request.transport.abort()  # the connection dies mid-line


async def _broken_watch_server(ending: Ending) -> AsyncIterator[str]:
    async def watch(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        await response.write(json.dumps(GOOD).encode() + b"\n")
        await response.write(PARTIAL)
        await ending(response, request)
        return response

    app = web.Application()
    app.router.add_get("/api/v1/namespaces/default/configmaps", watch)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def _end_cleanly(response: web.StreamResponse, request: web.Request) -> None:
    await response.write_eof()  # a complete HTTP body that stops inside an event


@pytest.fixture(params=[_drop_connection, _end_cleanly], ids=["reset-mid-line", "eof-mid-line"])
async def broken_server(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    async for url in _broken_watch_server(request.param):
        yield url


async def test_a_watch_cut_mid_line_yields_the_whole_events_then_raises_transport_error(
    broken_server: str,
) -> None:
    seen: list[str] = []
    async with Client(ClientConfig(server=broken_server, token="t")) as client:
        api = client.api(ConfigMap, namespace="default")
        with pytest.raises(errors.TransportError):
            # The bound turns a hang into a failure; it is not a timing check.
            async with asyncio.timeout(30):
                async for event in api.watch(resource_version="1"):
                    seen.append(f"{event.type} {event.object.metadata.name}")
    assert seen == ["ADDED first"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends


async def test_a_manager_pointed_at_nothing_fails_with_cache_sync_timeout_not_a_hang() -> None:
    config = ClientConfig(server=f"https://127.0.0.1:{_closed_port()}", token="t")
    manager = Manager(config, options=ManagerOptions(cache_sync_timeout=2.0))
    manager.cache.informer(ConfigMap)
    with pytest.raises(CacheSyncTimeout) as caught:
        async with asyncio.timeout(60):
            await manager.run()
    assert "configmaps" in str(caught.value)
