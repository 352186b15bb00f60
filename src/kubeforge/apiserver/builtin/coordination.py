"""coordination.k8s.io: Leases, what leader election takes and renews.

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS", "LeaseStrategy"]


class LeaseStrategy(Strategy):
    allow_create_on_update = True
    top_level_fields = ("spec",)


KINDS = (Kind("coordination.k8s.io", "v1", "Lease", "leases", strategy=LeaseStrategy),)
