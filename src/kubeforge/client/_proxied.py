"""What still travels on aiohttp: requests and watches through a proxy (which
``Http1Pool`` does not speak). Only a client with a proxy imports aiohttp.

Entry points: ``new_session`` (the session, made on the first proxied request),
``Proxied.exchange`` (a whole-body request) and ``proxied_stream`` (a streamed GET,
as a ``Streamed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from multidict import CIMultiDict

from kubeforge.client.requester import Answer
from kubeforge.config import ClientConfig
from kubeforge.core.errors import TransportError

if TYPE_CHECKING:
    import aiohttp

__all__ = ["AiohttpStreamed", "Proxied", "lines", "new_session", "proxied_stream"]


def new_session(config: ClientConfig, tls: ssl.SSLContext | None) -> aiohttp.ClientSession:
    """The aiohttp session of a client with a proxy."""
    import aiohttp

    connector = aiohttp.TCPConnector(
        ssl=tls if tls is not None else True,
        # Each watch pins a connection for minutes; a pool cap would queue ordinary
        # requests behind them, so the pool is unbounded.
        limit=0,
    )
    return aiohttp.ClientSession(
        connector=connector,
        timeout=aiohttp.ClientTimeout(
            total=config.request_timeout, sock_connect=config.connect_timeout
        ),
        headers={"User-Agent": config.user_agent, "Accept": "application/json"},
    )


@contextlib.asynccontextmanager
async def proxied_stream(
    session: aiohttp.ClientSession,
    config: ClientConfig,
    proxy: str | None,
    path: str,
    query: list[tuple[str, str]] | None,
    headers: CIMultiDict[str],
) -> AsyncIterator[AiohttpStreamed]:
    """A streamed GET through ``session``, once its head arrived."""
    async with session.get(
        config.server + path,
        params=query,
        headers=headers,
        timeout=stream_timeout(config.connect_timeout),
        proxy=proxy,
        server_hostname=config.tls_server_name,
    ) as response:
        yield AiohttpStreamed(response)


class AiohttpStreamed:
    """An aiohttp response as a ``Streamed``."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response
        self.status = response.status
        self.headers = response.headers

    async def read(self) -> bytes:
        return await self._response.read()

    def lines(self, idle_timeout: float | None, url: str) -> AsyncIterator[bytes]:
        return lines(self._response.content, idle_timeout, url)


@contextlib.asynccontextmanager
async def _idle(seconds: float, url: str) -> AsyncIterator[None]:
    """``asyncio.timeout`` that reports silence as a dead connection (``TransportError``)."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise TransportError(
            f"GET {url}: no data for {seconds:g}s; the connection is presumed dead"
        ) from None


@dataclass(frozen=True, slots=True)
class Proxied:
    """Exchanges through aiohttp, for a client with a proxy (which ``Http1Pool`` does not speak)."""

    proxy: str | None
    server_hostname: str | None
    connect_timeout: float | None

    async def exchange(
        self,
        session: aiohttp.ClientSession,
        method: str,
        url: str,
        query: list[tuple[str, str]] | None,
        data: bytes | None,
        headers: CIMultiDict[str],
        seconds_allowed: float | None,
    ) -> Answer:
        import aiohttp  # the session given is aiohttp's, so this only binds the name

        timeout = aiohttp.ClientTimeout(total=seconds_allowed, sock_connect=self.connect_timeout)
        async with session.request(
            method,
            url,
            params=query,
            data=data,
            headers=headers,
            timeout=timeout,
            proxy=self.proxy,
            server_hostname=self.server_hostname,
        ) as response:
            return Answer(response.status, await response.read(), response.headers)


async def lines(
    content: aiohttp.StreamReader, idle_timeout: float | None, url: str
) -> AsyncIterator[bytes]:
    """The non-empty lines of a streamed body; ``TransportError`` after ``idle_timeout``
    seconds without a byte. Split by hand so one huge line is never cut by a limit."""
    chunks = content.iter_any().__aiter__()
    pending = b""
    while True:
        try:
            if idle_timeout is None:
                chunk = await anext(chunks)
            else:
                async with _idle(idle_timeout, url):
                    chunk = await anext(chunks)
        except StopAsyncIteration:
            break
        if b"\n" not in chunk:
            pending += chunk
            continue
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            if line.strip():
                yield line
    if pending.strip():
        # Every event ends with a newline (the server writes one per line): a body that
        # stops inside one was cut short, and the fragment is not an event.
        raise TransportError(f"GET {url}: the stream ended in the middle of a line")


def stream_timeout(connect_timeout: float | None) -> aiohttp.ClientTimeout:
    """A watch's timeouts: it lasts as long as the server keeps it open (its
    timeoutSeconds); only connecting is bounded here, and silence by the caller's
    idle_timeout."""
    import aiohttp  # called with a session open, so aiohttp is imported already

    return aiohttp.ClientTimeout(total=None, sock_read=None, sock_connect=connect_timeout)
