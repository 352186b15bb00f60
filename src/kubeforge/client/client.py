"""``Client``: the connections to one API server, and the request primitives under ``Api``.

Entry point::

    async with Client(load_config()) as client:
        pods = client.api(Pod, namespace="default")       # Api[Pod]
        widgets = client.dynamic(info, namespace="demo")   # Api[dict[str, Any]]
        secrets = client.metadata(Secret)                  # metadata only, on the wire too
        info = await client.discovery.resolve("ptp")

Every request goes through the same steps: the optional client-side rate limiter
(``qps``/``burst``), credentials (refreshed once after a 401), impersonation
headers, the per-request timeout, retries with backoff (see
``kubeforge.client._resilience`` for exactly which failures are retried), and the
server's ``Warning`` headers, which are raised as ``KubernetesWarning``.

Whole-body exchanges travel on ``Http1Pool``'s kept-alive HTTP/1.1 connections (a
fraction of aiohttp's CPU per request), and each watch on a connection of its own from
the same pool (``_http1_stream``); only requests through a proxy take an aiohttp session.

Failures are typed: a non-2xx answer raises ``ApiError.from_status`` (the
server's ``Status``, or one synthesized from the HTTP code); a connection that
cannot be made or breaks raises ``TransportError`` chained to the aiohttp error.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

import orjson
from multidict import CIMultiDict

from kubeforge.client._codec import DictCodec, encode, typed_codec
from kubeforge.client._http1 import Http1Pool, split_server
from kubeforge.client._http1_stream import open_stream
from kubeforge.client._proxied import Proxied, new_session, proxied_stream
from kubeforge.client._resilience import RateLimiter, RetryPolicy
from kubeforge.client._transport import (
    KubernetesWarning,
    Streamed,
    api_error,
    failures,
    identity_headers,
    proxy_for,
    query_params,
    ssl_context,
    transport_error,
    warn,
    with_defaults,
    with_query,
)
from kubeforge.client.api import Api
from kubeforge.client.auth import Auth, RefreshableAuth, auth_for
from kubeforge.client.discovery import Discovery
from kubeforge.client.metadata import (
    METADATA_ACCEPT,
    PartialObjectMetadata,
    is_metadata_kind,
    metadata_codec,
    metadata_kind,
)
from kubeforge.client.requester import Answer, ParamValue
from kubeforge.config import ClientConfig
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.resource import Resource, ResourceInfo

if TYPE_CHECKING:
    import ssl

    import aiohttp

__all__ = ["Client", "KubernetesWarning", "RequestObserver"]

R = TypeVar("R", bound=Resource)

_log = logging.getLogger("kubeforge.client")


class RequestObserver(Protocol):
    """Told about every request once its answer (or failure) is known; must not raise.

    The seam for request metrics (``rest_client_requests_total``), so the client
    never imports a metrics library. ``code`` is ``None`` when no answer came
    (connection failure); a watch is observed when its response headers arrive.
    Each retry is a request of its own, as in client-go.
    """

    def request_done(self, method: str, host: str, code: int | None, seconds: float) -> None: ...


class Client:
    """An async connection to one Kubernetes API server.

    Create it anywhere; its connections open on first use inside the running event
    loop (an ``aiohttp.ClientSession`` only for requests through a proxy: a client
    without one never imports aiohttp). Close it with
    ``async with`` or ``await client.close()``. ``auth`` replaces the credentials
    derived from ``config`` (see ``auth_for``); ``observer`` is told about every
    request (see ``RequestObserver``); ``clock`` paces the rate limiter and retry
    backoff (tests inject a ``FakeClock``).

    Raises ``ConfigError`` at construction if the TLS material cannot be loaded.
    """

    def __init__(
        self,
        config: ClientConfig,
        *,
        auth: Auth | None = None,
        observer: RequestObserver | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.config = config
        self.discovery = Discovery(self)
        self._observer = observer
        self._host = config.server.split("://", 1)[-1].split("/", 1)[0]
        self._ssl = ssl_context(config)
        self._auth: Auth = auth or auth_for(config)
        self._identity = identity_headers(config)
        self._proxy = proxy_for(config)
        self._clock = clock or MonotonicClock()
        self._limiter = RateLimiter(config.qps, config.burst, self._clock) if config.qps else None
        self._retry = RetryPolicy(config.max_retries)
        self._session: aiohttp.ClientSession | None = None
        self._pool: Http1Pool | None = None
        # What the open connections were made with: None until the first request.
        self._connections: tuple[ssl.SSLContext | None, tuple[bytes, bytes] | None] | None = None
        self._closed = False
        # An exec plugin's certificate may be re-issued: then every request checks it.
        self._issues_certificates = getattr(self._auth, "client_certificate", None) is not None

    @property
    def default_namespace(self) -> str:
        """The namespace of the kubeconfig context (or the pod's own, in-cluster)."""
        return self.config.namespace

    def api(
        self, cls: type[R], namespace: str | None = None, *, timeout: float | None = None
    ) -> Api[R]:
        """Typed verbs for ``cls`` (a ``Resource`` subclass) in ``namespace``.

        ``namespace=None``: list/watch span all namespaces and create/replace use
        each object's own ``metadata.namespace``. ``timeout`` (seconds) bounds each
        request of this ``Api`` instead of ``config.request_timeout``. A class made
        by ``metadata_kind`` gets the ``Api`` of ``metadata()``.
        """
        if is_metadata_kind(cls):
            return self.metadata(cls.info, namespace, timeout=timeout)  # type: ignore[return-value]
        return Api(self, cls.info, typed_codec(cls), namespace, timeout=timeout)

    def metadata(
        self,
        kind: type[Resource] | ResourceInfo,
        namespace: str | None = None,
        *,
        timeout: float | None = None,
    ) -> Api[PartialObjectMetadata]:
        """The verbs of ``kind`` (a class or a ``ResourceInfo``) with metadata only.

        The server is asked for ``PartialObjectMetadata``, so no spec, status or data
        crosses the wire; objects come back as ``metadata_kind(info)`` instances that
        name ``kind`` as theirs. Reads, watches and patches are what this is for (a
        patch answers the patched object's metadata).
        """
        info = kind if isinstance(kind, ResourceInfo) else kind.info
        codec = metadata_codec(metadata_kind(info))
        return Api(self, info, codec, namespace, timeout=timeout, accept=METADATA_ACCEPT)

    def dynamic(
        self, info: ResourceInfo, namespace: str | None = None, *, timeout: float | None = None
    ) -> Api[dict[str, Any]]:
        """The same verbs over plain dicts, for kinds without a Python class."""
        return Api(self, info, DictCodec(info), namespace, timeout=timeout)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, ParamValue] | None = None,
        body: Any = None,
        content_type: str | None = None,
        timeout: float | None = None,
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
        answer = await self.exchange(
            method.upper(),
            path,
            params=params,
            data=data,
            content_type=content_type,
            timeout=timeout,
        )
        raw = answer.body
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
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
        if session is not None:
            await session.close()

    async def __aenter__(self) -> Self:
        await self._ensure_connections()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # --- the Requester primitives Api and Discovery are written against -----------------------

    async def exchange(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, ParamValue] | None = None,
        data: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
        timeout: float | None = None,
    ) -> Answer:
        """One request, retried as the policy allows; its 2xx answer, else the matching
        ``ApiError``. ``timeout`` (seconds) replaces ``config.request_timeout`` for it."""
        url = self.config.server + path
        query = query_params(params)
        seconds_allowed = timeout if timeout is not None else self.config.request_timeout
        attempt, refreshed = 0, False
        while True:
            attempt += 1
            if self._limiter is not None:
                await self._limiter.wait()
            if self._closed or self._connections is None or self._issues_certificates:
                await self._ensure_connections()
            headers = await self._headers(content_type if data is not None else None, accept)
            began = time.perf_counter()
            status: int | None = None
            try:
                if self._pool is not None:
                    pairs = with_defaults(headers, self.config.user_agent)
                    status, answer_headers, body = await self._pool.request(
                        method, with_query(path, query), pairs, data, seconds_allowed
                    )
                    answer = Answer(status, body, answer_headers)
                else:
                    proxied = Proxied(
                        self._proxy, self.config.tls_server_name, self.config.connect_timeout
                    )
                    answer = await proxied.exchange(
                        await self._ensure_session(),
                        method,
                        url,
                        query,
                        data,
                        headers,
                        seconds_allowed,
                    )
                    status = answer.status
            except failures() as err:
                delay = self._retry.after_failure(method, err, attempt)
                if delay is None:
                    raise transport_error(method, url, err) from err
                _log.debug(
                    "%s %s failed (%s); retry %d in %.2fs", method, path, err, attempt, delay
                )
                await self._clock.sleep(delay)
                continue
            finally:
                if self._observer is not None:
                    seconds = time.perf_counter() - began
                    self._observer.request_done(method, self._host, status, seconds)
            _log.debug("%s %s -> %d", method, path, answer.status)
            warn(answer.headers)
            if 200 <= answer.status < 300:
                return answer
            error = api_error(answer.status, answer.body)
            if answer.status == 404 and not error.details.get("name"):
                # Not a missing object but a missing resource type (a removed CRD, say):
                # whatever discovery cached about it is stale.
                self.discovery.invalidate()
            if answer.status == 401 and not refreshed and isinstance(self._auth, RefreshableAuth):
                refreshed = True
                if await self._auth.refresh(headers.get("Authorization")):
                    attempt -= 1  # a refreshed credential is a new start, not a retry
                    continue
            delay = self._retry.after_answer(method, error, answer.headers, attempt)
            if delay is None:
                raise error
            _log.debug("%s %s -> %d; retry %d in %.2fs", method, path, error.code, attempt, delay)
            await self._clock.sleep(delay)

    async def stream(
        self,
        path: str,
        params: Mapping[str, ParamValue] | None = None,
        *,
        idle_timeout: float | None = None,
        accept: str | None = None,
    ) -> AsyncIterator[bytes]:
        """GET ``path`` and yield its body line by line until the server ends it.

        ``idle_timeout``: if no byte arrives for that many seconds (a watch gets at
        least a bookmark now and then), the connection is presumed dead and
        ``TransportError`` is raised. Lines are split by hand rather than with
        ``readline()`` so that one huge object is never cut by a line-length limit.
        """
        url = self.config.server + path
        query = query_params(params)
        refreshed = False
        while True:
            if self._limiter is not None:
                await self._limiter.wait()
            await self._ensure_connections()
            headers = await self._headers(None, accept)
            began = time.perf_counter()
            observed = False
            try:
                async with self._streamed(path, query, headers) as response:
                    _log.debug("GET %s (stream) -> %d", path, response.status)
                    if self._observer is not None:
                        observed = True
                        seconds = time.perf_counter() - began
                        self._observer.request_done("GET", self._host, response.status, seconds)
                    warn(response.headers)
                    if response.status != 200:
                        error = api_error(response.status, await response.read())
                        if (
                            response.status == 401
                            and not refreshed
                            and isinstance(self._auth, RefreshableAuth)
                            and await self._auth.refresh(headers.get("Authorization"))
                        ):
                            refreshed = True
                            continue
                        raise error
                    async for line in response.lines(idle_timeout, url):
                        yield line
                    return
            except failures() as err:
                if self._observer is not None and not observed:
                    seconds = time.perf_counter() - began
                    self._observer.request_done("GET", self._host, None, seconds)
                raise transport_error("GET", url, err) from err

    @contextlib.asynccontextmanager
    async def _streamed(
        self, path: str, query: list[tuple[str, str]] | None, headers: CIMultiDict[str]
    ) -> AsyncIterator[Streamed]:
        """A streamed GET's answer, once its head arrived: on a connection of its own from
        the pool, or through aiohttp when a proxy carries the requests."""
        if self._pool is not None:
            pairs = with_defaults(headers, self.config.user_agent)
            async with open_stream(self._pool, with_query(path, query), pairs) as stream:
                yield stream
            return
        session = await self._ensure_session()
        async with proxied_stream(
            session, self.config, self._proxy, path, query, headers
        ) as response:
            yield response

    async def _ensure_connections(self) -> None:
        """Make ready what requests travel on; again when the credential's certificate changed."""
        if self._closed:
            raise RuntimeError("this Client is closed")
        certificate = None
        issue = getattr(self._auth, "client_certificate", None)
        if issue is not None:
            certificate = await issue()
        if self._connections is not None and certificate == self._connections[1]:
            return
        if self._session is not None:
            # The exec plugin issued a new certificate: new connections must use it, and
            # old ones are closed (watches on them reconnect), as client-go does.
            old, self._session = self._session, None
            await old.close()
        if self._pool is not None:
            self._pool.close()
        tls = self._ssl if certificate is None else ssl_context(self.config, certificate)
        # Whole-body exchanges go through Http1Pool (a fraction of aiohttp's CPU per
        # request); aiohttp keeps watches and anything sent through a proxy.
        self._pool = (
            Http1Pool(
                split_server(self.config.server),
                ssl=tls,
                server_hostname=self.config.tls_server_name,
                connect_timeout=self.config.connect_timeout,
            )
            if self._proxy is None
            else None
        )
        self._connections = (tls, certificate)

    async def _ensure_session(self) -> aiohttp.ClientSession:
        """The aiohttp session of proxied requests and watches, opened on the first one."""
        await self._ensure_connections()
        if self._session is not None:
            return self._session
        assert self._connections is not None
        self._session = new_session(self.config, self._connections[0])
        return self._session

    async def _headers(self, content_type: str | None, accept: str | None) -> CIMultiDict[str]:
        headers = self._identity.copy()
        authorization = await self._auth.authorization()
        if authorization:
            headers["Authorization"] = authorization
        if content_type:
            headers["Content-Type"] = content_type
        if accept:
            headers["Accept"] = accept
        return headers
