"""policy: PodDisruptionBudgets.

Entry point: ``KINDS``; the rules are ``PodDisruptionBudgetStrategy``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, dict_at, integer, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns

__all__ = ["KINDS"]


class PodDisruptionBudgetStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    }

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
            return [
                FieldError(
                    "Invalid", "spec", "minAvailable and maxUnavailable cannot be both set", spec
                )
            ]
        return []


def _pdb_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = dict_at(obj, "spec")
    low, high = spec.get("minAvailable"), spec.get("maxUnavailable")
    return [
        name_of(obj),
        "N/A" if low is None else str(low),
        "N/A" if high is None else str(high),
        integer(dict_at(obj, "status").get("disruptionsAllowed")),
        created(obj, now),
    ]


_PDB_PRINTER = Printer(
    (
        *simple_columns(
            ("Min Available", "string", "Pods that must stay available."),
            ("Max Unavailable", "string", "Pods that may be unavailable."),
            ("Allowed Disruptions", "integer", "Evictions allowed now."),
        ),
        AGE_COLUMN,
    ),
    _pdb_row,
)

KINDS = (
    Kind(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        short=("pdb",),
        subresources=STATUS,
        strategy=PodDisruptionBudgetStrategy,
        printer=_PDB_PRINTER,
    ),
)
