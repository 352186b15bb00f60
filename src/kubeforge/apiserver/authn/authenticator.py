"""Who is asking: bearer tokens to users, service-account and user tokens, impersonation.

Three kinds of bearer token are accepted:

* the server's own token (the admin kubeconfig): user ``kubernetes-admin`` in the
  ``system:masters`` group, which every authorizer lets through;
* user tokens, minted for a user name and groups (``user_token``), which is how a
  second, restricted kubeconfig is made (``kubeforge apiserver --user-kubeconfig``,
  ``LocalApiServer.kubeconfig_for``);
* service-account tokens from the TokenRequest API
  (``POST .../serviceaccounts/{name}/token``, what ``kubectl create token`` calls),
  exactly as a 1.32 server issues them: RS256 under the server's signing key
  (``signing``: ``sa.key`` in the data directory), with the real claims and checks
  (``serviceaccount``), verifiable by any OIDC consumer against ``/openid/v1/jwks``.

User tokens stay HS256 JWTs under a key derived from the server token: they are this
project's stand-in for a real cluster's user credentials (a client certificate or an
OIDC token), which the test harness mints with ``user_token`` without starting a server
or reading its signing key; a server restarted on the same data directory honours them.

Impersonation follows the real headers (``Impersonate-User``, ``-Group``, ``-Uid``,
``-Extra-*``); the caller needs the ``impersonate`` verb on what it impersonates.

Entry points: ``Authenticator`` (``review`` answers a TokenReview, ``authenticate_token``
a request), ``UserInfo``, ``user_token``, ``signing_key``.
"""

from __future__ import annotations

import binascii
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from kubeforge.apiserver.authn.bound import BoundObjects, ObjectLookup
from kubeforge.apiserver.authn.legacy import LEGACY_ISSUER, invalidated, verify_legacy
from kubeforge.apiserver.authn.serviceaccount import Verified, token_claims, verify
from kubeforge.apiserver.authn.signing import KeyFile, SigningKey, TokenError, unverified_claims
from kubeforge.apiserver.authn.usertokens import (
    USER_ISSUER,
    signing_key,
    user_token,
    verify_user_token,
)

__all__ = [
    "ADMIN",
    "API_AUDIENCE",
    "AUTHENTICATED",
    "MASTERS",
    "Authentication",
    "Authenticator",
    "Impersonation",
    "UserInfo",
    "service_account_user",
    "signing_key",
    "split_service_account",
    "user_token",
]

MASTERS = "system:masters"
AUTHENTICATED = "system:authenticated"
API_AUDIENCE = "https://kubernetes.default.svc.cluster.local"
"""The issuer and API audience of service-account tokens, as kubeadm configures them."""
_SA_PREFIX = "system:serviceaccount:"
_CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"
# What the bearer-token authenticator says when no authenticator gave a reason.
_INVALID = "invalid bearer token"


@dataclass(frozen=True)
class UserInfo:
    """An authenticated identity, as authorizers and admission webhooks see it."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)

    @property
    def privileged(self) -> bool:
        """Members of ``system:masters`` are allowed everything, before any authorizer runs."""
        return MASTERS in self.groups

    def to_dict(self) -> dict[str, Any]:
        """The ``UserInfo`` of reviews and AdmissionReviews."""
        body: dict[str, Any] = {"username": self.name}
        if self.uid:
            body["uid"] = self.uid
        if self.groups:
            body["groups"] = list(self.groups)
        if self.extra:
            body["extra"] = {k: list(v) for k, v in self.extra.items()}
        return body


ADMIN = UserInfo("kubernetes-admin", groups=(MASTERS, AUTHENTICATED))


def service_account_user(namespace: str, name: str, uid: str = "") -> UserInfo:
    return UserInfo(
        f"{_SA_PREFIX}{namespace}:{name}",
        uid=uid,
        groups=("system:serviceaccounts", f"system:serviceaccounts:{namespace}", AUTHENTICATED),
    )


def split_service_account(username: str) -> tuple[str, str] | None:
    """``(namespace, name)`` of a ``system:serviceaccount:ns:name`` user name, else ``None``."""
    if not username.startswith(_SA_PREFIX):
        return None
    namespace, _, name = username[len(_SA_PREFIX) :].partition(":")
    return (namespace, name) if namespace and name and ":" not in name else None


# --- the authenticator ------------------------------------------------------------------------

ServiceAccountLookup = Callable[[str, str], "dict[str, Any] | None"]
"""``(namespace, name) -> ServiceAccount`` or ``None``: bound tokens die with their account."""


@dataclass(frozen=True)
class Authentication:
    """What one token authenticates as: ``user`` (``None``: refused, ``error`` says why, in
    the words of a TokenReview) and the audiences it was accepted for."""

    user: UserInfo | None
    audiences: tuple[str, ...] = ()
    error: str = ""


class Authenticator:
    """Maps a request's bearer token (and impersonation headers) to a ``UserInfo``.

    ``service_accounts`` and ``bound_objects`` look up what service-account tokens depend
    on; without them (unit tests) those checks are skipped. ``keys`` holds the signing
    key (default: the process's own, as a server without a data directory has)."""

    def __init__(
        self,
        server_token: str,
        *,
        service_accounts: ServiceAccountLookup | None = None,
        bound_objects: ObjectLookup | None = None,
        clock: Callable[[], float] = time.time,
        keys: KeyFile | None = None,
        issuer: str = API_AUDIENCE,
        api_audiences: tuple[str, ...] = (API_AUDIENCE,),
        legacy_token_used: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self._token = server_token
        self._token_bytes = server_token.encode()
        self._key = signing_key(server_token)
        self._service_accounts = service_accounts
        self._bound_objects = bound_objects
        self._clock = clock
        self._keys = keys if keys is not None else KeyFile(None)
        self.issuer = issuer
        self.api_audiences = api_audiences
        self._legacy_used = legacy_token_used
        self._admin = (api_audiences, self._audience_agnostic(ADMIN, api_audiences))

    @property
    def signing(self) -> SigningKey:
        """The key service-account tokens are signed with (read or made on first use)."""
        return self._keys.key

    def authenticate_token(self, token: str, audiences: tuple[str, ...] = ()) -> UserInfo | None:
        """The identity of ``token``, or ``None`` when it is not valid (for this audience)."""
        return self.review(token, audiences).user

    def review(self, token: str, audiences: tuple[str, ...] = ()) -> Authentication:
        """Authenticate ``token`` for ``audiences`` (default: the API's own), as the
        server's authenticator chain does for a TokenReview."""
        targets = audiences or self.api_audiences
        # Constant-time compare: the server token is the only secret guarding admin access.
        if hmac.compare_digest(token.encode(), self._token_bytes):
            audiences_of_admin, admin = self._admin
            if targets is audiences_of_admin:
                return admin  # most requests: worked out once
            return self._audience_agnostic(ADMIN, targets)
        claims = unverified_claims(token)
        issuer = claims.get("iss") if claims is not None else None
        if issuer == self.issuer:
            return self._service_account(token, targets)
        if issuer == LEGACY_ISSUER and self._service_accounts is not None:
            return self._legacy(token, targets)
        if issuer == USER_ISSUER:
            verified = verify_user_token(self._key, token)
            if verified is not None:
                groups = tuple(str(g) for g in verified.get("groups") or [] if g != AUTHENTICATED)
                user = UserInfo(str(verified.get("sub") or ""), groups=(*groups, AUTHENTICATED))
                return self._audience_agnostic(user, targets)
        return Authentication(None, error=_INVALID)

    def _audience_agnostic(self, user: UserInfo, targets: tuple[str, ...]) -> Authentication:
        # Credentials without audiences are good for the API's own audiences only
        # (``authenticator.WrapAudienceAgnosticToken``).
        accepted = tuple(a for a in targets if a in self.api_audiences)
        return Authentication(user, accepted) if accepted else Authentication(None, error=_INVALID)

    def _service_account(self, token: str, targets: tuple[str, ...]) -> Authentication:
        try:
            verified = verify(
                self.signing,
                token,
                api_audiences=self.api_audiences,
                requested=targets,
                lookup=self._lookup if self._service_accounts is not None else None,
                now=self._clock(),
            )
        except TokenError as error:
            return Authentication(None, error=str(error))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            return Authentication(None, error=_INVALID)  # not a JWS: go-jose will not parse it
        return Authentication(_account_user(verified), verified.audiences)

    def _legacy(self, token: str, targets: tuple[str, ...]) -> Authentication:
        try:
            verified, secret = verify_legacy(
                self.signing,
                token,
                api_audiences=self.api_audiences,
                requested=targets,
                lookup=self._lookup,
            )
        except TokenError as error:
            return Authentication(None, error=str(error))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            return Authentication(None, error=_INVALID)
        if self._legacy_used is not None:
            self._legacy_used(secret)  # the Secret's last-used date, even when refused below
        refusal = invalidated(secret, verified.name)
        if refusal:
            return Authentication(None, error=refusal)
        return Authentication(_account_user(verified), verified.audiences)

    def _lookup(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        if resource == "serviceaccounts":
            assert self._service_accounts is not None
            return self._service_accounts(namespace, name)
        if self._bound_objects is None:
            return None  # nothing to check against: treated as gone
        return self._bound_objects(resource, namespace, name)

    def service_account_token(
        self,
        account: dict[str, Any],
        *,
        audiences: tuple[str, ...],
        expiration_seconds: int,
        warn_after_seconds: int = 0,
        bound_to: BoundObjects | None = None,
    ) -> tuple[str, int]:
        """A TokenRequest token for ``account``, bound to the objects in ``bound_to`` (checked
        by the caller to exist); returns ``(token, issued at as unix seconds)``."""
        now = int(self._clock())
        claims = token_claims(
            account,
            issuer=self.issuer,
            audiences=audiences,
            now=now,
            expiration_seconds=expiration_seconds,
            warn_after_seconds=warn_after_seconds,
            bound=bound_to,
        )
        return self.signing.sign(claims), now


def _account_user(verified: Verified) -> UserInfo:
    """``ServiceAccountInfo.UserInfo()``: the account's name, uid and groups; the bound
    pod and node, and the token's id, in ``extra``."""
    user = service_account_user(verified.namespace, verified.name, verified.uid)
    extra = verified.bound.extra()
    if verified.jti:
        extra[_CREDENTIAL_ID] = ("JTI=" + verified.jti,)
    return UserInfo(user.name, uid=verified.uid, groups=user.groups, extra=extra)


# --- impersonation ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Impersonation:
    """What the ``Impersonate-*`` headers of one request ask for (``user`` empty: nothing)."""

    user: str = ""
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_headers(cls, headers: Any) -> Impersonation | None:
        """``None`` when no impersonation header is present."""
        if not any(key[:12].lower() == "impersonate-" for key in headers):
            return None  # almost every request: one pass over the names
        extra: dict[str, list[str]] = {}
        for key, value in headers.items():
            if key.lower().startswith("impersonate-extra-"):
                # Extra keys are percent-encoded in header names (they may hold '/').
                name = unquote(key[len("impersonate-extra-") :]).lower()
                extra.setdefault(name, []).append(value)
        user = headers.get("Impersonate-User", "")
        groups = tuple(headers.getall("Impersonate-Group", ()))
        uid = headers.get("Impersonate-Uid", "")
        if not (user or groups or uid or extra):
            return None
        return cls(user, groups, uid, {k: tuple(v) for k, v in extra.items()})

    def identity(self) -> UserInfo:
        """The user the request runs as once every impersonation check passed."""
        groups = list(self.groups)
        account = split_service_account(self.user)
        if account is not None:
            namespace = account[0]
            for implied in ("system:serviceaccounts", f"system:serviceaccounts:{namespace}"):
                if implied not in groups:
                    groups.append(implied)
        if self.user != "system:anonymous" and AUTHENTICATED not in groups:
            groups.append(AUTHENTICATED)
        return UserInfo(self.user, uid=self.uid, groups=tuple(groups), extra=dict(self.extra))
