"""Service-account tokens: the claims a TokenRequest signs and the checks that make one
valid, as ``kubernetes/pkg/serviceaccount/claims.go`` and ``jwt.go`` (1.32) write them.

A token's claims are ``iss``, ``sub`` (``system:serviceaccount:ns:name``), ``aud``,
``exp``, ``iat``, ``nbf``, ``jti`` (``ServiceAccountTokenJTI``, GA in 1.32) and the
private ``kubernetes.io`` claim: the namespace, the account's name and uid, the bound
pod, secret or node, and ``warnafter`` for the kubelet's 3607-second tokens that are
silently extended to a year (``--service-account-extend-token-expiration``).

``verify`` runs the real authenticator's steps in its order, each failure raising a
``TokenError`` with the text a TokenReview reports: the signature (``SigningKey``), the
audiences (``token audiences [...] is invalid for the target audiences [...]``), the
times (a minute of leeway), the account (``serviceaccounts "x" not found``, a changed
uid, deleted), then the bound objects (``bound.BoundObjects.check``).

Entry points: ``token_claims``, ``verify`` (returns ``Verified``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.authn.bound import LEEWAY, BoundObjects, ObjectLookup, deleted_before
from kubeforge.apiserver.authn.signing import SigningKey, TokenError

__all__ = [
    "EXTENDED_SECONDS",
    "SA_PREFIX",
    "WARN_ONLY_SECONDS",
    "Verified",
    "accepted_audiences",
    "go_strings",
    "token_claims",
    "verify",
]

WARN_ONLY_SECONDS = 60 * 60 + 7
"""The expiration the kubelet asks for (``WarnOnlyBoundTokenExpirationSeconds``): such
pod-bound tokens for the API's own audiences last ``EXTENDED_SECONDS`` with ``warnafter``."""
EXTENDED_SECONDS = 24 * 365 * 60 * 60
SA_PREFIX = "system:serviceaccount:"


def token_claims(
    account: dict[str, Any],
    *,
    issuer: str,
    audiences: tuple[str, ...],
    now: int,
    expiration_seconds: int,
    warn_after_seconds: int = 0,
    bound: BoundObjects | None = None,
) -> dict[str, Any]:
    """The claims of a token for ``account`` (``claims.go``'s ``Claims`` plus the issuer)."""
    meta = account.get("metadata") or {}
    private: dict[str, Any] = {
        "namespace": meta.get("namespace"),
        "serviceaccount": {"name": meta.get("name"), "uid": meta.get("uid")},
        **(bound.claims() if bound is not None else {}),
    }
    if warn_after_seconds:
        private["warnafter"] = now + warn_after_seconds
    return {
        "aud": list(audiences),
        "exp": now + expiration_seconds,
        "iat": now,
        "iss": issuer,
        "jti": str(uuid.uuid4()),
        "kubernetes.io": private,
        "nbf": now,
        "sub": f"{SA_PREFIX}{meta.get('namespace')}:{meta.get('name')}",
    }


@dataclass(frozen=True)
class Verified:
    """A valid token's account, its bound objects, and the audiences it was accepted for."""

    namespace: str
    name: str
    uid: str
    bound: BoundObjects
    audiences: tuple[str, ...]
    jti: str


def go_strings(values: tuple[str, ...] | list[str]) -> str:
    """A string slice as Go's ``%q`` prints it: ``["a" "b"]``."""
    return (
        "["
        + " ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
        + "]"
    )


def accepted_audiences(
    token_audiences: tuple[str, ...], api_audiences: tuple[str, ...], requested: tuple[str, ...]
) -> tuple[str, ...]:
    """The requested audiences (default: the API's) the token is for; ``TokenError`` when
    none is (a token without ``aud`` is for the API's own)."""
    targets = requested or api_audiences
    accepted = tuple(a for a in targets if a in token_audiences)
    if not accepted:
        raise TokenError(
            f"token audiences {go_strings(token_audiences)} is invalid for the target audiences "
            f"{go_strings(targets)}"
        )
    return accepted


def verify(
    key: SigningKey,
    token: str,
    *,
    api_audiences: tuple[str, ...],
    requested: tuple[str, ...],
    lookup: ObjectLookup | None,
    now: float,
) -> Verified:
    """Check ``token`` as kube-apiserver's bound-token authenticator does; raise
    ``TokenError`` with its words, ``ValueError`` for what is not a JWT at all.
    ``lookup=None`` checks no account or bound object (for tests without a store)."""
    claims = key.verify(token)
    token_audiences = _audiences(claims.get("aud")) or api_audiences
    accepted = accepted_audiences(token_audiences, api_audiences, requested)
    _check_times(claims, now)
    private = _object(claims.get("kubernetes.io"))
    namespace = str(private.get("namespace") or "")
    account = _object(private.get("serviceaccount"))
    name, uid = str(account.get("name") or ""), str(account.get("uid") or "")
    bound = BoundObjects.from_claims(claims)
    if lookup is not None:
        _check_account(lookup("serviceaccounts", namespace, name), namespace, name, uid, now)
        bound.check(namespace, lookup, now)
    return Verified(namespace, name, uid, bound, accepted, str(claims.get("jti") or ""))


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _audiences(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):  # a single audience may be a string (RFC 7519)
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    if value is None:
        return ()
    raise ValueError("aud is neither a string nor a list of strings")


def _numeric(claims: dict[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} is not a NumericDate")
    return float(int(value))  # go-jose truncates to whole seconds


def _check_times(claims: dict[str, Any], now: float) -> None:
    not_before, expiry, issued = (_numeric(claims, n) for n in ("nbf", "exp", "iat"))
    if not_before is not None and now + LEEWAY < not_before:
        raise TokenError("service account token is not valid yet")
    if expiry is not None and now - LEEWAY > expiry:
        raise TokenError("service account token has expired")
    if issued is not None and now + LEEWAY < issued:
        raise TokenError("service account token is issued in the future")


def _check_account(
    stored: dict[str, Any] | None, namespace: str, name: str, uid: str, now: float
) -> None:
    if stored is None:
        # The getter falls back to a live GET, whose NotFound is what the review reports.
        raise TokenError(f'serviceaccounts "{name}" not found')
    meta = stored.get("metadata") or {}
    if meta.get("uid") != uid:
        raise TokenError(
            f"service account UID ({meta.get('uid') or ''}) does not match claim ({uid})"
        )
    if deleted_before(meta, now - LEEWAY):
        raise TokenError(f"service account {namespace}/{name} has been deleted")
