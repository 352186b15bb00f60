"""Streamed HTTP/1.1 answers (watches) on a connection of their own: ``open_stream``.

A watch used to travel on aiohttp, which cost a controller aiohttp's import (~45 ms of
CPU, more than a tenth of its start) and, per event, aiohttp's response payload
machinery before a line was even split. This module sends the GET itself on a fresh
connection from ``Http1Pool.connect`` and hands the body back line by line: the
protocol only de-chunks what arrives into one buffer (inflating it if the server
gzipped it: the request welcomes gzip, as Go's transport does for client-go, though a
Kubernetes API server does not compress watches); the consumer splits complete
lines out of it when it runs, so a burst of events costs one wake-up.

Backpressure as in aiohttp's reader: reading pauses while more than ``_HIGH_WATER``
bytes wait for the consumer, and resumes once they drop under ``_LOW_WATER``.

Failures are raised as the aiohttp errors ``client._resilience`` and ``Client.stream``
classify (``ServerDisconnectedError`` when the connection breaks before the answer's
end), so a watch breaks exactly as it did on aiohttp.

Entry point::

    async with open_stream(pool, "/api/v1/pods?watch=true", headers) as stream:
        stream.status, stream.headers
        async for line in stream.lines(idle_timeout=None, url=url): ...
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import AsyncIterator, Sequence

from multidict import CIMultiDict, CIMultiDictProxy

from kubeforge.client._http1 import Http1Pool
from kubeforge.client._http1_wire import READ_BUFFER_SIZE, parse_head, server_disconnected
from kubeforge.core.errors import TransportError

__all__ = ["LineStream", "open_stream"]

_HIGH_WATER = 1 << 20
_LOW_WATER = 1 << 18


class _StreamProtocol(asyncio.BufferedProtocol):
    """One streamed answer: its head, then its body de-chunked into ``body``."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.head: asyncio.Future[tuple[int, CIMultiDict[str]]] | None = None
        self.body = bytearray()
        self.ended = False  # the whole answer arrived (or it ends with the connection)
        self.error: BaseException | None = None
        self.broken = False  # the connection broke before the end (see failure())
        self.paused = False
        self.closing = False  # closed by the consumer: the end is no failure
        self._raw = bytearray()  # received, not yet parsed
        self._chunked = False
        self._left: int | None = None  # bytes of the current chunk, or of a sized body
        self._until_close = False
        self._inflate: zlib._Decompress | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._read = memoryview(bytearray(READ_BUFFER_SIZE))

    # --- asyncio.Protocol ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._loop = asyncio.get_running_loop()  # kept: asking costs a getpid() each time

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._read

    def buffer_updated(self, nbytes: int) -> None:
        if self.ended:
            return
        self._raw += self._read[:nbytes]
        try:
            if self.head is not None and not self.head.done() and not self._parse_head():
                return
            self._parse_body()
        except (ValueError, zlib.error) as err:
            import aiohttp

            self._stop(aiohttp.ClientPayloadError(f"malformed answer: {err}"))
            return
        if len(self.body) > _HIGH_WATER and self.transport is not None and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool | None:
        self._closed_by_server()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed_by_server()

    # --- for LineStream ------------------------------------------------------------------------

    async def wait(self) -> None:
        """Until more body, the end, or a failure."""
        if self.ended or self.error is not None or self.broken:
            return
        self._waiter = self._loop.create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None

    def failure(self) -> BaseException | None:
        """Why the answer cannot go on, if it cannot. A broken connection's error is made
        here, when a consumer asks: making it imports aiohttp, which a watch closed by
        its consumer or its client never needs."""
        if self.error is None and self.broken:
            self.error = server_disconnected()("the server closed the connection")
        return self.error

    def drained(self) -> None:
        """The consumer took from ``body``: read again once it has room."""
        if self.paused and len(self.body) < _LOW_WATER and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()

    # --- parsing -------------------------------------------------------------------------------

    def _parse_head(self) -> bool:
        parsed = parse_head(self._raw)
        if parsed is None:
            return False
        _, status, headers = parsed
        encoding = headers.get("Transfer-Encoding", "").lower()
        length = headers.get("Content-Length")
        self._chunked = "chunked" in encoding
        if not self._chunked and length is not None:
            self._left = int(length)
        self._until_close = not self._chunked and length is None
        if headers.get("Content-Encoding", "").lower() in ("gzip", "x-gzip"):
            self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        assert self.head is not None
        self.head.set_result((status, headers))
        if self._left == 0:
            self.ended = True
        return True

    def _parse_body(self) -> None:
        raw = self._raw
        if not raw:
            return
        if self._chunked:
            self._dechunk()
        elif self._until_close:
            self._take(raw, len(raw))
        else:
            assert self._left is not None
            take = min(self._left, len(raw))
            self._take(raw, take)
            self._left -= take
            self.ended = self._left == 0

    def _dechunk(self) -> None:
        raw = self._raw
        while raw and not self.ended:
            if self._left:  # inside a chunk
                take = min(self._left, len(raw))
                self._take(raw, take)
                self._left -= take
                continue
            if self._left == 0:  # a chunk's data was read: its CRLF follows
                if len(raw) < 2:
                    return
                if raw[:2] != b"\r\n":
                    raise ValueError("a chunk does not end with CRLF")
                del raw[:2]
                self._left = None
                continue
            line_end = raw.find(b"\r\n")
            if line_end < 0:
                return
            size = int(bytes(raw[:line_end]).split(b";", 1)[0], 16)
            if size == 0:
                # The last chunk: trailers (if any) are not read; the answer is complete.
                raw.clear()
                self.ended = True
                return
            del raw[: line_end + 2]
            self._left = size

    def _take(self, raw: bytearray, size: int) -> None:
        if self._inflate is not None:
            self.body += self._inflate.decompress(raw[:size])
        else:
            self.body += memoryview(raw)[:size]
        del raw[:size]

    def _closed_by_server(self) -> None:
        if self.ended or self.closing:
            self._wake()
            return
        if self._until_close and self.head is not None and self.head.done():
            self.ended = True  # a body without length ends with its connection
            self._wake()
            return
        self._stop(None)

    def _stop(self, error: BaseException | None) -> None:
        """End with ``error``; ``None``: the connection broke (its error is made on demand)."""
        if self.error is None and not self.ended:
            self.error = error
            self.broken = error is None
        if self.head is not None and not self.head.done():
            self.head.set_exception(self.failure() or server_disconnected()("closed"))
        if self.transport is not None:
            self.transport.close()
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class LineStream:
    """An answer whose head has arrived: ``status``, ``headers``, then its body."""

    def __init__(self, protocol: _StreamProtocol, status: int, headers: CIMultiDict[str]) -> None:
        self._protocol = protocol
        self.status = status
        self.headers = CIMultiDictProxy(headers)

    async def read(self) -> bytes:
        """The rest of the body, whole (for an error's ``Status``)."""
        protocol = self._protocol
        while not protocol.ended:
            failure = protocol.failure()
            if failure is not None:
                raise failure
            protocol.drained()
            await protocol.wait()
        return bytes(protocol.body)

    async def lines(self, idle_timeout: float | None, url: str) -> AsyncIterator[bytes]:
        """The body's non-empty lines; ``TransportError`` after ``idle_timeout`` seconds
        without a byte. Split by hand, so one huge line is never cut by a limit."""
        protocol = self._protocol
        body = protocol.body
        while True:
            end = body.rfind(b"\n")
            if end >= 0:
                complete = bytes(memoryview(body)[:end])
                del body[: end + 1]
                protocol.drained()
                for line in complete.split(b"\n"):
                    if line and not line.isspace():
                        yield line
                continue
            failure = protocol.failure()
            if failure is not None:
                raise failure
            if protocol.ended:
                if body and not body.isspace():
                    # Every event ends with a newline (the server writes one per line): a
                    # body that stops inside one was cut short, and the fragment is no event.
                    raise TransportError(f"GET {url}: the stream ended in the middle of a line")
                return
            if idle_timeout is None:
                await protocol.wait()
            else:
                await self._wait_at_most(idle_timeout, url)

    async def _wait_at_most(self, seconds: float, url: str) -> None:
        try:
            async with asyncio.timeout(seconds):
                await self._protocol.wait()
        except TimeoutError:
            raise TransportError(
                f"GET {url}: no data for {seconds:g}s; the connection is presumed dead"
            ) from None


@contextlib.asynccontextmanager
async def open_stream(
    pool: Http1Pool,
    target: str,
    headers: Sequence[tuple[str, str]],
) -> AsyncIterator[LineStream]:
    """GET ``target`` on a new connection; the stream once the answer's head arrived.

    Only connecting is bounded (by the pool's connect timeout): a watch lasts as long
    as the server keeps it open. The connection is closed when the block ends, or
    when the pool is closed.
    """
    protocol = await pool.connect(_StreamProtocol, None)
    transport = protocol.transport
    assert transport is not None
    pool.streaming.add(transport)
    try:
        protocol.head = asyncio.get_running_loop().create_future()
        transport.write(pool.encode("GET", target, headers, None))
        status, answer_headers = await protocol.head
        yield LineStream(protocol, status, answer_headers)
    finally:
        pool.streaming.discard(transport)
        protocol.closing = True
        transport.close()
