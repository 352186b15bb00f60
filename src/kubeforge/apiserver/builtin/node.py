"""node.k8s.io: RuntimeClasses.

Entry point: ``KINDS``; the rules are ``RuntimeClassStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns

__all__ = ["KINDS"]


class RuntimeClassStrategy(CatalogStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return [] if obj.get("handler") else [FieldError("Required", "handler")]


_RUNTIME_CLASS_PRINTER = Printer(
    (*simple_columns(("Handler", "string", "The CRI handler the class selects.")), AGE_COLUMN),
    lambda obj, now: [name_of(obj), str(obj.get("handler") or ""), created(obj, now)],
)

KINDS = (
    Kind(
        "node.k8s.io",
        "v1",
        "RuntimeClass",
        "runtimeclasses",
        namespaced=False,
        strategy=RuntimeClassStrategy,
        printer=_RUNTIME_CLASS_PRINTER,
    ),
)
