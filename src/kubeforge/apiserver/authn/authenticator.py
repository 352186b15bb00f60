"""Who is asking: bearer tokens to users, service-account and user tokens, impersonation.

Three kinds of bearer token are accepted:

* the server's own token (the admin kubeconfig): user ``kubernetes-admin`` in the
  ``system:masters`` group, which every authorizer lets through;
* user tokens, minted for a user name and groups (``user_token``), which is how a
  second, restricted kubeconfig is made (``kubeforge apiserver --user-kubeconfig``,
  ``LocalApiServer.kubeconfig_for``);
* service-account tokens from the TokenRequest API
  (``POST .../serviceaccounts/{name}/token``, what ``kubectl create token`` calls),
  shaped like the real bound tokens: user ``system:serviceaccount:{ns}:{name}``,
  groups ``system:serviceaccounts`` and ``system:serviceaccounts:{ns}``, valid until
  they expire or their ServiceAccount is deleted.

User and service-account tokens are JWTs signed with HMAC-SHA256 under a key derived
from the server token, so no token file is needed and a server restarted on the same
data directory honours every token it issued. Only the standard library is imported
(the test harness mints user tokens with ``user_token`` without starting anything).

Impersonation follows the real headers (``Impersonate-User``, ``-Group``, ``-Uid``,
``-Extra-*``); the caller needs the ``impersonate`` verb on what it impersonates.

Entry points: ``Authenticator``, ``UserInfo``, ``user_token``, ``signing_key``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from kubeforge.apiserver.authn.bound import BoundObjects, ObjectLookup

__all__ = [
    "ADMIN",
    "API_AUDIENCE",
    "AUTHENTICATED",
    "MASTERS",
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
"""The audience (and issuer) of service-account tokens, as on a default cluster."""
_SA_PREFIX = "system:serviceaccount:"
_USER_ISSUER = "kubeforge"


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


# --- tokens ---------------------------------------------------------------------------------


def signing_key(server_token: str) -> bytes:
    """The HMAC key of issued tokens, derived from (and as secret as) the server token."""
    return hmac.new(server_token.encode(), b"kubeforge token signing", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_HEADER = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())


def _sign(key: bytes, claims: dict[str, Any]) -> str:
    payload = _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    signed = f"{_HEADER}.{payload}"
    signature = hmac.new(key, signed.encode(), hashlib.sha256).digest()
    return f"{signed}.{_b64(signature)}"


def _verify(key: bytes, token: str) -> dict[str, Any] | None:
    parts = token.split(".")
    if len(parts) != 3:
        return None
    expected = hmac.new(key, f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
    try:
        # Constant-time compare: the signature is what makes the token unforgeable.
        if not hmac.compare_digest(_unb64(parts[2]), expected):
            return None
        claims = json.loads(_unb64(parts[1]))
    except (binascii.Error, ValueError):
        return None
    return claims if isinstance(claims, dict) else None


def user_token(server_token: str, user: str, groups: tuple[str, ...] = ()) -> str:
    """A bearer token for ``user`` in ``groups`` (``system:authenticated`` is always added).

    >>> token = user_token("secret", "jane", ("dev",))
    >>> Authenticator("secret").authenticate_token(token).groups
    ('dev', 'system:authenticated')
    """
    claims = {"iss": _USER_ISSUER, "sub": user, "groups": list(groups)}
    return _sign(signing_key(server_token), claims)


ServiceAccountLookup = Callable[[str, str], "dict[str, Any] | None"]
"""``(namespace, name) -> ServiceAccount`` or ``None``: bound tokens die with their account."""


class Authenticator:
    """Maps a request's bearer token (and impersonation headers) to a ``UserInfo``."""

    def __init__(
        self,
        server_token: str,
        *,
        service_accounts: ServiceAccountLookup | None = None,
        bound_objects: ObjectLookup | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._token = server_token
        self._key = signing_key(server_token)
        self._service_accounts = service_accounts
        self._bound_objects = bound_objects
        self._clock = clock

    def authenticate_token(self, token: str, audiences: tuple[str, ...] = ()) -> UserInfo | None:
        """The identity of ``token``, or ``None`` when it is not valid (for this audience)."""
        # Constant-time compare: the server token is the only secret guarding admin access.
        if hmac.compare_digest(token.encode(), self._token.encode()):
            return ADMIN
        claims = _verify(self._key, token)
        if claims is None:
            return None
        if claims.get("iss") == _USER_ISSUER:
            groups = tuple(str(g) for g in claims.get("groups") or [] if g != AUTHENTICATED)
            return UserInfo(str(claims.get("sub") or ""), groups=(*groups, AUTHENTICATED))
        return self._service_account(claims, audiences or (API_AUDIENCE,))

    def _service_account(
        self, claims: dict[str, Any], audiences: tuple[str, ...]
    ) -> UserInfo | None:
        now = self._clock()
        if not isinstance(claims.get("exp"), int) or claims["exp"] <= now:
            return None
        if int(claims.get("nbf") or 0) > now + 60:  # a minute of leeway, as the real server
            return None
        if not set(claims.get("aud") or []) & set(audiences):
            return None
        bound = claims.get("kubernetes.io") or {}
        namespace = str(bound.get("namespace") or "")
        account = bound.get("serviceaccount") or {}
        name, uid = str(account.get("name") or ""), str(account.get("uid") or "")
        if self._service_accounts is not None:
            current = self._service_accounts(namespace, name)
            if current is None or (current.get("metadata") or {}).get("uid") != uid:
                return None  # the account was deleted (or recreated): its tokens are void
        bound_to = BoundObjects.from_claims(claims)
        if self._bound_objects is not None and not bound_to.valid(
            namespace, self._bound_objects, now
        ):
            return None  # its pod, secret or node went away: the token is invalidated
        user = service_account_user(namespace, name, uid)
        extra = {
            **bound_to.extra(),
            "authentication.kubernetes.io/credential-id": ("JTI=" + str(claims.get("jti") or ""),),
        }
        return UserInfo(user.name, uid=uid, groups=user.groups, extra=extra)

    def service_account_token(
        self,
        account: dict[str, Any],
        *,
        audiences: tuple[str, ...],
        expiration_seconds: int,
        bound_to: BoundObjects | None = None,
    ) -> tuple[str, int]:
        """A TokenRequest token for ``account``, bound to the objects in ``bound_to`` (checked
        by the caller to exist); returns ``(token, expiry as unix seconds)``."""
        meta = account.get("metadata") or {}
        now = int(self._clock())
        expires = now + expiration_seconds
        bound: dict[str, Any] = {
            "namespace": meta.get("namespace"),
            "serviceaccount": {"name": meta.get("name"), "uid": meta.get("uid")},
            **(bound_to.claims() if bound_to is not None else {}),
        }
        claims = {
            "aud": list(audiences),
            "exp": expires,
            "iat": now,
            "iss": API_AUDIENCE,
            "jti": str(uuid.uuid4()),
            "kubernetes.io": bound,
            "nbf": now,
            "sub": f"{_SA_PREFIX}{meta.get('namespace')}:{meta.get('name')}",
        }
        return _sign(self._key, claims), expires


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
