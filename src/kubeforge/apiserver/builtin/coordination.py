"""coordination.k8s.io: Leases, what leader election takes and renews.

The rules are 1.32's ``pkg/registry/coordination/lease/strategy.go`` and
``ValidateLeaseSpec`` (``pkg/apis/coordination/validation``): a duration above 0, a
transition count of at least 0; ``strategy`` and ``preferredHolder`` belong to the
CoordinatedLeaderElection gate, off in 1.32, so a write drops them (an update keeps
them only where the stored Lease already had them). Every update names the
resourceVersion it read: the Lease strategy does not allow unconditional updates.

Entry point: ``KINDS``.

>>> LeaseStrategy.spec_errors({"leaseDurationSeconds": 0})[0].body()
'Invalid value: 0: must be greater than 0'
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, dict_at, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS", "LeaseStrategy"]

# Fields of the CoordinatedLeaderElection gate (alpha, off by default in 1.32).
_GATED = ("strategy", "preferredHolder")


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


class LeaseStrategy(Strategy):
    allow_create_on_update = True
    allow_unconditional_update = False
    top_level_fields = ("spec",)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        spec = _spec(obj)
        for key in _GATED:
            spec.pop(key, None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        spec, old_spec = _spec(new), _spec(old)
        for key in _GATED:
            if old_spec.get(key) is None:
                spec.pop(key, None)

    @staticmethod
    def spec_errors(spec: dict[str, Any]) -> list[FieldError]:
        """``ValidateLeaseSpec`` of the fields a 1.32 server keeps."""
        errors: list[FieldError] = []
        duration = spec.get("leaseDurationSeconds")
        if isinstance(duration, int) and duration <= 0:
            errors.append(
                FieldError.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0")
            )
        transitions = spec.get("leaseTransitions")
        if isinstance(transitions, int) and transitions < 0:
            errors.append(
                FieldError.invalid(
                    "spec.leaseTransitions", transitions, "must be greater than or equal to 0"
                )
            )
        if spec.get("preferredHolder") and not spec.get("strategy"):
            errors.append(
                FieldError.forbidden(
                    "spec.preferredHolder", "may only be specified if `strategy` is defined"
                )
            )
        return errors

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return self.spec_errors(_spec(obj))


_LEASE_PRINTER = Printer(
    (NAME_COLUMN, column("Holder", "string", "Who holds the lease."), AGE_COLUMN),
    lambda lease, now: [
        name_of(lease),
        dict_at(lease, "spec").get("holderIdentity") or "",
        created(lease, now),
    ],
)

KINDS = (
    Kind(
        "coordination.k8s.io",
        "v1",
        "Lease",
        "leases",
        strategy=LeaseStrategy,
        printer=_LEASE_PRINTER,
    ),
)
