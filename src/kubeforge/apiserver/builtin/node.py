"""node.k8s.io: RuntimeClasses.

Entry point: ``KINDS``; the rules are ``RuntimeClassStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError

__all__ = ["KINDS"]


class RuntimeClassStrategy(CatalogStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return [] if obj.get("handler") else [FieldError("Required", "handler")]


KINDS = (
    Kind(
        "node.k8s.io",
        "v1",
        "RuntimeClass",
        "runtimeclasses",
        namespaced=False,
        strategy=RuntimeClassStrategy,
    ),
)
