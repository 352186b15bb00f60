"""The warning a real server sends with a ``kubernetes.io/tls`` Secret whose key and
certificate do not make a pair: 1.32's secret strategy (``warningsForSecret``) checks
them with Go's ``tls.X509KeyPair`` and warns with its error, so this words the same checks
the same way (PEM blocks found, certificate parsed, private key parsed, keys matching).

Entry point: ``secret_warnings``.

>>> secret_warnings({"type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}})
['tls: failed to find any PEM data in certificate input']
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from kubeforge.apiserver.builtin.core.config_rules import decoded_data

__all__ = ["secret_warnings"]

_PEM = re.compile(rb"-----BEGIN ([^\r\n-]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL)


_KEY_KINDS = (rsa.RSAPublicKey, ec.EllipticCurvePublicKey, ed25519.Ed25519PublicKey)


def _pem_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """The PEM blocks Go's ``pem.Decode`` would find, in order (malformed ones skipped)."""
    blocks = []
    for match in _PEM.finditer(data):
        body = b"".join(line for line in match.group(2).split() if b":" not in line)
        try:
            blocks.append((match.group(1).decode(), base64.b64decode(body, validate=True)))
        except (binascii.Error, ValueError):
            continue
    return blocks


def _go_list(items: list[str]) -> str:
    return "[" + " ".join(items) + "]"


def _certificate(data: bytes) -> bytes | str:
    blocks = _pem_blocks(data)
    found = [der for kind, der in blocks if kind == "CERTIFICATE"]
    if found:
        return found[0]
    skipped = [kind for kind, _ in blocks]
    if not skipped:
        return "tls: failed to find any PEM data in certificate input"
    if len(skipped) == 1 and skipped[0].endswith("PRIVATE KEY"):
        return (
            "tls: failed to find certificate PEM data in certificate input, but did find a "
            "private key; PEM inputs may have been switched"
        )
    return (
        'tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping '
        f"PEM blocks of the following types: {_go_list(skipped)}"
    )


def _key(data: bytes) -> bytes | str:
    skipped: list[str] = []
    for kind, der in _pem_blocks(data):
        if kind == "PRIVATE KEY" or kind.endswith(" PRIVATE KEY"):
            return der
        skipped.append(kind)
    if not skipped:
        return "tls: failed to find any PEM data in key input"
    if skipped == ["CERTIFICATE"]:
        return "tls: found a certificate rather than a key in the PEM for the private key"
    return (
        'tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after '
        f"skipping PEM blocks of the following types: {_go_list(skipped)}"
    )


def _pair_error(cert_pem: bytes, key_pem: bytes) -> str | None:
    cert_der = _certificate(cert_pem)
    if isinstance(cert_der, str):
        return cert_der
    key_der = _key(key_pem)
    if isinstance(key_der, str):
        return key_der
    try:
        public = x509.load_der_x509_certificate(cert_der).public_key()
    except ValueError:
        return "x509: malformed certificate"
    try:
        private = serialization.load_der_private_key(key_der, password=None)
    except (ValueError, TypeError):
        return "tls: failed to parse private key"
    kind = next((k for k in _KEY_KINDS if isinstance(public, k)), None)
    if kind is None:
        return "tls: unknown public key algorithm"
    if not isinstance(private.public_key(), kind):
        return "tls: private key type does not match public key type"
    if private.public_key() != public:
        return "tls: private key does not match public key"
    return None


def secret_warnings(secret: dict[str, Any]) -> list[str]:
    """What a create or update of ``secret`` warns of (only TLS Secrets are checked)."""
    if secret.get("type") != "kubernetes.io/tls":
        return []
    data = decoded_data(secret)
    problem = _pair_error(data.get("tls.crt", b""), data.get("tls.key", b""))
    return [problem] if problem else []
