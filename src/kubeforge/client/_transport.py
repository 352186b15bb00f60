"""What sits under every request: TLS, proxies, identity headers, server warnings, and
turning failures into kubeforge errors.

``ssl_context()`` builds the ``SSLContext`` a ``Client`` uses; ``proxy_for()`` picks
the proxy (explicit, or from the environment as client-go does);
``identity_headers()`` are the impersonation headers; ``query_params()`` the query
string; ``warnings_of()`` reads the server's ``Warning`` headers; ``api_error()``
turns a non-2xx answer into the matching ``ApiError`` and ``transport_error()`` a
request that got none into ``TransportError``. Credentials live in
``kubeforge.client.auth``.
"""

from __future__ import annotations

import contextlib
import http
import ipaddress
import os
import re
import ssl
import sys
import tempfile
import urllib.parse
import urllib.request
import warnings
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import orjson
from multidict import CIMultiDict, CIMultiDictProxy

from kubeforge.client.requester import ParamValue
from kubeforge.config import ClientConfig
from kubeforge.core.errors import ApiError, ConfigError, TransportError
from kubeforge.core.status import failure

if TYPE_CHECKING:
    # Imported where a watch or a proxied request first needs it: whole-body requests
    # travel on Http1Pool, so a controller pays for aiohttp (a third of what importing
    # kubeforge costs) only once it watches.
    pass

__all__ = [
    "KubernetesWarning",
    "Streamed",
    "api_error",
    "failures",
    "identity_headers",
    "proxy_for",
    "query_params",
    "ssl_context",
    "transport_error",
    "warn",
    "warnings_of",
    "with_defaults",
    "with_query",
]


def ssl_context(
    config: ClientConfig, client_certificate: tuple[bytes, bytes] | None = None
) -> ssl.SSLContext | None:
    """The TLS settings of ``config``; ``None`` for a plain ``http://`` server.

    ``client_certificate`` (PEM certificate and key, as an exec plugin issues them)
    replaces the config's own. Raises ``ConfigError`` (naming ``config.source``)
    when a certificate or key cannot be loaded.
    """
    if client_certificate is not None:
        config = replace(
            config,
            client_cert_data=client_certificate[0],
            client_key_data=client_certificate[1],
            client_cert_file=None,
            client_key_file=None,
        )
    if not config.server.startswith("https://"):
        return None
    where = config.source or config.server
    # As client-go's TLSConfigFor: a cluster's own CA is the only root trusted, the
    # system's CAs only when the config names none (which also spares reading them).
    try:
        if config.ca_data is not None:
            cadata = config.ca_data.decode("ascii", "replace")
            context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=cadata)
        elif config.ca_file is not None:
            context = ssl.create_default_context(
                ssl.Purpose.SERVER_AUTH, cafile=str(config.ca_file)
            )
        else:
            context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    except (ssl.SSLError, OSError, ValueError) as err:
        raise ConfigError(f"{where}: cannot load the certificate authority ({err})") from err
    if not config.verify_tls:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    try:
        _load_client_cert(context, config)
    except (ssl.SSLError, OSError, ValueError) as err:
        raise ConfigError(f"{where}: cannot load the client certificate ({err})") from err
    return context


def _load_client_cert(context: ssl.SSLContext, config: ClientConfig) -> None:
    cert, key = config.client_cert_file, config.client_key_file
    if config.client_cert_data is None and config.client_key_data is None:
        if cert is not None:
            context.load_cert_chain(str(cert), str(key) if key else None)
        return
    # ``load_cert_chain`` only reads files. Inline data goes through private (0600) temp
    # files that are removed as soon as the context has read them, so the key never
    # outlives this call on disk.
    with contextlib.ExitStack() as stack:
        if config.client_cert_data is not None:
            cert = stack.enter_context(_private_file(config.client_cert_data))
        if config.client_key_data is not None:
            key = stack.enter_context(_private_file(config.client_key_data))
        if cert is None:
            raise ValueError("client key given without a certificate")
        context.load_cert_chain(str(cert), str(key) if key else None)


@contextlib.contextmanager
def _private_file(data: bytes) -> Iterator[Path]:
    fd, name = tempfile.mkstemp(prefix="kubeforge-", suffix=".pem")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        yield Path(name)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)


def proxy_for(config: ClientConfig) -> str | None:
    """The proxy URL for ``config.server``: ``proxy_url`` if set, else ``$HTTPS_PROXY`` /
    ``$HTTP_PROXY`` unless ``$NO_PROXY`` or a loopback address exempts the host (client-go
    never proxies loopback)."""
    if config.proxy_url:
        return config.proxy_url
    split = urllib.parse.urlsplit(config.server)
    host = split.hostname or ""
    if _is_loopback(host):
        return None
    proxies = urllib.request.getproxies_environment()
    if urllib.request.proxy_bypass(host):  # $NO_PROXY
        return None
    return proxies.get(split.scheme) or None


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# Characters an ``Impersonate-Extra-`` header name may carry unescaped (RFC 7230 token
# characters minus "%", which is the escape); the rest is percent-encoded, as client-go does.
_TOKEN_SAFE = "!#$&'*+-.^_`|~"


def identity_headers(config: ClientConfig) -> CIMultiDict[str]:
    """The impersonation headers of ``config`` (empty when it impersonates nobody).

    Groups and extra values repeat their header once per value, as the API expects.
    """
    headers: CIMultiDict[str] = CIMultiDict()
    if not config.impersonate_user:
        if config.impersonate_groups or config.impersonate_extra or config.impersonate_uid:
            raise ConfigError(
                f"{config.source or config.server}: impersonating groups, a uid or extra "
                "fields requires a user to impersonate (as)"
            )
        return headers
    headers["Impersonate-User"] = config.impersonate_user
    if config.impersonate_uid:
        headers["Impersonate-Uid"] = config.impersonate_uid
    for group in config.impersonate_groups:
        headers.add("Impersonate-Group", group)
    for key, values in config.impersonate_extra.items():
        name = "Impersonate-Extra-" + urllib.parse.quote(key, safe=_TOKEN_SAFE)
        for value in values:
            headers.add(name, value)
    return headers


class KubernetesWarning(UserWarning):
    """A ``Warning`` header from the API server: a deprecated API, an unknown field that
    was dropped (``fieldValidation=Warn``), a policy in audit mode, ..."""


# RFC 7234 warning-value: code SP agent SP quoted-text [SP date]
_WARNING = re.compile(r'\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"')


def warnings_of(values: Iterable[str]) -> list[str]:
    """The texts of the ``Warning`` header values the API server sends (code 299)."""
    texts = []
    for value in values:
        for match in _WARNING.finditer(value):
            if match.group(1) == "299":
                texts.append(re.sub(r"\\(.)", r"\1", match.group(3)))
    return texts


# Reasons client-go gives a bare HTTP error that carries no Status body.
_REASONS: dict[int, str] = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Gone",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


def api_error(code: int, body: bytes) -> ApiError:
    """The error for an answer with HTTP ``code``: the server's ``Status`` if it sent one,
    else a synthesized ``Status`` carrying the code, its usual reason and the body text."""
    try:
        decoded = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        decoded = None
    if isinstance(decoded, dict) and decoded.get("kind") == "Status":
        return ApiError.from_status(decoded, code)
    text = body.decode("utf-8", "replace").strip()
    try:
        phrase = http.HTTPStatus(code).phrase
    except ValueError:
        phrase = "unexpected status"
    message = text[:1000] if text else phrase  # an HTML error page must not flood the log
    return ApiError.from_status(failure(code, _REASONS.get(code, ""), message), code)


# --- streamed bodies and warnings ---------------------------------------------------------------


class Streamed(Protocol):
    """A streamed answer whose head arrived (``_http1_stream.LineStream``, or aiohttp's
    response behind a proxy, as ``AiohttpStreamed``)."""

    status: int
    headers: CIMultiDictProxy[str]

    async def read(self) -> bytes:
        """The rest of the body, whole."""
        ...

    def lines(self, idle_timeout: float | None, url: str) -> AsyncIterator[bytes]:
        """The body's non-empty lines (see ``lines``)."""
        ...


def warn(headers: CIMultiDictProxy[str]) -> None:
    """Raise each server ``Warning`` header as a ``KubernetesWarning``."""
    values = headers.getall("Warning", ())
    for text in warnings_of(values):
        warnings.warn(text, KubernetesWarning, stacklevel=4)


def with_defaults(headers: CIMultiDict[str], user_agent: str) -> list[tuple[str, str]]:
    """A request's headers with the client's defaults, merged as aiohttp merges a session's."""
    pairs = list(headers.items())
    pairs.append(("User-Agent", user_agent))
    if "Accept" not in headers:
        pairs.append(("Accept", "application/json"))
    return pairs


def with_query(path: str, query: list[tuple[str, str]] | None) -> str:
    """``path`` with ``query`` appended, percent-encoded.

    >>> with_query("/api/v1/pods", [("labelSelector", "app in (a,b)"), ("limit", "5")])
    '/api/v1/pods?labelSelector=app+in+%28a%2Cb%29&limit=5'
    """
    return f"{path}?{urllib.parse.urlencode(query)}" if query else path


def query_params(params: Mapping[str, ParamValue] | None) -> list[tuple[str, str]] | None:
    """``params`` as the query pairs aiohttp sends (``None`` when there are none)."""
    if not params:
        return None
    # The API server spells booleans as true/false; aiohttp refuses bools outright.
    # A list repeats the parameter (dryRun=All, fieldSelector pieces...).
    query: list[tuple[str, str]] = []
    for key, value in params.items():
        if isinstance(value, bool):
            query.append((key, "true" if value else "false"))
        elif isinstance(value, list):
            query.extend((key, str(item)) for item in value)
        else:
            query.append((key, str(value)))
    return query


def failures() -> tuple[type[Exception], ...]:
    """What a request that got no answer raises: aiohttp's client errors (``Http1Pool``
    raises them too) and timeouts. Called by an ``except`` clause, which evaluates it
    whenever something is raised (an ``ApiError``, a closed generator's exit): an aiohttp
    error exists only once aiohttp is imported, so until then this does not import it."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is None:
        return (TimeoutError,)
    return (aiohttp.ClientError, TimeoutError)


def transport_error(method: str, url: str, err: BaseException) -> TransportError:
    """The ``TransportError`` for a request that got no answer (a timeout says so)."""
    reason = str(err) or type(err).__name__
    if isinstance(err, TimeoutError) and not str(err):
        reason = "timed out"
    return TransportError(f"{method} {url}: {reason}")
