"""coordination.k8s.io: Leases, what leader election takes and renews.

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.printers.cells import created, dict_at, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS", "LeaseStrategy"]


class LeaseStrategy(Strategy):
    allow_create_on_update = True
    top_level_fields = ("spec",)


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
