"""CertificateSigningRequest validation, as 1.32's ``pkg/apis/certificates/validation``
words it (with ``ValidateSignerName`` of ``pkg/apis/core/validation/names.go``).

A request must be a PEM ``CERTIFICATE REQUEST`` whose PKCS#10 signature holds; usages
are required, known and unique; the signer name is ``domain/path``; a duration is at
least 600 s. Conditions: a type, a status (only True for Approved, Denied and Failed),
Approved and Denied never together, no type twice. Updates may not remove those three
kinds of condition, only ``/approval`` may add or change Approved and Denied, only
``/status`` may set the certificate (once), which must be CERTIFICATE blocks. What the
stored request already broke stays allowed (``CsrOptions.of``).

Entry points: ``CsrOptions``, ``csr_errors``, ``csr_update_errors``.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, replace
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import dns1123_label, dns1123_subdomain

__all__ = ["CsrOptions", "csr_errors", "csr_update_errors"]

LEGACY_SIGNER = "kubernetes.io/legacy-unknown"
_USAGES = tuple(
    sorted(
        (
            "signing", "digital signature", "content commitment", "key encipherment",
            "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only",
            "decipher only", "any", "server auth", "client auth", "code signing",
            "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user",
            "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc",
        )
    )
)  # fmt: skip
_TRUE_ONLY = ("Approved", "Denied", "Failed")
_STATUSES = ("False", "True", "Unknown")
_PEM = re.compile(
    rb"-----BEGIN ([^\r\n-]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL
)  # fmt: skip


@dataclass(frozen=True)
class CsrOptions:
    """Go's ``certificateValidationOptions``."""

    setting_approval_conditions: bool = False
    setting_certificate: bool = False
    both_approved_and_denied: bool = False
    legacy_signer: bool = False
    duplicate_condition_types: bool = False
    empty_condition_type: bool = False
    arbitrary_certificate: bool = False
    unknown_usages: bool = False
    duplicate_usages: bool = False

    @classmethod
    def of(
        cls, new: dict[str, Any], old: dict[str, Any] | None, subresource: str = ""
    ) -> CsrOptions:
        """``getValidationOptions``, with the subresource's own permission."""
        if old is None:
            return cls()
        types = [str(c.get("type") or "") for c in _conditions(old)]
        usages = _usages(old)
        options = cls(
            both_approved_and_denied="Approved" in types and "Denied" in types,
            legacy_signer=_spec(old).get("signerName") == LEGACY_SIGNER,
            duplicate_condition_types=len(types) != len(set(types)),
            empty_condition_type="" in types,
            arbitrary_certificate=_certificate(new) == _certificate(old)
            or certificate_error(_certificate(old)) is not None,
            unknown_usages=any(u not in _USAGES for u in usages),
            duplicate_usages=len(usages) != len(set(usages)),
        )
        if subresource == "status":
            return replace(options, setting_certificate=True)
        if subresource == "approval":
            return replace(options, setting_approval_conditions=True)
        return options


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return _dict(obj.get("spec"))


def _conditions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    conditions = _dict(obj.get("status")).get("conditions")
    return [_dict(c) for c in conditions] if isinstance(conditions, list) else []


def _usages(obj: dict[str, Any]) -> list[str]:
    usages = _spec(obj).get("usages")
    return [str(u) for u in usages] if isinstance(usages, list) else []


def _decoded(value: Any) -> bytes | None:
    """A ``[]byte`` field as Go decodes its base64 JSON string (None: nil)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _certificate(obj: dict[str, Any]) -> bytes:
    return _decoded(_dict(obj.get("status")).get("certificate")) or b""


def go_bytes(data: bytes | None) -> GoValue:
    """``%#v`` of a ``[]byte``."""
    if data is None:
        return GoValue("[]byte(nil)")
    return GoValue("[]byte{" + ", ".join(f"0x{b:x}" for b in data) + "}")


def _pem_blocks(data: bytes) -> list[tuple[str, bool, bytes | None]]:
    """Each PEM block: its type, whether it has headers, its bytes (None: bad base64)."""
    blocks = []
    for match in _PEM.finditer(data):
        body = match.group(2)
        head, _, rest = body.partition(b"\n\n")
        headers = b":" in head.split(b"\n", 1)[0] and bool(rest)
        payload = rest if headers else body
        try:
            decoded: bytes | None = base64.b64decode(b"".join(payload.split()), validate=True)
        except (binascii.Error, ValueError):
            decoded = None
        blocks.append((match.group(1).decode(errors="replace"), headers, decoded))
    return blocks


def request_error(data: bytes | None) -> str | None:
    """``validateCSR``: ParseCSR, then the signature check."""
    blocks = _pem_blocks(data or b"")
    if not blocks or blocks[0][0] != "CERTIFICATE REQUEST" or blocks[0][2] is None:
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        request = x509.load_der_x509_csr(blocks[0][2])
        key = request.public_key()
        valid = request.is_signature_valid
    except ValueError:
        # Go's ASN.1 decoder words this in detail; its first words are these.
        return "asn1: structure error: the request is not a PKCS#10 certificate request"
    if valid:
        return None
    if isinstance(key, ec.EllipticCurvePublicKey):
        return "x509: ECDSA verification failure"
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "x509: Ed25519 verification failure"
    if isinstance(key, rsa.RSAPublicKey):
        return "crypto/rsa: verification error"
    return "x509: signature verification failure"


def certificate_error(data: bytes) -> str | None:
    """``validateCertificate``: only CERTIFICATE blocks without headers, each parsing."""
    if not data:
        return None
    blocks = _pem_blocks(data)
    for kind, headers, payload in blocks:
        if kind != "CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{kind}"'
        if headers:
            return "no PEM block headers are permitted"
        try:
            x509.load_der_x509_certificate(payload or b"")
        except ValueError:
            return "x509: malformed certificate"
    return None if blocks else "must contain at least one CERTIFICATE PEM block"


def signer_name_errors(name: str, path: str) -> list[FieldError]:
    """``ValidateSignerName``."""
    if not name:
        return [FieldError.required(path)]
    segments = name.split("/")
    if len(segments) != 2:
        detail = "must be a fully qualified domain and path of the form 'example.com/signer-name'"
        return [FieldError.invalid(path, name, detail)]
    domain, route = segments
    errors: list[FieldError] = []
    if len(domain) > 253:
        errors.append(FieldError.too_long(path, "", 253))
    labels = domain.split(".")
    for label in labels:
        if problems := dns1123_label(label):
            errors += [
                FieldError.invalid(path, domain, f'validating label "{label}": {m}')
                for m in problems
            ]
            break
    if len(labels) < 2:
        detail = "should be a domain with at least two segments separated by dots"
        errors.append(FieldError.invalid(path, domain, detail))
    for label in route.split("."):
        if problems := dns1123_subdomain(label):
            errors += [
                FieldError.invalid(path, route, f'validating label "{label}": {m}')
                for m in problems
            ]
            break
    if len(name) > 253 + 253 + 63 + 2:
        errors.append(FieldError.too_long(path, "", 571))
    return errors


def csr_errors(obj: dict[str, Any], options: CsrOptions) -> list[FieldError]:
    """``validateCertificateSigningRequest``."""
    spec = _spec(obj)
    errors: list[FieldError] = []
    request = _decoded(spec.get("request"))
    if (problem := request_error(request)) is not None:
        errors.append(FieldError.invalid("spec.request", go_bytes(request), problem))
    usages = _usages(obj)
    if not usages:
        errors.append(FieldError.required("spec.usages"))
    if not options.unknown_usages:
        errors += [
            FieldError.not_supported(f"spec.usages[{i}]", u, _USAGES)
            for i, u in enumerate(usages)
            if u not in _USAGES
        ]
    if not options.duplicate_usages:
        errors += [
            FieldError.duplicate(f"spec.usages[{i}]", u)
            for i, u in enumerate(usages)
            if u in usages[:i]
        ]
    signer = str(spec.get("signerName") or "")
    if not options.legacy_signer and signer == LEGACY_SIGNER:
        detail = "the legacy signerName is not allowed via this API version"
        errors.append(FieldError.invalid("spec.signerName", signer, detail))
    else:
        errors += signer_name_errors(signer, "spec.signerName")
    seconds = spec.get("expirationSeconds")
    if isinstance(seconds, int) and seconds < 600:
        detail = "may not specify a duration less than 600 seconds (10 minutes)"
        errors.append(FieldError.invalid("spec.expirationSeconds", seconds, detail))
    errors += _condition_errors(_conditions(obj), options)
    problem = None if options.arbitrary_certificate else certificate_error(_certificate(obj))
    if problem is not None:
        errors.append(FieldError.invalid("status.certificate", "<certificate data>", problem))
    return errors


def _condition_errors(conditions: list[dict[str, Any]], options: CsrOptions) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    approved = denied = False
    for i, condition in enumerate(conditions):
        path = f"status.conditions[{i}]"
        kind, status = str(condition.get("type") or ""), str(condition.get("status") or "")
        if not options.empty_condition_type and not kind:
            errors.append(FieldError.required(f"{path}.type"))
        allowed = ("True",) if kind in _TRUE_ONLY else _STATUSES
        if not status:
            errors.append(FieldError.required(f"{path}.status"))
        elif status not in allowed:
            errors.append(FieldError.not_supported(f"{path}.status", status, allowed))
        if not options.both_approved_and_denied:
            approved, denied = approved or kind == "Approved", denied or kind == "Denied"
            if (kind == "Approved" and denied) or (kind == "Denied" and approved):
                detail = "Approved and Denied conditions are mutually exclusive"
                errors.append(FieldError.invalid(f"{path}.type", kind, detail))
        if not options.duplicate_condition_types:
            if kind in seen:
                errors.append(FieldError.duplicate(f"{path}.type", kind))
            seen.add(kind)
    return errors


def csr_update_errors(
    new: dict[str, Any], old: dict[str, Any], options: CsrOptions
) -> list[FieldError]:
    """``validateCertificateSigningRequestUpdate`` (the metadata is the engine's)."""
    errors = csr_errors(new, options)
    for kind in _TRUE_ONLY:
        if len(_of_type(new, kind)) < len(_of_type(old, kind)):
            detail = f'updates may not remove a condition of type "{kind}"'
            errors.append(FieldError.forbidden("status.conditions", detail))
    if not options.setting_approval_conditions:
        for kind in ("Approved", "Denied"):
            before, after = _of_type(old, kind), _of_type(new, kind)
            if len(after) > len(before):
                detail = f'updates may not add a condition of type "{kind}"'
                errors.append(FieldError.forbidden("status.conditions", detail))
            elif len(after) == len(before) and after != before:
                # Go appends a cmp.Diff of the conditions, which it does not promise to keep
                # stable; the sentence before it is the message.
                detail = f'updates may not modify a condition of type "{kind}"'
                errors.append(FieldError.forbidden("status.conditions", detail))
    if _certificate(new) != _certificate(old):
        if not options.setting_certificate:
            detail = "updates may not set certificate content"
            errors.append(FieldError.forbidden("status.certificate", detail))
        elif _certificate(old):
            detail = "updates may not modify existing certificate content"
            errors.append(FieldError.forbidden("status.certificate", detail))
    return errors


def _of_type(obj: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [c for c in _conditions(obj) if c.get("type") == kind]
