"""scheduling.k8s.io: PriorityClasses.

Entry point: ``KINDS``; the rules are ``PriorityClassStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError

__all__ = ["KINDS"]


class PriorityClassStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        value = obj.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            return [FieldError("Required", "value")]
        if value > 1_000_000_000:
            return [
                FieldError(
                    "Forbidden",
                    "value",
                    "maximum allowed value of a user defined priority is 1000000000",
                )
            ]
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        if new.get("value") != old.get("value"):
            errors.append(FieldError("Forbidden", "value", "may not be changed in an update."))
        return errors


KINDS = (
    Kind(
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        namespaced=False,
        short=("pc",),
        strategy=PriorityClassStrategy,
    ),
)
