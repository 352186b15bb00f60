"""``Client``: one aiohttp session to one API server, and the request primitives under ``Api``.

Entry point::

    async with Client(load_config()) as client:
        pods = client.api(Pod, namespace="default")       # Api[Pod]
        widgets = client.dynamic(info, namespace="demo")   # Api[dict[str, Any]]
        info = await client.discovery.resolve("ptp")

Failures are typed: a non-2xx answer raises ``ApiError.from_status`` (the
server's ``Status``, or one synthesized from the HTTP code); a connection that
cannot be made or breaks raises ``TransportError`` chained to the aiohttp error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Mapping
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

import aiohttp
import orjson

from kubeforge.client._codec import DictCodec, encode, typed_codec
from kubeforge.client._transport import Auth, BearerAuth, api_error, ssl_context
from kubeforge.client.api import Api
from kubeforge.client.discovery import Discovery
from kubeforge.config import ClientConfig
from kubeforge.core.errors import TransportError
from kubeforge.core.resource import Resource, ResourceInfo

__all__ = ["Client", "RequestObserver"]

R = TypeVar("R", bound=Resource)

_log = logging.getLogger("kubeforge.client")

ParamValue = str | int | bool


class RequestObserver(Protocol):
    """Told about every request once its answer (or failure) is known; must not raise.

    The seam for request metrics (``rest_client_requests_total``), so the client
    never imports a metrics library. ``code`` is ``None`` when no answer came
    (connection failure); a watch is observed when its response headers arrive.
    """

    def request_done(self, method: str, host: str, code: int | None, seconds: float) -> None: ...


class Client:
    """An async connection to one Kubernetes API server.

    Create it anywhere; its ``aiohttp.ClientSession`` opens on first use inside the
    running event loop. Close it with ``async with`` or ``await client.close()``.
    ``auth`` replaces the bearer-token credentials derived from ``config`` (the hook
    where exec plugins and other credential sources plug in). ``observer`` is told
    about every request (see ``RequestObserver``).

    Raises ``ConfigError`` at construction if the TLS material cannot be loaded.
    """

    def __init__(
        self,
        config: ClientConfig,
        *,
        auth: Auth | None = None,
        observer: RequestObserver | None = None,
    ) -> None:
        self.config = config
        self._observer = observer
        self._host = config.server.split("://", 1)[-1].split("/", 1)[0]
        self.discovery = Discovery(self)
        self._ssl = ssl_context(config)
        self._auth: Auth = auth or BearerAuth(config.token, config.token_file)
        self._session: aiohttp.ClientSession | None = None
        self._closed = False
        self._timeout = aiohttp.ClientTimeout(
            total=config.request_timeout, sock_connect=config.connect_timeout
        )
        # A watch lasts as long as the server keeps it open (its timeoutSeconds); only
        # connecting is bounded here.
        self._stream_timeout = aiohttp.ClientTimeout(
            total=None, sock_read=None, sock_connect=config.connect_timeout
        )

    @property
    def default_namespace(self) -> str:
        """The namespace of the kubeconfig context (or the pod's own, in-cluster)."""
        return self.config.namespace

    def api(self, cls: type[R], namespace: str | None = None) -> Api[R]:
        """Typed verbs for ``cls`` (a ``Resource`` subclass) in ``namespace``.

        ``namespace=None``: list/watch span all namespaces and create/replace use
        each object's own ``metadata.namespace``.
        """
        return Api(self, cls.info, typed_codec(cls), namespace)

    def dynamic(self, info: ResourceInfo, namespace: str | None = None) -> Api[dict[str, Any]]:
        """The same verbs over plain dicts, for kinds without a Python class."""
        return Api(self, info, DictCodec(info), namespace)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, ParamValue] | None = None,
        body: Any = None,
        content_type: str | None = None,
    ) -> Any:
        """Send one request to ``path`` (e.g. ``/version``) and return the decoded JSON answer.

        ``body`` may be bytes/str (sent as is) or anything JSON-encodable, typed
        models included. Returns ``None`` for an empty answer and the text for a
        non-JSON one (``/healthz``).
        """
        data: bytes | None = None
        if body is not None:
            if isinstance(body, bytes):
                data = body
            elif isinstance(body, str):
                data = body.encode()
            else:
                data = encode(body)
            content_type = content_type or "application/json"
        raw = await self._send(
            method.upper(), path, params=params, data=data, content_type=content_type
        )
        if not raw:
            return None
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw.decode("utf-8", "replace")

    async def close(self) -> None:
        """Close the session; the client cannot be used afterwards."""
        self._closed = True
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def __aenter__(self) -> Self:
        self._ensure_session()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # --- primitives used by Api and Discovery ---------------------------------------------------

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, ParamValue] | None = None,
        data: bytes | None = None,
        content_type: str | None = None,
    ) -> bytes:
        """One request; the raw body of a 2xx answer, else the matching ``ApiError``."""
        session = self._ensure_session()
        headers = await self._headers(content_type if data is not None else None)
        url = self.config.server + path
        began, status = time.perf_counter(), None
        try:
            async with session.request(
                method,
                url,
                params=_query(params),
                data=data,
                headers=headers,
                server_hostname=self.config.tls_server_name,
            ) as response:
                status = response.status
                body = await response.read()
        except (aiohttp.ClientError, TimeoutError) as err:
            raise _transport_error(method, url, err) from err
        finally:
            if self._observer is not None:
                self._observer.request_done(method, self._host, status, time.perf_counter() - began)
        _log.debug("%s %s -> %d", method, path, status)
        if not 200 <= status < 300:
            raise api_error(status, body)
        return body

    async def _stream(
        self, path: str, params: Mapping[str, ParamValue] | None = None
    ) -> AsyncIterator[bytes]:
        """GET ``path`` and yield its body line by line until the server ends it.

        Lines are split by hand rather than with ``readline()`` so that one huge
        object (a watch line is a whole object) is never cut by a line-length limit.
        """
        session = self._ensure_session()
        headers = await self._headers(None)
        url = self.config.server + path
        began = time.perf_counter()
        observed = False
        try:
            async with session.get(
                url,
                params=_query(params),
                headers=headers,
                timeout=self._stream_timeout,
                server_hostname=self.config.tls_server_name,
            ) as response:
                _log.debug("GET %s (stream) -> %d", path, response.status)
                if self._observer is not None:
                    observed = True
                    seconds = time.perf_counter() - began
                    self._observer.request_done("GET", self._host, response.status, seconds)
                if response.status != 200:
                    raise api_error(response.status, await response.read())
                pending = b""
                async for chunk in response.content.iter_any():
                    if b"\n" not in chunk:
                        pending += chunk
                        continue
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        if line.strip():
                            yield line
                if pending.strip():
                    yield pending
        except (aiohttp.ClientError, TimeoutError) as err:
            if self._observer is not None and not observed:
                self._observer.request_done("GET", self._host, None, time.perf_counter() - began)
            raise _transport_error("GET", url, err) from err

    def _ensure_session(self) -> aiohttp.ClientSession:
        if self._closed:
            raise RuntimeError("this Client is closed")
        if self._session is None:
            connector = aiohttp.TCPConnector(
                ssl=self._ssl if self._ssl is not None else True,
                # Each watch pins a connection for minutes; a pool cap would queue ordinary
                # requests behind them, so the pool is unbounded.
                limit=0,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                timeout=self._timeout,
                headers={"User-Agent": self.config.user_agent, "Accept": "application/json"},
            )
        return self._session

    async def _headers(self, content_type: str | None) -> dict[str, str]:
        headers: dict[str, str] = {}
        authorization = await self._auth.authorization()
        if authorization:
            headers["Authorization"] = authorization
        if content_type:
            headers["Content-Type"] = content_type
        return headers


def _query(params: Mapping[str, ParamValue] | None) -> dict[str, str] | None:
    if not params:
        return None
    # The API server spells booleans as true/false; aiohttp refuses bools outright.
    return {
        key: ("true" if value else "false") if isinstance(value, bool) else str(value)
        for key, value in params.items()
    }


def _transport_error(method: str, url: str, err: BaseException) -> TransportError:
    reason = str(err) or type(err).__name__
    return TransportError(f"{method} {url}: {reason}")
