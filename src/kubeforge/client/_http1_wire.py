"""What the whole-body and the streamed HTTP/1.1 paths share: where the server is
(``Server``, ``split_server``), reading an answer's head (``parse_head``), and the aiohttp
errors a failed connection is reported as (``server_disconnected``, ``not_connected``),
so ``client._resilience`` retries exactly as it did when aiohttp carried everything.
"""

from __future__ import annotations

import ssl
import sys
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from multidict import CIMultiDict

if TYPE_CHECKING:
    # Imported only where one of its errors is raised: a process that never failed to
    # connect has not paid for aiohttp.
    import aiohttp

__all__ = [
    "READ_BUFFER_SIZE",
    "Server",
    "disconnection",
    "not_connected",
    "parse_head",
    "server_disconnected",
    "split_server",
]

READ_BUFFER_SIZE = 1 << 16
"""Bytes each connection reads into at a time. The client's protocols are buffered
(``asyncio.BufferedProtocol``) so that TLS decrypts into one buffer per connection:
a plain ``Protocol`` gets a new ``bytes`` per read, which uvloop (and asyncio) size at
256 KiB before shrinking it, an mmap, mremap and munmap per read (a tenth of a
request's CPU here)."""


@dataclass(frozen=True, slots=True)
class Server:
    """Where ``config.server`` points: what to connect to and what to put in requests."""

    host: str  # to connect to (an IPv6 address without brackets)
    port: int
    tls: bool
    host_header: str  # the Host header: the port only when it is not the scheme's default
    base_path: str  # a path prefix of the server URL ("" for none)


def split_server(url: str) -> Server:
    """``Server`` of an ``http(s)://host[:port][/prefix]`` URL."""
    split = urllib.parse.urlsplit(url)
    tls = split.scheme == "https"
    default = 443 if tls else 80
    host = split.hostname or ""
    port = split.port or default
    shown = f"[{host}]" if ":" in host else host
    header = shown if port == default else f"{shown}:{port}"
    return Server(host, port, tls, header, split.path.rstrip("/"))


def parse_head(buffer: bytearray) -> tuple[str, int, CIMultiDict[str]] | None:
    """The version, status and headers of the answer ``buffer`` starts with, taken out of
    it; ``None`` (and ``buffer`` untouched) until the whole head has arrived. Interim
    (1xx) answers are skipped: the real one follows them."""
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        text = bytes(memoryview(buffer)[:end]).decode("latin-1")
        del buffer[: end + 4]
        first, _, rest = text.partition("\r\n")
        version, _, status_text = first.partition(" ")
        status = int(status_text[:3])
        if 100 <= status < 200:
            continue
        pairs = []
        for line in rest.split("\r\n") if rest else ():
            name, _, value = line.partition(":")
            pairs.append((name.strip(), value.strip()))
        # Built in one call: adding the headers one by one costs half as much again.
        return version, status, CIMultiDict(pairs)


class _Target:
    """What aiohttp's connector errors print: ``host``, ``port`` and ``ssl``."""

    def __init__(self, server: Server) -> None:
        self.host, self.port = server.host, server.port
        self.ssl = self.is_ssl = server.tls


def server_disconnected() -> type[aiohttp.ServerDisconnectedError]:
    """The error of a connection the server closed (an ``except`` clause evaluates this
    only once something was raised)."""
    import aiohttp

    return aiohttp.ServerDisconnectedError


def disconnection() -> type[Exception]:
    """What an ``except`` clause catches for ``server_disconnected``'s error, without
    importing aiohttp: until aiohttp is imported, none of its errors can have been raised."""
    aiohttp = sys.modules.get("aiohttp")
    return _NeverRaised if aiohttp is None else aiohttp.ServerDisconnectedError


class _NeverRaised(Exception):
    """Matches nothing: what ``disconnection`` names before aiohttp is loaded."""


def not_connected(server: Server, err: OSError) -> aiohttp.ClientConnectorError:
    """The aiohttp error of a connection that could not be made (TLS ones are never retried)."""
    import aiohttp

    target: Any = _Target(server)
    if isinstance(err, ssl.SSLCertVerificationError):
        return aiohttp.ClientConnectorCertificateError(target, err)
    if isinstance(err, ssl.SSLError):
        return aiohttp.ClientConnectorSSLError(target, err)
    return aiohttp.ClientConnectorError(target, err)
