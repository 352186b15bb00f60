"""Whole-body HTTP/1.1 exchanges over kept-alive connections: ``Http1Pool``.

``Client.exchange`` (every verb but watch) sends one request and reads one whole
answer. aiohttp's general-purpose request path (URL objects, cookie jar, tracing,
middlewares, a response object per request) cost about three quarters of the
client's CPU per request here (~370 us against ~95 us for this module), which made
it most of a reconcile's cost. This pool does only what an API-server exchange
needs: one connection per request in flight, reused while the server keeps it
alive; ``Content-Length``, chunked and read-until-close bodies; gzip answers
(``Accept-Encoding: gzip`` is sent as aiohttp and client-go send it). Streamed
answers (watches) take a connection of their own from ``connect`` (see
``_http1_stream``); proxies stay on aiohttp.

Failures are raised as the aiohttp errors ``client._resilience`` classifies, so a
request is retried exactly as before: ``ClientConnectorError`` kin when it never
left (refused, TLS handshake, connect timeout), ``ServerDisconnectedError`` when the
connection broke after sending, ``TimeoutError`` when the request's time ran out.

Entry point::

    pool = Http1Pool(split_server("https://127.0.0.1:6443"), ssl=context, connect_timeout=30.0)
    status, headers, body = await pool.request("GET", "/api/v1/pods", [], None, 60.0)
"""

from __future__ import annotations

import asyncio
import select
import ssl
import time
import zlib
from collections.abc import Callable, Sequence
from typing import TypeVar

from multidict import CIMultiDict, CIMultiDictProxy

from kubeforge.client._http1_wire import (
    READ_BUFFER_SIZE,
    Server,
    disconnection,
    not_connected,
    parse_head,
    server_disconnected,
    split_server,
)

__all__ = ["Http1Pool", "Server", "split_server"]

P = TypeVar("P", bound=asyncio.BaseProtocol)

_IDLE_SECONDS = 15.0  # aiohttp's keepalive_timeout: an idle connection older is not reused
_NO_BODY = frozenset({204, 304})
# aiohttp's IDEMPOTENT_METHODS: what it resends when a reused connection turns out closed.
_RETRIED_ON_A_REUSED_CONNECTION = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})


class _Answer:
    """One response being parsed from the bytes a connection receives."""

    __slots__ = ("body", "chunked", "headers", "length", "status", "until_close")

    def __init__(self, status: int, headers: CIMultiDict[str], head_only: bool) -> None:
        self.status = status
        self.headers = headers
        self.body = bytearray()
        encoding = headers.get("Transfer-Encoding", "").lower()
        self.chunked = "chunked" in encoding
        length = headers.get("Content-Length")
        if head_only or status in _NO_BODY or 100 <= status < 200:
            self.length: int | None = 0
        elif self.chunked:
            self.length = None
        elif length is not None:
            self.length = int(length)
        else:
            self.length = None
        self.until_close = self.length is None and not self.chunked


class _Connection(asyncio.BufferedProtocol):
    """One kept-alive connection; ``exchange`` sends a request and awaits its answer."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self._buffer = bytearray()
        self._answer: _Answer | None = None
        self._waiter: asyncio.Future[_Answer] | None = None
        self._head_only = False
        self._keep_alive = True
        self._read = memoryview(bytearray(READ_BUFFER_SIZE))

    # --- asyncio.Protocol ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        # Kept: asking for the running loop per request costs a system call (getpid)
        # on Python 3.11.
        self._loop = asyncio.get_running_loop()
        # Made once, polled before each reuse (see still_open).
        sock = transport.get_extra_info("socket")
        self._poller: select.poll | None = None
        if sock is not None:
            self._poller = select.poll()
            self._poller.register(sock.fileno(), select.POLLIN)

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._read

    def buffer_updated(self, nbytes: int) -> None:
        self._buffer += self._read[:nbytes]
        if self._waiter is not None:
            try:
                self._parse()
            except ValueError as err:
                import aiohttp

                self._fail(aiohttp.ClientPayloadError(f"malformed answer: {err}"))

    def eof_received(self) -> bool | None:
        self._closed_by_server()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed_by_server()

    # --- use -----------------------------------------------------------------------------------

    async def exchange(self, request: bytes, head_only: bool, timeout: float | None) -> _Answer:
        assert self.transport is not None
        loop = self._loop
        waiter: asyncio.Future[_Answer] = loop.create_future()
        self._waiter, self._answer, self._head_only = waiter, None, head_only
        self._keep_alive = True
        self.transport.write(request)
        expiry = None
        if timeout is not None:
            expiry = loop.call_later(timeout, self._time_out)
        try:
            return await waiter
        except BaseException:
            self.close()  # cancelled or failed mid-answer: the connection's state is unknown
            raise
        finally:
            if expiry is not None:
                expiry.cancel()
            self._waiter = None

    def still_open(self) -> bool:
        """False once the server closed the connection, even if the loop has not seen it yet.

        An idle kept-alive connection has nothing to read: if its socket is readable, what
        waits is the server's FIN, a reset or a TLS close alert (urllib3 checks the same).
        """
        if self.closed or self.transport is None or self.transport.is_closing():
            return False
        return self._poller is None or not self._poller.poll(0)

    @property
    def reusable(self) -> bool:
        return self._keep_alive and not self.closed

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    # --- parsing -------------------------------------------------------------------------------

    def _parse(self) -> None:
        if self._answer is None and not self._parse_head():
            return
        answer = self._answer
        assert answer is not None
        if answer.chunked:
            done = self._parse_chunks(answer)
        elif answer.until_close:
            answer.body += self._buffer
            self._buffer.clear()
            done = False  # ends with the connection
        else:
            assert answer.length is not None
            take = answer.length - len(answer.body)
            answer.body += self._buffer[:take]
            del self._buffer[:take]
            done = len(answer.body) == answer.length
        if done:
            self._finish(answer)

    def _parse_head(self) -> bool:
        parsed = parse_head(self._buffer)
        if parsed is None:
            return False
        version, status, headers = parsed
        connection = headers.get("Connection", "").lower()
        self._keep_alive = "close" not in connection and (
            version != "HTTP/1.0" or "keep-alive" in connection
        )
        self._answer = _Answer(status, headers, self._head_only)
        return True

    def _parse_chunks(self, answer: _Answer) -> bool:
        buffer = self._buffer
        while True:
            line_end = buffer.find(b"\r\n")
            if line_end < 0:
                return False
            size = int(bytes(buffer[:line_end]).split(b";", 1)[0], 16)
            if size == 0:
                trailer_end = buffer.find(b"\r\n\r\n", line_end)
                if trailer_end < 0:
                    return False
                del buffer[: trailer_end + 4]
                return True
            chunk_end = line_end + 2 + size
            if len(buffer) < chunk_end + 2:
                return False
            answer.body += buffer[line_end + 2 : chunk_end]
            del buffer[: chunk_end + 2]

    def _finish(self, answer: _Answer) -> None:
        waiter, self._waiter, self._answer = self._waiter, None, None
        if waiter is not None and not waiter.done():
            waiter.set_result(answer)

    def _fail(self, error: BaseException) -> None:
        self._keep_alive = False
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)

    def _time_out(self) -> None:
        self._fail(TimeoutError())

    def _closed_by_server(self) -> None:
        self.closed = True
        answer = self._answer
        if answer is not None and answer.until_close:
            answer.body += self._buffer
            self._buffer.clear()
            self._finish(answer)
        elif self._waiter is not None:
            # Built only for a request that waits: making it imports aiohttp.
            self._fail(server_disconnected()("the server closed the connection"))
        else:
            self._keep_alive = False


class Http1Pool:
    """Kept-alive connections to one server; ``request`` borrows one per request in flight."""

    def __init__(
        self,
        server: Server,
        *,
        ssl: ssl.SSLContext | None,
        server_hostname: str | None = None,
        connect_timeout: float | None = None,
    ) -> None:
        self.server = server
        self._ssl = ssl if server.tls else None
        self._server_hostname = server_hostname if self._ssl is not None else None
        self._connect_timeout = connect_timeout
        self._idle: list[_Connection] = []
        self.streaming: set[asyncio.BaseTransport] = set()
        """Transports of open streamed answers (watches), closed with the pool."""

    async def request(
        self,
        method: str,
        target: str,
        headers: Sequence[tuple[str, str]],
        body: bytes | None,
        timeout: float | None,
    ) -> tuple[int, CIMultiDictProxy[str], bytes]:
        """Send ``method target`` (path and query) with ``headers`` and ``body``; the answer.

        ``timeout`` bounds the whole exchange, connecting included.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        request = self.encode(method, target, headers, body)
        retry = method in _RETRIED_ON_A_REUSED_CONNECTION
        while True:
            connection, reused = await self._borrow(deadline)
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                answer = await connection.exchange(request, method == "HEAD", remaining)
                break
            except disconnection():
                # A kept-alive connection the server closed just as it was reused: aiohttp
                # sends an idempotent request once more on a fresh one, and so does this.
                if not (reused and retry):
                    raise
                retry = False
        if connection.reusable:
            connection.idle_since = time.monotonic()
            self._idle.append(connection)
        else:
            connection.close()
        return answer.status, CIMultiDictProxy(answer.headers), _decoded(answer)

    def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
        streaming, self.streaming = self.streaming, set()
        for transport in streaming:
            transport.close()

    def encode(
        self,
        method: str,
        target: str,
        headers: Sequence[tuple[str, str]],
        body: bytes | None,
    ) -> bytes:
        """The bytes of a request (gzip answers welcome, as Go's transport asks for them)."""
        lines = [
            f"{method} {self.server.base_path}{target} HTTP/1.1",
            f"Host: {self.server.host_header}",
        ]
        lines += [f"{name}: {value}" for name, value in headers]
        lines.append("Accept-Encoding: gzip")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        return head + body if body else head

    async def _borrow(self, deadline: float | None) -> tuple[_Connection, bool]:
        """An idle connection still open (and whether it is one), else a new one."""
        expired = time.monotonic() - _IDLE_SECONDS
        while self._idle:
            connection = self._idle.pop()
            if connection.idle_since > expired and connection.still_open():
                return connection, True
            connection.close()
        return await self.connect(_Connection, deadline), False

    async def connect(self, factory: Callable[[], P], deadline: float | None) -> P:
        """A new connection to the server, spoken by the protocol ``factory`` makes.

        Bounded by the pool's connect timeout and by ``deadline`` (``time.monotonic()``).
        """
        loop = asyncio.get_running_loop()
        server = self.server
        limit = self._connect_timeout
        if deadline is not None:
            left = max(0.0, deadline - time.monotonic())
            limit = left if limit is None else min(limit, left)
        try:
            async with asyncio.timeout(limit):
                _, connection = await loop.create_connection(
                    factory,
                    server.host,
                    server.port,
                    ssl=self._ssl,
                    server_hostname=self._server_hostname,
                )
        except TimeoutError as err:
            import aiohttp

            raise aiohttp.ConnectionTimeoutError(
                f"Connection timeout to host {server.host_header}"
            ) from err
        except OSError as err:  # ssl.SSLError included
            raise not_connected(server, err) from err
        return connection


def _decoded(answer: _Answer) -> bytes:
    body = bytes(answer.body)
    encoding = answer.headers.get("Content-Encoding", "").lower()
    if body and encoding in ("gzip", "x-gzip"):
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if body and encoding == "deflate":
        return zlib.decompress(body)
    return body
