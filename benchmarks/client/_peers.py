"""Each contender's own decode path for a list body and for a watch byte stream.

The bytes come from memory: a list body as one ``bytes``, a watch stream as 64 KiB
chunks fed into an ``aiohttp.StreamReader`` (what every aiohttp-based client reads
from a socket). Each contender splits lines and decodes events the way its watch
code does, so only what the client itself does is timed, never a network or server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, cast

import aiohttp
from aiohttp.base_protocol import BaseProtocol

from kubeforge.client._codec import DictCodec, typed_codec
from kubeforge.client._transport import lines
from kubeforge.models.core_v1 import Pod

ListDecoder = Callable[[bytes], Awaitable[Any]]
StreamDecoder = Callable[[aiohttp.StreamReader], Awaitable[int]]

CHUNK = 64 * 1024


class _Socket(BaseProtocol):
    """Flow control is the producer's job here: it yields after every chunk."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self.transport = cast(asyncio.Transport, object())  # "connected", as aiohttp checks

    def pause_reading(self) -> None:
        pass

    def resume_reading(self, resume_parser: bool = True) -> None:
        pass


def feed(data: bytes) -> aiohttp.StreamReader:
    """A stream reader that receives ``data`` in socket-sized chunks, as a socket would
    deliver it, yielding to the consumer between chunks, then EOF."""
    loop = asyncio.get_running_loop()
    reader = aiohttp.StreamReader(_Socket(loop), limit=2**16, loop=loop)

    async def produce() -> None:
        for start in range(0, len(data), CHUNK):
            reader.feed_data(data[start : start + CHUNK])
            await asyncio.sleep(0)
        reader.feed_eof()

    _producers.add(task := loop.create_task(produce()))
    task.add_done_callback(_producers.discard)
    return reader


_producers: set[asyncio.Task[None]] = set()
closers: list[Callable[[], Awaitable[Any]]] = []
"""``close()`` of the peers' API clients (they own aiohttp sessions), called at the end."""


async def _readlines(reader: aiohttp.StreamReader) -> AsyncIterator[bytes]:
    while line := await reader.readline():
        yield line


def _chunks(reader_data: bytes) -> Iterator[bytes]:
    for start in range(0, len(reader_data), CHUNK):
        yield reader_data[start : start + CHUNK]


# --- kubeforge -------------------------------------------------------------------------------


async def kubeforge_list(data: bytes) -> Any:
    return typed_codec(Pod).decode_list(data).items


async def kubeforge_dynamic_list(data: bytes) -> Any:
    return DictCodec(Pod.info).decode_list(data).items


async def kubeforge_stream(reader: aiohttp.StreamReader) -> int:
    decode = typed_codec(Pod).decode_event
    count = 0
    async for line in lines(reader, None, "bench"):
        decode(line)
        count += 1
    return count


# --- the official client, sync and kubernetes.aio ---------------------------------------------


def official_sync() -> tuple[ListDecoder, Callable[[bytes], int]]:
    from kubernetes import client, watch
    from kubernetes.watch.watch import iter_resp_lines

    api = client.ApiClient()

    async def decode_list(data: bytes) -> Any:
        return api.deserialize(data.decode(), "V1PodList", "application/json").items

    class Response:  # what iter_resp_lines reads: urllib3's stream()
        def __init__(self, data: bytes) -> None:
            self.data = data

        def stream(self, amt: Any = None, decode_content: bool = False) -> Iterator[bytes]:
            return _chunks(self.data)

    def decode_stream(data: bytes) -> int:
        w = watch.Watch()
        w._api_client = api
        count = 0
        for line in iter_resp_lines(Response(data)):
            w.unmarshal_event(line, "V1Pod")
            count += 1
        return count

    return decode_list, decode_stream


def official_aio() -> tuple[ListDecoder, StreamDecoder]:
    from kubernetes.aio import client, watch

    api = client.ApiClient()
    closers.append(api.close)

    async def decode_list(data: bytes) -> Any:
        return api.deserialize(data.decode(), "V1PodList", "application/json").items

    async def decode_stream(reader: aiohttp.StreamReader) -> int:
        w = watch.Watch()
        w._api_client = api
        count = 0
        async for line in _readlines(reader):
            w.unmarshal_event(line.decode(), "V1Pod")
            count += 1
        return count

    return decode_list, decode_stream


def kubernetes_asyncio() -> tuple[ListDecoder, StreamDecoder]:
    from kubernetes_asyncio import client, watch

    api = client.ApiClient()
    closers.append(api.close)

    class Response:
        def __init__(self, data: bytes) -> None:
            self.data = data.decode()

    async def decode_list(data: bytes) -> Any:
        return api.deserialize(Response(data), "V1PodList").items

    async def decode_stream(reader: aiohttp.StreamReader) -> int:
        w = watch.Watch()
        await w._api_client.close()  # Watch() opens a client of its own; use the shared one
        w._api_client = api
        count = 0
        async for line in _readlines(reader):
            w.unmarshal_event(line, "V1Pod")
            count += 1
        return count

    return decode_list, decode_stream


def lightkube(lazy: bool) -> tuple[ListDecoder, StreamDecoder]:
    """lightkube's client parses bodies with ``json`` (through httpx) and builds each
    object with ``from_dict``; its ``Client`` defaults to ``lazy=True``."""
    from lightkube.resources.core_v1 import Pod as LightkubePod

    async def decode_list(data: bytes) -> Any:
        body = json.loads(data)
        return [LightkubePod.from_dict(item, lazy=lazy) for item in body["items"]]

    async def decode_stream(reader: aiohttp.StreamReader) -> int:
        count = 0
        async for line in _readlines(reader):
            event = json.loads(line)
            LightkubePod.from_dict(event["object"], lazy=lazy)
            count += 1
        return count

    return decode_list, decode_stream
