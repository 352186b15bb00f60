"""What sits under every request: TLS, credentials, and turning failures into kubeforge errors.

``ssl_context()`` builds the one ``SSLContext`` a ``Client`` uses; ``BearerAuth``
yields the ``Authorization`` header (re-reading a token file when it changes);
``api_error()`` turns a non-2xx answer into the matching ``ApiError``.

Other credential kinds (exec plugins, OIDC refresh) slot in as further
``Auth`` implementations: the client only ever asks an ``Auth`` for a header.
"""

from __future__ import annotations

import contextlib
import http
import os
import ssl
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import orjson

from kubeforge.config import ClientConfig
from kubeforge.core.errors import ApiError, ConfigError
from kubeforge.core.status import failure

__all__ = ["Auth", "BearerAuth", "api_error", "ssl_context"]


def ssl_context(config: ClientConfig) -> ssl.SSLContext | None:
    """The TLS settings of ``config``; ``None`` for a plain ``http://`` server.

    Raises ``ConfigError`` (naming ``config.source``) when a certificate or key
    cannot be loaded.
    """
    if not config.server.startswith("https://"):
        return None
    where = config.source or config.server
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    if not config.verify_tls:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    try:
        if config.ca_data is not None:
            context.load_verify_locations(cadata=config.ca_data.decode("ascii", "replace"))
        elif config.ca_file is not None:
            context.load_verify_locations(cafile=str(config.ca_file))
    except (ssl.SSLError, OSError, ValueError) as err:
        raise ConfigError(f"{where}: cannot load the certificate authority ({err})") from err
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


class Auth(Protocol):
    """Supplies the ``Authorization`` header for each request (``None``: anonymous)."""

    async def authorization(self) -> str | None: ...


class BearerAuth:
    """A static token, or a token file re-read whenever it changes on disk.

    A token file wins over a static token (client-go's rule) because projected
    service-account tokens rotate; the static token is the fallback while the
    file cannot be read. The token is never logged or put into messages.
    """

    def __init__(self, token: str | None = None, token_file: Path | None = None) -> None:
        self._static = token
        self._file = token_file
        self._file_token: str | None = None
        self._file_stamp: tuple[int, int, int] | None = None

    async def authorization(self) -> str | None:
        token = self._read_file() if self._file is not None else None
        token = token or self._static
        return f"Bearer {token}" if token else None

    def _read_file(self) -> str | None:
        assert self._file is not None
        try:
            # One stat per request is far cheaper than the request; it catches rotation at once.
            info = os.stat(self._file)
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
            if stamp != self._file_stamp:
                self._file_token = self._file.read_text(encoding="utf-8").strip() or None
                self._file_stamp = stamp
        except OSError:
            return self._file_token  # keep the last token read: a rotation must not drop auth
        return self._file_token


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
