"""``/metrics`` over HTTPS for authorized callers only: ``MetricsAuth`` and ``SelfSignedTLS``.

What kubebuilder's scaffold does with controller-runtime's
``filters.WithAuthenticationAndAuthorization`` (pkg/metrics/filters): every request
must carry a bearer token, which the API server authenticates (a TokenReview), and
the user it names must be allowed ``get`` on the non-resource URL ``/metrics`` (a
SubjectAccessReview, answered by RBAC: kubebuilder's ``metrics-reader`` ClusterRole).
Answers are controller-runtime's: ``401 Unauthorized`` without a valid token, ``403
Authorization denied for user NAME`` without the permission, ``500`` when a review
itself failed. Reviews are cached as there: a token for 1 minute, an allow for 5
minutes, a deny for 30 seconds. The manager's ServiceAccount needs ``create`` on
``tokenreviews`` and ``subjectaccessreviews`` (kubebuilder's ``metrics-auth-role``).

Entry points: ``MetricsAuth(client, clock).guard(handler)`` wraps an aiohttp handler;
``metrics_tls(options)`` is the certificate to serve: the pair in
``metrics_cert_dir``, reloaded when it changes, or else ``SelfSignedTLS`` (controller-runtime
generates a self-signed one too).
"""

from __future__ import annotations

import hashlib
import logging
import ssl
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web

from kubeforge.core.clock import Clock
from kubeforge.runtime.options import ManagerOptions
from kubeforge.runtime.serving import TLSSource

__all__ = ["Handler", "MetricsAuth", "Reviewer", "SelfSignedTLS", "metrics_tls"]

log = logging.getLogger("kubeforge.runtime.metrics")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_TOKEN_TTL = 60.0  # DelegatingAuthenticatorConfig.CacheTTL
_ALLOW_TTL = 300.0  # DelegatingAuthorizerConfig.AllowCacheTTL
_DENY_TTL = 30.0  # DelegatingAuthorizerConfig.DenyCacheTTL
_TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"


class Reviewer(Protocol):
    """What the filter needs from a client: ``request`` (``client.Client`` has it)."""

    async def request(self, method: str, path: str, *, body: Any = None) -> Any: ...


def _error(status: int, message: str) -> web.Response:
    # Go's http.Error: the message and a newline, as plain text, never sniffed.
    return web.Response(
        status=status,
        text=message + "\n",
        content_type="text/plain",
        charset="utf-8",
        headers={"X-Content-Type-Options": "nosniff"},
    )


class MetricsAuth:
    """Authenticates with TokenReview and authorizes with SubjectAccessReview, cached."""

    def __init__(self, client: Reviewer, clock: Clock) -> None:
        self._client = client
        self._clock = clock
        self._users: dict[str, tuple[float, dict[str, Any] | None]] = {}
        self._decisions: dict[tuple[Any, ...], tuple[float, bool]] = {}

    def guard(self, handler: Handler) -> Handler:
        """``handler`` behind authentication and authorization."""

        async def guarded(request: web.Request) -> web.StreamResponse:
            refusal = await self.check(request)
            return refusal if refusal is not None else await handler(request)

        return guarded

    async def check(self, request: web.Request) -> web.Response | None:
        """``None`` when the caller may read the metrics, else the answer to send."""
        token = _bearer(request.headers.get("Authorization", ""))
        try:
            user = await self._authenticate(token) if token else None
        except Exception:
            log.exception("metrics: authentication failed")
            return _error(500, "Authentication failed")
        if user is None:
            return _error(401, "Unauthorized")
        name = str(user.get("username", ""))
        try:
            allowed = await self._authorize(user, request.method.lower(), request.path)
        except Exception:
            log.exception("metrics: authorization for user %s failed", name)
            return _error(500, f"Authorization for user {name} failed")
        if not allowed:
            return _error(403, f"Authorization denied for user {name}")
        return None

    async def _authenticate(self, token: str) -> dict[str, Any] | None:
        key = hashlib.sha256(token.encode()).hexdigest()  # never keep the token itself
        now = self._clock.now()
        cached = self._users.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        review = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenReview",
            "spec": {"token": token},
        }
        status = (await self._client.request("POST", _TOKEN_REVIEWS, body=review))["status"]
        user = dict(status.get("user") or {}) if status.get("authenticated") else None
        self._users[key] = (now + _TOKEN_TTL, user)
        return user

    async def _authorize(self, user: dict[str, Any], verb: str, path: str) -> bool:
        groups = tuple(user.get("groups") or ())
        key = (user.get("username"), user.get("uid"), groups, verb, path)
        now = self._clock.now()
        cached = self._decisions.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        spec: dict[str, Any] = {
            "user": user.get("username", ""),
            "groups": list(groups),
            "nonResourceAttributes": {"path": path, "verb": verb},
        }
        if user.get("uid"):
            spec["uid"] = user["uid"]
        if user.get("extra"):
            spec["extra"] = user["extra"]
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": spec,
        }
        status = (await self._client.request("POST", _ACCESS_REVIEWS, body=review))["status"]
        allowed = bool(status.get("allowed"))
        self._decisions[key] = (now + (_ALLOW_TTL if allowed else _DENY_TTL), allowed)
        return allowed


def _bearer(header: str) -> str:
    """The token of ``Authorization: Bearer TOKEN`` (the scheme in any case), else ``""``."""
    scheme, _, token = header.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


class SelfSignedTLS:
    """A certificate for ``localhost`` made at start, for a manager given no certificate."""

    def __init__(self, hosts: tuple[str, ...] = ("localhost", "127.0.0.1")) -> None:
        self._hosts = hosts
        self._context: ssl.SSLContext | None = None

    def server_context(self) -> ssl.SSLContext:
        if self._context is None:
            # Deferred: the webhook package imports cryptography, only needed here.
            from kubeforge.webhook.certs import ServingCert

            cert = ServingCert.generate(list(self._hosts))
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            with tempfile.TemporaryDirectory(prefix="kubeforge-metrics-") as directory:
                cert.write(Path(directory))  # the ssl module loads a pair from files only
                context.load_cert_chain(Path(directory) / "tls.crt", Path(directory) / "tls.key")
            self._context = context
        return self._context

    async def start(self) -> None:
        self.server_context()

    async def stop(self) -> None:
        """Nothing to release: the pair lives in memory only."""


def metrics_tls(options: ManagerOptions) -> TLSSource:
    """The metrics server's certificate: ``options.metrics_cert_dir``'s pair, or self-signed."""
    if not options.metrics_cert_dir:
        return SelfSignedTLS()
    from kubeforge.webhook.certwatcher import CertWatcher

    directory = Path(options.metrics_cert_dir)
    # A registry of its own: the webhook server's watcher counts into the manager's.
    return CertWatcher(directory / options.metrics_cert_name, directory / options.metrics_cert_key)
