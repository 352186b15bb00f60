"""certificates.k8s.io: CertificateSigningRequests (approved or denied through ``/approval``,
issued through ``/status``; validated by ``csr_rules``).

Entry point: ``KINDS``; the rules are ``CertificateSigningRequestStrategy``.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.builtin.csr_rules import CsrOptions, csr_errors, csr_update_errors
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.validation import path_segment_name
from kubeforge.apiserver.printers.cells import NONE, created, dict_at, name_of
from kubeforge.apiserver.printers.columns import (
    AGE_COLUMN,
    Printer,
    column,
    human_duration,
    simple_columns,
)
from kubeforge.apiserver.registry.system_metadata import format_time

__all__ = ["KINDS"]


class CertificateSigningRequestStrategy(CatalogStrategy):
    """1.32's CSR strategies: the requestor recorded from the user, no defaults (v1 has
    none), the rules of ``csr_rules`` by subresource. Any name that is a path segment
    will do (``ValidateCertificateRequestName`` accepts every name)."""

    extra_fields = ("spec.signerName",)
    name_validator = staticmethod(path_segment_name)

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

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        # The main resource changes neither spec nor status (the strategy copies both back).
        super().prepare_for_update(new, old)
        if "spec" in old:
            new["spec"] = old["spec"]

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _stamp_conditions(new, old)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return csr_errors(obj, CsrOptions())

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return csr_update_errors(new, old, CsrOptions.of(new, old))

    def validate_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> list[FieldError]:
        return csr_update_errors(new, old, CsrOptions.of(new, old, subresource))


def _stamp_conditions(new: dict[str, Any], old: dict[str, Any]) -> None:
    """The CSR strategy's ``populateConditionTimestamps``: a condition without
    ``lastUpdateTime`` gets now; one without ``lastTransitionTime`` keeps the time of an
    old condition of the same type and status, or gets now."""
    now = format_time(time.time())
    old_conditions = (old.get("status") or {}).get("conditions") or []
    for condition in (new.get("status") or {}).get("conditions") or []:
        if not isinstance(condition, dict):
            continue
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = now
        if condition.get("lastTransitionTime"):
            continue
        condition["lastTransitionTime"] = next(
            (
                earlier["lastTransitionTime"]
                for earlier in old_conditions
                if isinstance(earlier, dict)
                and earlier.get("type") == condition.get("type")
                and earlier.get("status") == condition.get("status")
                and earlier.get("lastTransitionTime")
            ),
            now,
        )


def _csr_condition(obj: dict[str, Any]) -> str:
    """Approved/Denied/Failed as the conditions say (``Pending`` when none), ``Issued``
    added once a certificate is there."""
    status = dict_at(obj, "status")
    found = {
        str(c.get("type"))
        for c in status.get("conditions") or []
        if isinstance(c, dict) and c.get("status", "True") == "True"
    }
    states: list[str] = [state for state in ("Approved", "Denied", "Failed") if state in found]
    if status.get("certificate"):
        states.append("Issued")
    return ",".join(states) or "Pending"


def _csr_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = dict_at(obj, "spec")
    seconds = spec.get("expirationSeconds")
    return [
        name_of(obj),
        created(obj, now),
        str(spec.get("signerName") or NONE),
        str(spec.get("username") or ""),
        human_duration(seconds) if isinstance(seconds, int) else NONE,
        _csr_condition(obj),
    ]


_CSR_PRINTER = Printer(
    (
        *simple_columns(),
        AGE_COLUMN,
        column("SignerName", "string", "The signer asked to issue the certificate."),
        column("Requestor", "string", "Who asked for the certificate."),
        column("RequestedDuration", "string", "The validity asked for."),
        column("Condition", "string", "Approved, Denied, Failed, Issued or Pending."),
    ),
    _csr_row,
)

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
        printer=_CSR_PRINTER,
    ),
)
