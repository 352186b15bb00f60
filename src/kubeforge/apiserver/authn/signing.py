"""The service-account token signing key, and the JWS compact tokens it signs (RS256).

kube-apiserver signs service-account tokens with ``--service-account-signing-key-file``
(kubeadm generates ``sa.key``, an RSA key); ``pkg/serviceaccount/jwt.go`` (1.32) signs
with RS256 and names the key in the token's header by a ``kid`` derived from the public
key: the unpadded base64url SHA-256 of its DER (PKIX) encoding. The same ``kid`` names
the key in the served JWKS (``pkg/serviceaccount/openidmetadata.go``), which is how an
external OIDC consumer picks the key to verify with.

Here the key is generated once and kept in the data directory (``sa.key``, mode 0600),
so tokens issued before a restart on the same directory stay valid; a server without a
data directory (``--in-memory``) generates one per process. Loading is lazy: a server
that never issues or checks a token never pays for an RSA key.

Entry points: ``KeyFile(path | None).key`` (a ``SigningKey``), ``SigningKey.sign(claims)``,
``SigningKey.verify(token)`` (raises ``TokenError`` with Go's words), ``SigningKey.jwk()``.

>>> key = KeyFile(None).key
>>> token = key.sign({"sub": "me"})
>>> key.verify(token)
{'sub': 'me'}
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from kubeforge.apiserver.authn.usertokens import b64url

__all__ = [
    "KEY_FILE",
    "KeyFile",
    "SigningKey",
    "TokenError",
    "unb64url",
    "unverified_claims",
]

KEY_FILE = "sa.key"
"""The key's file in the data directory (kubeadm's name for the same key)."""
_ALGORITHM = "RS256"
_RSA_BITS = 2048  # kubeadm's size for sa.key
# The one key of a server without a data directory: generated on first use, once a process.
_process_key: SigningKey | None = None


class TokenError(Exception):
    """A token that is ours in form but fails verification; the message is Go's."""


def unb64url(text: str) -> bytes:
    """Unpadded base64url, strictly (Go's ``RawURLEncoding`` refuses padding and junk)."""
    if "=" in text:
        raise binascii.Error("padded")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _json(value: Any) -> bytes:
    # Go's encoding/json writes maps with sorted keys and no spaces (go-jose merges the
    # claims into one map, so the payload's keys are sorted at every level).
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


class SigningKey:
    """An RSA private key that signs tokens with RS256 under its ``kid``."""

    def __init__(self, private_key: rsa.RSAPrivateKey) -> None:
        self._private = private_key
        self._public = private_key.public_key()
        der = self._public.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.kid = b64url(hashlib.sha256(der).digest())
        header = json.dumps({"alg": _ALGORITHM, "kid": self.kid}, separators=(",", ":"))
        self._header = b64url(header.encode())

    @classmethod
    def generate(cls) -> SigningKey:
        return cls(rsa.generate_private_key(public_exponent=65537, key_size=_RSA_BITS))

    @classmethod
    def from_pem(cls, pem: bytes) -> SigningKey:
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise ValueError("the service-account signing key must be an RSA key")
        return cls(key)

    def to_pem(self) -> bytes:
        return self._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )

    def sign(self, claims: dict[str, Any]) -> str:
        """A compact JWS of ``claims``: ``{"alg":"RS256","kid":...}`` as go-jose writes it."""
        signed = f"{self._header}.{b64url(_json(claims))}"
        signature = self._private.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signed}.{b64url(signature)}"

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a token this key signed; ``TokenError`` (Go's words) otherwise,
        ``ValueError`` for a token that is not a compact JWS at all."""
        header_part, payload_part, signature_part = _split(token)
        header = json.loads(unb64url(header_part))
        if not isinstance(header, dict):
            raise ValueError("not a JWS header")
        if header.get("kid") not in (None, "", self.kid):
            raise TokenError("invalid signature, no keys found")
        try:
            if header.get("alg") != _ALGORITHM:
                raise InvalidSignature
            self._public.verify(
                unb64url(signature_part),
                f"{header_part}.{payload_part}".encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except InvalidSignature:
            # go-jose's ErrCryptoFailure, the text a TokenReview reports for a forged token.
            raise TokenError("go-jose/go-jose: error in cryptographic primitive") from None
        claims = json.loads(unb64url(payload_part))
        if not isinstance(claims, dict):
            raise ValueError("not a JWT claim set")
        return claims

    def jwk(self) -> dict[str, str]:
        """The public key as a JWK, with go-jose's field order (use, kty, kid, alg, n, e)."""
        numbers = self._public.public_numbers()
        return {
            "use": "sig",
            "kty": "RSA",
            "kid": self.kid,
            "alg": _ALGORITHM,
            "n": b64url(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
            "e": b64url(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big")),
        }


def _split(token: str) -> tuple[str, str, str]:
    parts = token.split(".")
    if len(parts) != 3 or not all(parts[:2]):
        raise ValueError("not a compact JWS")
    return parts[0], parts[1], parts[2]


def unverified_claims(token: str) -> dict[str, Any] | None:
    """The payload of a compact JWS before any check (to pick the verifier by issuer, as
    Go's ``hasCorrectIssuer`` does); ``None`` when it is not one."""
    try:
        claims = json.loads(unb64url(_split(token)[1]))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) else None


class KeyFile:
    """The signing key kept at ``path`` (created with mode 0600 when missing), or the
    process's own key when ``path`` is ``None``; read or made on first use."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._key: SigningKey | None = None

    @property
    def key(self) -> SigningKey:
        if self._key is None:
            self._key = _process() if self.path is None else _load_or_create(self.path)
        return self._key


def _process() -> SigningKey:
    global _process_key
    if _process_key is None:
        _process_key = SigningKey.generate()
    return _process_key


def _load_or_create(path: Path) -> SigningKey:
    if path.exists():
        return SigningKey.from_pem(path.read_bytes())
    key = SigningKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name, then renamed: a crash never leaves half a key.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key.to_pem())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return key
