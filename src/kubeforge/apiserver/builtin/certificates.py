"""certificates.k8s.io: CertificateSigningRequests (approved or denied through ``/approval``).

Entry point: ``KINDS``; the rules are ``CertificateSigningRequestStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError

__all__ = ["KINDS"]


class CertificateSigningRequestStrategy(CatalogStrategy):
    extra_fields = ("spec.signerName",)

    def record_requester(self, obj: dict[str, Any], user: UserInfo) -> None:
        spec = spec_of(obj)
        if spec is None:
            return
        for key in ("username", "uid", "groups", "extra"):
            spec.pop(key, None)
        spec["username"] = user.name
        if user.uid:
            spec["uid"] = user.uid
        if user.groups:
            spec["groups"] = list(user.groups)
        if user.extra:
            spec["extra"] = {key: list(values) for key, values in user.extra.items()}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None and not spec.get("usages"):
            spec["usages"] = ["digital signature", "key encipherment"]

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        errors: list[FieldError] = []
        if not spec.get("request"):
            errors.append(FieldError("Required", "spec.request"))
        if not spec.get("signerName"):
            errors.append(FieldError("Required", "spec.signerName"))
        return errors


KINDS = (
    Kind(
        "certificates.k8s.io",
        "v1",
        "CertificateSigningRequest",
        "certificatesigningrequests",
        namespaced=False,
        short=("csr",),
        subresources=("approval", "status"),
        strategy=CertificateSigningRequestStrategy,
    ),
)
