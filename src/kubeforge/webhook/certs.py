"""Serving certificates for a webhook server when no cert-manager is around: ``ServingCert``.

Entry point: ``ServingCert.generate(hosts)`` makes a private CA and a certificate
it signed for ``hosts`` (DNS names and IP addresses); ``write(directory)`` puts
``tls.crt``/``tls.key`` (what ``WebhookServer`` reads) and ``ca.crt`` there, and
``ca_bundle`` is the base64 PEM that a webhook configuration's or a CRD's
``caBundle`` wants. Used by the pytest fixture, ``kubeforge run --local-webhooks``
and the certificate-rotation tests; in a cluster cert-manager does this job.

Example::

    cert = ServingCert.generate(["127.0.0.1", "localhost"])
    cert.write(Path("/tmp/k8s-webhook-server/serving-certs"))
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubeforge.webhook.options import CERT_NAME, KEY_NAME

__all__ = ["CERT_NAME", "KEY_NAME", "ServingCert"]

_CA_NAME = "ca.crt"


@dataclass(frozen=True, slots=True)
class ServingCert:
    """A serving certificate and key (PEM) and the CA (PEM) that signed it."""

    cert_pem: bytes
    key_pem: bytes
    ca_pem: bytes

    @classmethod
    def generate(
        cls, hosts: Sequence[str], *, valid_for: datetime.timedelta = datetime.timedelta(days=365)
    ) -> ServingCert:
        """A fresh CA and a certificate for ``hosts`` (the first one is its common name)."""
        if not hosts:
            raise ValueError("a serving certificate needs at least one host name or address")
        now = datetime.datetime.now(datetime.UTC)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubeforge-webhook-ca")])
        ca = (
            _builder(ca_name, ca_name, ca_key.public_key(), now, valid_for)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(_usage(cert_sign=True), critical=True)
            .sign(ca_key, hashes.SHA256())
        )
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])])
        cert = (
            _builder(subject, ca_name, key.public_key(), now, valid_for)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_usage(cert_sign=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(_names(hosts)), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        return cls(
            cert_pem=cert.public_bytes(serialization.Encoding.PEM),
            key_pem=key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
            ca_pem=ca.public_bytes(serialization.Encoding.PEM),
        )

    @property
    def ca_bundle(self) -> str:
        """The CA as a ``caBundle`` value (base64 of the PEM)."""
        return base64.b64encode(self.ca_pem).decode()

    def write(self, directory: Path) -> None:
        """``tls.crt``, ``tls.key`` (mode 0600) and ``ca.crt`` in ``directory``.

        Each file is replaced atomically, key first: a watcher that reads in between
        sees a key that does not match the old certificate, fails that one read and
        keeps serving the old pair until the next.
        """
        directory.mkdir(parents=True, exist_ok=True)
        _replace(directory / KEY_NAME, self.key_pem, private=True)
        _replace(directory / CERT_NAME, self.cert_pem, private=False)
        _replace(directory / _CA_NAME, self.ca_pem, private=False)


def _builder(
    subject: x509.Name,
    issuer: x509.Name,
    public_key: ec.EllipticCurvePublicKey,
    now: datetime.datetime,
    valid_for: datetime.timedelta,
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        # A minute of slack: the API server's clock may be a little behind ours.
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + valid_for)
    )


def _usage(*, cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=not cert_sign,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=cert_sign,
        encipher_only=False,
        decipher_only=False,
    )


def _names(hosts: Sequence[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def _replace(path: Path, data: bytes, *, private: bool) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o600 if private else 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
