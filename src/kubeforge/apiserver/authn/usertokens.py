"""User tokens: this project's stand-in for a real cluster's user credentials.

A real cluster authenticates people by client certificate or OIDC token; the local
server instead accepts HS256 JWTs naming a user and groups, signed under a key derived
from the server token. The test harness and ``kubeforge apiserver --user-kubeconfig``
mint them with ``user_token`` without starting a server or reading its service-account
signing key, which is why this module imports the standard library only; a server
restarted on the same data directory (same token) honours every one it accepted before.

Entry points: ``user_token``, ``verify_user_token``, ``signing_key``, ``USER_ISSUER``.

>>> claims = verify_user_token(signing_key("secret"), user_token("secret", "jane", ("dev",)))
>>> claims["sub"], claims["groups"]
('jane', ['dev'])
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

__all__ = ["USER_ISSUER", "b64url", "signing_key", "user_token", "verify_user_token"]

USER_ISSUER = "kubeforge"
"""The ``iss`` of user tokens (service-account tokens carry the cluster's issuer)."""


def signing_key(server_token: str) -> bytes:
    """The HMAC key of user tokens, derived from (and as secret as) the server token."""
    return hmac.new(server_token.encode(), b"kubeforge token signing", hashlib.sha256).digest()


def b64url(data: bytes) -> str:
    """Unpadded base64url, as JWS segments are written."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_HEADER = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())


def _hmac_sign(key: bytes, claims: dict[str, Any]) -> str:
    payload = b64url(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    signed = f"{_HEADER}.{payload}"
    signature = hmac.new(key, signed.encode(), hashlib.sha256).digest()
    return f"{signed}.{b64url(signature)}"


def verify_user_token(key: bytes, token: str) -> dict[str, Any] | None:
    """The claims of a user token signed under ``key``, else ``None``."""
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

    >>> user_token("secret", "jane").count(".")
    2
    """
    claims = {"iss": USER_ISSUER, "sub": user, "groups": list(groups)}
    return _hmac_sign(signing_key(server_token), claims)
