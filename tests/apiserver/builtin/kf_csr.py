"""Real PKCS#10 requests and certificates for the CertificateSigningRequest tests, made with
``cryptography`` as a client would (base64 of PEM, as the API carries them)."""

from __future__ import annotations

import base64
import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_KEY = ec.generate_private_key(ec.SECP256R1())
_NAME = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "system:node:test")])


def _b64(pem: bytes) -> str:
    return base64.b64encode(pem).decode()


def request_pem() -> bytes:
    csr = x509.CertificateSigningRequestBuilder().subject_name(_NAME).sign(_KEY, hashes.SHA256())
    return csr.public_bytes(serialization.Encoding.PEM)


def request() -> str:
    """A valid request, as ``spec.request`` carries it."""
    return _b64(request_pem())


def tampered_request() -> str:
    """A well-formed request whose signature does not hold (its last signature byte
    changed)."""
    csr = x509.load_pem_x509_csr(request_pem())
    der = bytearray(csr.public_bytes(serialization.Encoding.DER))
    der[-1] ^= 0x01
    body = base64.encodebytes(bytes(der)).replace(b"\n", b"")
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = b"-----BEGIN CERTIFICATE REQUEST-----\n" + b"\n".join(lines)
    return _b64(pem + b"\n-----END CERTIFICATE REQUEST-----\n")


def certificate() -> str:
    """A self-signed certificate, as ``status.certificate`` carries it."""
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_NAME)
        .issuer_name(_NAME)
        .public_key(_KEY.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(_KEY, hashes.SHA256())
    )
    return _b64(cert.public_bytes(serialization.Encoding.PEM))
