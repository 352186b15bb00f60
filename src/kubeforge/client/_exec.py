"""Exec credential plugins (``client.authentication.k8s.io`` v1 and v1beta1).

``ExecAuth`` runs the kubeconfig's command, reads the ``ExecCredential`` it prints
(a bearer token, or a client certificate and key), and caches it until its
``expirationTimestamp`` (forever when it has none). After a 401 the client calls
``refresh()`` and the plugin runs again, once for all the requests that failed
together. Failures raise ``ExecPluginError`` naming the kubeconfig, context, user
and command; the credential itself is never logged or put in a message.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from kubeforge.config import ClientConfig, ExecConfig
from kubeforge.core.errors import ConfigError

__all__ = ["ExecAuth", "ExecCredential", "ExecPluginError"]

_STDERR_LINES = 5  # enough of a failing plugin's stderr to explain itself


class ExecPluginError(ConfigError):
    """The exec credential plugin could not be run, failed, or printed something unusable."""


@dataclass(frozen=True, slots=True)
class ExecCredential:
    """What one run of the plugin produced."""

    token: str | None
    client_certificate: bytes | None
    client_key: bytes | None
    expires: datetime.datetime | None

    def __repr__(self) -> str:  # the credential must never reach a log through repr
        return f"ExecCredential(token={'***' if self.token else None}, expires={self.expires})"


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class ExecAuth:
    """Credentials from ``plugin``; ``config`` supplies the cluster for ``provideClusterInfo``.

    ``now`` (wall-clock UTC) is injectable so tests can move past an expiry.
    """

    def __init__(
        self,
        plugin: ExecConfig,
        config: ClientConfig,
        *,
        now: Callable[[], datetime.datetime] = _utcnow,
    ) -> None:
        self.plugin = plugin
        self._config = config
        self._now = now
        self._cached: ExecCredential | None = None
        self._lock = asyncio.Lock()
        self.runs = 0
        """How many times the plugin has been run (for diagnostics and tests)."""

    async def authorization(self) -> str | None:
        credential = await self.credential()
        return f"Bearer {credential.token}" if credential.token else None

    async def client_certificate(self) -> tuple[bytes, bytes] | None:
        """The certificate and key the plugin issued, if it issued those instead of a token."""
        credential = await self.credential()
        if credential.client_certificate and credential.client_key:
            return credential.client_certificate, credential.client_key
        return None

    async def refresh(self, rejected: str | None) -> bool:
        async with self._lock:
            current = self._cached
            if current is not None and _header(current) != rejected:
                return True  # another request already got fresh credentials
            self._cached = None
        return True

    async def credential(self) -> ExecCredential:
        """The cached credential, or a fresh one when there is none or it has expired."""
        async with self._lock:
            cached = self._cached
            if cached is None or (cached.expires is not None and self._now() >= cached.expires):
                cached = self._cached = await self._run()
            return cached

    # --- running the plugin -------------------------------------------------------------------

    def _fail(self, problem: str) -> ExecPluginError:
        where = self.plugin.source or "kubeconfig"
        return ExecPluginError(f'{where}: exec plugin "{self.plugin.command}": {problem}')

    async def _run(self) -> ExecCredential:
        plugin = self.plugin
        interactive = self._interactive()
        env = {**os.environ, **dict(plugin.env)}
        env["KUBERNETES_EXEC_INFO"] = orjson.dumps(self._exec_info(interactive)).decode()
        try:
            process = await asyncio.create_subprocess_exec(
                plugin.command,
                *plugin.args,
                stdin=None if interactive else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=None if interactive else asyncio.subprocess.PIPE,
                env=env,
            )
        except FileNotFoundError:
            hint = f" ({plugin.install_hint.strip()})" if plugin.install_hint.strip() else ""
            raise self._fail(f"executable not found{hint}") from None
        except PermissionError:
            raise self._fail("not executable (permission denied)") from None
        out, err = await process.communicate()
        self.runs += 1
        if process.returncode != 0:
            tail = (err or b"").decode("utf-8", "replace").strip().splitlines()[-_STDERR_LINES:]
            said = f": {' / '.join(tail)}" if tail else ""
            raise self._fail(f"exited with code {process.returncode}{said}")
        return self._parse(out)

    def _interactive(self) -> bool:
        mode = self.plugin.interactive_mode
        if mode == "Never":
            return False
        has_terminal = sys.stdin is not None and sys.stdin.isatty()
        if mode == "Always" and not has_terminal:
            raise self._fail("interactiveMode is Always but standard input is not a terminal")
        return has_terminal

    def _exec_info(self, interactive: bool) -> dict[str, Any]:
        spec: dict[str, Any] = {"interactive": interactive}
        if self.plugin.provide_cluster_info:
            config = self._config
            cluster: dict[str, Any] = {"server": config.server}
            if config.tls_server_name:
                cluster["tls-server-name"] = config.tls_server_name
            if not config.verify_tls:
                cluster["insecure-skip-tls-verify"] = True
            ca = config.ca_data
            if ca is None and config.ca_file is not None:
                ca = config.ca_file.read_bytes()
            if ca is not None:
                cluster["certificate-authority-data"] = base64.b64encode(ca).decode()
            if config.proxy_url:
                cluster["proxy-url"] = config.proxy_url
            if self.plugin.cluster_config is not None:
                cluster["config"] = self.plugin.cluster_config
            spec["cluster"] = cluster
        return {"apiVersion": self.plugin.api_version, "kind": "ExecCredential", "spec": spec}

    def _parse(self, out: bytes) -> ExecCredential:
        try:
            doc = orjson.loads(out)
        except orjson.JSONDecodeError:
            raise self._fail("printed something that is not JSON") from None
        if not isinstance(doc, dict) or doc.get("kind") != "ExecCredential":
            raise self._fail("did not print an ExecCredential")
        if doc.get("apiVersion") != self.plugin.api_version:
            raise self._fail(
                f"is configured for {self.plugin.api_version} but answered in "
                f"{doc.get('apiVersion')!r}"
            )
        status = doc.get("status")
        if not isinstance(status, dict):
            raise self._fail("the ExecCredential has no status")
        token = status.get("token") or None
        cert = status.get("clientCertificateData") or None
        key = status.get("clientKeyData") or None
        if bool(cert) != bool(key):
            raise self._fail("returned a client certificate without a key, or a key without one")
        if not token and not cert:
            raise self._fail("returned neither a token nor a client certificate and key")
        if not all(v is None or isinstance(v, str) for v in (token, cert, key)):
            raise self._fail("token, clientCertificateData and clientKeyData must be strings")
        return ExecCredential(
            token=token,
            client_certificate=cert.encode() if cert else None,
            client_key=key.encode() if key else None,
            expires=self._expiry(status.get("expirationTimestamp")),
        )

    def _expiry(self, value: object) -> datetime.datetime | None:
        if not value:
            return None
        if not isinstance(value, str):
            raise self._fail("expirationTimestamp must be an RFC 3339 string")
        try:
            when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise self._fail(f"expirationTimestamp {value!r} is not RFC 3339") from None
        return when if when.tzinfo else when.replace(tzinfo=datetime.UTC)


def _header(credential: ExecCredential) -> str | None:
    return f"Bearer {credential.token}" if credential.token else None
