"""policy: PodDisruptionBudgets.

Entry point: ``KINDS``; the rules are ``PodDisruptionBudgetStrategy``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError

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


KINDS = (
    Kind(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        short=("pdb",),
        subresources=STATUS,
        strategy=PodDisruptionBudgetStrategy,
    ),
)
