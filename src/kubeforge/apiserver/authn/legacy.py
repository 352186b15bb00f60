"""Secret-based (legacy) service-account tokens, as ``kubernetes/pkg/serviceaccount/legacy.go``
(1.32) writes and checks them.

A Secret of type ``kubernetes.io/service-account-token`` naming an account in its
``kubernetes.io/service-account.name`` annotation gets a token from the token
controller (``controllers.legacytokens``): a JWT with issuer
``kubernetes/serviceaccount``, no expiry and no audience, signed with the same key as
bound tokens. It is good for the API's own audiences while the Secret holds exactly it
and the account exists with the same uid; a Secret labelled
``kubernetes.io/legacy-token-invalid-since`` refuses it, and each use stamps the Secret
with ``kubernetes.io/legacy-token-last-used`` (the date), as the real authenticator does.

Entry points: ``legacy_claims``, ``verify_legacy`` (returns the ``Verified`` account and
the Secret it was checked against), ``LEGACY_ISSUER``, the label keys.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from typing import Any

from kubeforge.apiserver.authn.bound import BoundObjects, ObjectLookup
from kubeforge.apiserver.authn.serviceaccount import SA_PREFIX, Verified, accepted_audiences
from kubeforge.apiserver.authn.signing import SigningKey, TokenError

__all__ = [
    "INVALID_SINCE_LABEL",
    "LAST_USED_LABEL",
    "LEGACY_ISSUER",
    "invalidated",
    "legacy_claims",
    "verify_legacy",
]

LEGACY_ISSUER = "kubernetes/serviceaccount"
LAST_USED_LABEL = "kubernetes.io/legacy-token-last-used"
INVALID_SINCE_LABEL = "kubernetes.io/legacy-token-invalid-since"
_CLAIM = "kubernetes.io/serviceaccount/"


def legacy_claims(account: dict[str, Any], secret_name: str) -> dict[str, Any]:
    """``LegacyClaims``: the subject and four private claims, no time and no audience."""
    meta = account.get("metadata") or {}
    namespace, name = str(meta.get("namespace") or ""), str(meta.get("name") or "")
    return {
        "iss": LEGACY_ISSUER,
        _CLAIM + "namespace": namespace,
        _CLAIM + "secret.name": secret_name,
        _CLAIM + "service-account.name": name,
        _CLAIM + "service-account.uid": str(meta.get("uid") or ""),
        "sub": f"{SA_PREFIX}{namespace}:{name}",
    }


def _claim(claims: dict[str, Any], key: str, what: str) -> str:
    value = claims.get(_CLAIM + key)
    if not isinstance(value, str) or not value:
        raise TokenError(f"{what} claim is missing")
    return value


def _stored_token(secret: dict[str, Any]) -> bytes:
    try:
        return base64.b64decode(str((secret.get("data") or {}).get("token") or ""), validate=True)
    except binascii.Error:
        return b""


def verify_legacy(
    key: SigningKey,
    token: str,
    *,
    api_audiences: tuple[str, ...],
    requested: tuple[str, ...],
    lookup: ObjectLookup,
) -> tuple[Verified, dict[str, Any]]:
    """Check a secret-based token as the legacy validator does; ``TokenError`` in its words."""
    claims = key.verify(token)
    accepted = accepted_audiences(api_audiences, api_audiences, requested)
    if not claims.get("sub"):
        raise TokenError("sub claim is missing")
    namespace = _claim(claims, "namespace", "namespace")
    secret_name = _claim(claims, "secret.name", "secretName")
    name = _claim(claims, "service-account.name", "serviceAccountName")
    uid = _claim(claims, "service-account.uid", "serviceAccountUID")
    if claims["sub"] != f"{SA_PREFIX}{namespace}:{name}":
        raise TokenError("sub claim is invalid")
    secret = lookup("secrets", namespace, secret_name)
    if secret is None or (secret.get("metadata") or {}).get("deletionTimestamp"):
        raise TokenError("Token has been invalidated")
    if not hmac.compare_digest(_stored_token(secret), token.encode()):
        raise TokenError("Token does not match server's copy")
    account = lookup("serviceaccounts", namespace, name)
    if account is None:
        raise TokenError(f'serviceaccounts "{name}" not found')
    if (account.get("metadata") or {}).get("deletionTimestamp"):
        raise TokenError(f"ServiceAccount {namespace}/{name} has been deleted")
    if (account.get("metadata") or {}).get("uid") != uid:
        current = (account.get("metadata") or {}).get("uid") or ""
        raise TokenError(f"ServiceAccount UID ({current}) does not match claim ({uid})")
    return Verified(namespace, name, uid, BoundObjects(), accepted, ""), secret


def invalidated(secret: dict[str, Any], account: str) -> str:
    """The refusal of a token whose Secret is labelled invalid, else ``""``."""
    meta = secret.get("metadata") or {}
    if not (meta.get("labels") or {}).get(INVALID_SINCE_LABEL):
        return ""
    namespace, secret_name = meta.get("namespace"), meta.get("name")
    return (
        f"the token in secret {namespace}/{secret_name} for service account {namespace}/{account} "
        "has been marked invalid. Use tokens from the TokenRequest API or manually created "
        f"secret-based tokens, or remove the '{INVALID_SINCE_LABEL}' label from the secret to "
        "temporarily allow use of this token"
    )
