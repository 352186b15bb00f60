"""scheduling.k8s.io: PriorityClasses.

Entry point: ``KINDS``; the rules are ``PriorityClassStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, integer, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, column, simple_columns

__all__ = ["KINDS", "SYSTEM_PRIORITY_CLASSES"]

SYSTEM_PRIORITY_CLASSES = (
    (
        "system-node-critical",
        2000001000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        2000000000,
        "Used for system critical pods that must run in the cluster, but can be moved to "
        "another node if necessary.",
    ),
)
"""The classes kube-apiserver creates at start (name, value, description)."""


def _system_class_error(name: str, value: Any, global_default: Any) -> str:
    """``IsKnownSystemPriorityClass``'s complaint, empty when the class is one of them."""
    for known, known_value, _ in SYSTEM_PRIORITY_CLASSES:
        if name == known:
            if value != known_value:
                return f"value of {name} PriorityClass must be {known_value}"
            if global_default:
                return f"globalDefault of {name} PriorityClass must be false"
            return ""
    return f"{name} is not a known system priority class"


class PriorityClassStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        value = obj.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            return [FieldError("Required", "value")]
        name = str((obj.get("metadata") or {}).get("name") or "")
        if name.startswith("system-"):
            error = _system_class_error(name, value, obj.get("globalDefault"))
            if not error:
                return []
            detail = (
                "priority class names with 'system-' prefix are reserved for system use only. "
                f"error: {error}"
            )
            return [FieldError("Forbidden", "metadata.name", detail)]
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


_PRIORITY_CLASS_PRINTER = Printer(
    (
        *simple_columns(
            ("Value", "integer", "The priority of pods using the class."),
            ("Global-Default", "boolean", "Whether pods without a class get this one."),
        ),
        AGE_COLUMN,
        column("PreemptionPolicy", "string", "Whether pods of the class preempt others."),
    ),
    lambda obj, now: [
        name_of(obj),
        integer(obj.get("value")),
        obj.get("globalDefault") is True,
        created(obj, now),
        str(obj.get("preemptionPolicy") or ""),
    ],
)

KINDS = (
    Kind(
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        namespaced=False,
        short=("pc",),
        strategy=PriorityClassStrategy,
        printer=_PRIORITY_CLASS_PRINTER,
    ),
)
