"""Credentials of the local server: a private CA, a serving certificate, a bearer token,
and the kubeconfig that ties them together.

Entry point: ``Credentials.load_or_create(directory)``. With a data directory the
files live there (``ca.crt``, ``ca.key``, ``server.crt``, ``server.key``,
``token``; keys and token mode 0600), so a restarted server keeps every
kubeconfig it ever wrote valid. The serving certificate covers ``127.0.0.1``,
``::1`` and ``localhost`` only, matching where the server listens.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import os
import secrets
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Credentials", "kubeconfig_document", "write_kubeconfig", "write_private"]

_VALIDITY = datetime.timedelta(days=3650)
_NAME = "kubeforge"


def write_private(path: Path, data: bytes) -> None:
    """Write atomically with mode 0600 (keys, tokens and kubeconfigs hold secrets)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _create_ca() -> tuple[bytes, bytes]:
    key = _key()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubeforge-ca")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM), _pem_key(key)


def _create_server_cert(ca_pem: bytes, ca_key_pem: bytes) -> tuple[bytes, bytes]:
    ca = x509.load_pem_x509_certificate(ca_pem)
    ca_key = serialization.load_pem_private_key(ca_key_pem, password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = _key()
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubeforge-apiserver")]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.IPAddress(ipaddress.ip_address("::1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM), _pem_key(key)


@dataclass(frozen=True)
class Credentials:
    """Paths of the PEM files plus the token; ``ca_pem`` goes into kubeconfigs."""

    directory: Path
    ca_pem: bytes
    token: str

    @property
    def ca_file(self) -> Path:
        return self.directory / "ca.crt"

    @property
    def cert_file(self) -> Path:
        return self.directory / "server.crt"

    @property
    def key_file(self) -> Path:
        return self.directory / "server.key"

    @classmethod
    def load_or_create(cls, directory: Path) -> Credentials:
        """Reuse what ``directory`` holds; create whatever is missing."""
        directory.mkdir(parents=True, exist_ok=True)
        ca_file, ca_key = directory / "ca.crt", directory / "ca.key"
        if not (ca_file.exists() and ca_key.exists()):
            cert, key = _create_ca()
            write_private(ca_key, key)
            ca_file.write_bytes(cert)
            (directory / "server.crt").unlink(missing_ok=True)
        ca_pem = ca_file.read_bytes()
        server_cert, server_key = directory / "server.crt", directory / "server.key"
        if not (server_cert.exists() and server_key.exists()):
            cert, key = _create_server_cert(ca_pem, ca_key.read_bytes())
            write_private(server_key, key)
            server_cert.write_bytes(cert)
        token_file = directory / "token"
        if not token_file.exists():
            write_private(token_file, secrets.token_urlsafe(32).encode())
        token = token_file.read_text().strip()
        return cls(directory=directory, ca_pem=ca_pem, token=token)

    def ssl_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert_file, self.key_file)
        # aiohttp speaks HTTP/1.1 only; client-go falls back to it when h2 is not offered.
        context.set_alpn_protocols(["http/1.1"])
        return context


def kubeconfig_document(server: str, ca_pem: bytes, token: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": _NAME,
                "cluster": {
                    "server": server,
                    "certificate-authority-data": base64.b64encode(ca_pem).decode(),
                },
            }
        ],
        "users": [{"name": _NAME, "user": {"token": token}}],
        "contexts": [
            {
                "name": _NAME,
                "context": {"cluster": _NAME, "user": _NAME, "namespace": "default"},
            }
        ],
        "current-context": _NAME,
        "preferences": {},
    }


def write_kubeconfig(path: Path, server: str, ca_pem: bytes, token: str) -> None:
    document = kubeconfig_document(server, ca_pem, token)
    write_private(path, yaml.safe_dump(document, sort_keys=False).encode())
