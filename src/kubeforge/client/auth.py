"""Credentials: what goes into each request's ``Authorization`` header, and refreshing it.

Entry point: ``auth_for(config)`` picks the ``Auth`` a ``ClientConfig`` describes:
``ExecAuth`` for an exec plugin, ``BasicAuth`` for a username and password, else
``BearerAuth`` (a static token or a token file, possibly neither). A custom
``Auth`` can be passed to ``Client(auth=...)``.

After a 401 the client calls ``refresh(rejected)`` once, if the ``Auth`` has it,
and retries when it returns ``True``: a rotated token file is re-read at once and
an exec plugin is run again, so an expired credential costs one failed request.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Protocol, runtime_checkable

from kubeforge.config import ClientConfig

__all__ = ["Auth", "BasicAuth", "BearerAuth", "RefreshableAuth", "auth_for"]


class Auth(Protocol):
    """Supplies the ``Authorization`` header for each request (``None``: anonymous)."""

    async def authorization(self) -> str | None: ...


@runtime_checkable
class RefreshableAuth(Auth, Protocol):
    """An ``Auth`` that can get new credentials after the server refused the old ones."""

    async def refresh(self, rejected: str | None) -> bool:
        """Called after a 401 to a request sent with ``rejected`` (the header value);
        ``True`` when the next ``authorization()`` is worth a retry."""
        ...


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

    async def refresh(self, rejected: str | None) -> bool:
        """Re-read the token file even if it looks unchanged (a rewrite within the same
        timestamp tick and size is invisible to ``stat``); worth a retry if it differs."""
        if self._file is None:
            return False
        self._file_stamp = None
        return await self.authorization() != rejected

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


class BasicAuth:
    """HTTP basic authentication (kubeconfig ``username``/``password``)."""

    def __init__(self, username: str, password: str) -> None:
        pair = f"{username}:{password}".encode()
        self._header = "Basic " + base64.b64encode(pair).decode("ascii")

    async def authorization(self) -> str | None:
        return self._header


def auth_for(config: ClientConfig) -> Auth:
    """The credentials ``config`` describes (exec plugin, basic auth, or bearer token)."""
    if config.exec_plugin is not None:
        from kubeforge.client._exec import ExecAuth  # only a kubeconfig naming a plugin

        return ExecAuth(config.exec_plugin, config)
    if config.username and not (config.token or config.token_file):
        return BasicAuth(config.username, config.password or "")
    return BearerAuth(config.token, config.token_file)
