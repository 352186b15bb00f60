"""A watch stream read straight off its TLS socket, for the fan-out benchmark's 100 readers.

Entry point: ``await read_watch(server, path, params, ready, feed)``: sends one GET over a
new connection, checks the answer is a 200 with a chunked body (then calls ``ready()``),
and hands ``feed(now, data)`` each read's complete lines with the time the read arrived,
until ``feed`` returns True.

Why not aiohttp's client: the 100 readers share the machine's two cores with the server,
and they read 200,000 events/s between them; every read through aiohttp's response
stream also goes through its payload parser, a stream buffer and a task wake-up. Here a
read is handled in the protocol's ``data_received`` itself, so the benchmark's own cost
per read (and the time until it gets to the last of 100 sockets ready at once) is
smaller, and what is measured is more the server's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

__all__ = ["read_watch"]

Feed = Callable[[float, bytes], bool]
"""Takes ``(arrival time, complete lines)``; True once the reader has all it wants."""


class _Dechunker:
    """HTTP/1.1 chunked transfer coding, undone incrementally: ``feed(data)`` returns the
    payload bytes ``data`` completes (chunk boundaries need not match reads)."""

    def __init__(self) -> None:
        self.pending = b""  # an incomplete chunk-size line
        self.left = 0  # payload bytes still to come in the current chunk
        self.skip = 0  # bytes of the CRLF after a chunk's payload still to skip
        self.ended = False

    def feed(self, data: bytes) -> bytes:
        raw = self.pending + data if self.pending else data
        self.pending = b""
        parts: list[bytes] = []
        pos, size = 0, len(raw)
        while pos < size and not self.ended:
            if self.left:
                take = min(self.left, size - pos)
                parts.append(raw[pos : pos + take] if take < size else raw)
                pos += take
                self.left -= take
                if not self.left:
                    self.skip = 2
            elif self.skip:
                step = min(self.skip, size - pos)
                pos += step
                self.skip -= step
            else:
                eol = raw.find(b"\r\n", pos)
                if eol < 0:
                    self.pending = raw[pos:]
                    break
                self.left = int(raw[pos:eol].split(b";")[0], 16)
                self.ended = not self.left
                pos = eol + 2
        return parts[0] if len(parts) == 1 else b"".join(parts)


class _WatchProtocol(asyncio.Protocol):
    def __init__(
        self, request: bytes, ready: Callable[[], None], feed: Feed, done: asyncio.Future[None]
    ) -> None:
        self.request = request
        self.ready = ready
        self.feed = feed
        self.done = done
        self.head: bytes | None = b""  # None once the answer's head is read
        self.body = _Dechunker()
        self.partial = b""  # the start of a line the next read completes
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.head is not None:
            head = self.head + data
            end = head.find(b"\r\n\r\n")
            if end < 0:
                self.head = head
                return
            self.head, data = None, head[end + 4 :]
            status = head.split(b"\r\n", 1)[0]
            chunked = b"transfer-encoding: chunked" in head[:end].lower()
            if not status.startswith(b"HTTP/1.1 200") or not chunked:
                self._finish(AssertionError(f"watch answered {head[:end]!r}"))
                return
            self.ready()
        data = self.body.feed(data)
        if self.partial:
            data, self.partial = self.partial + data, b""
        cut = data.rfind(b"\n") + 1
        if cut < len(data):
            data, self.partial = data[:cut], data[cut:]
        if data and self.feed(now, data):
            self._finish(None)
        elif self.body.ended:
            self._finish(AssertionError("the watch ended before every event came"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish(exc or AssertionError("the watch's connection closed early"))

    def _finish(self, error: BaseException | None) -> None:
        if not self.done.done():
            if error is None:
                self.done.set_result(None)
            else:
                self.done.set_exception(error)
        if self.transport is not None:
            self.transport.close()


async def read_watch(
    server: Any, path: str, params: dict[str, str], ready: Callable[[], None], feed: Feed
) -> None:
    """Read the watch at ``path`` (``server``: a ``LocalApiServer``) until ``feed`` has
    all it wants; raises if the answer is not a 200 stream or ends first."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    request = (
        f"GET {path}?{urlencode(params)} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\nAccept: application/json\r\n\r\n"
    ).encode()
    protocol = _WatchProtocol(request, ready, feed, done)
    context = server.ssl_context()
    await loop.create_connection(lambda: protocol, "127.0.0.1", server.port, ssl=context)
    await done
