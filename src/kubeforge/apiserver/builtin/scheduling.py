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


_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _system_class_error(name: str, value: int, global_default: bool) -> str:
    """``IsKnownSystemPriorityClass``'s complaint, empty when the class is one of them."""
    for known, known_value, _ in SYSTEM_PRIORITY_CLASSES:
        if name == known:
            if value != known_value:
                return f"value of {name} PriorityClass must be {known_value}"
            if global_default:  # every system class is not the default
                return f"globalDefault of {name} PriorityClass must be false"
            return ""
    return f"{name} is not a known system priority class"


class PriorityClassStrategy(CatalogStrategy):
    """1.32's ``ValidatePriorityClass``, run again on update with
    ``ValidatePriorityClassUpdate`` (value and preemption policy held still). Only one
    class may be the global default: the Priority admission plugin's rule."""

    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # A missing value is Go's zero, which is a valid priority.
        value = obj.get("value")
        value = value if isinstance(value, int) and not isinstance(value, bool) else 0
        errors: list[FieldError] = []
        name = str((obj.get("metadata") or {}).get("name") or "")
        if name.startswith("system-"):
            error = _system_class_error(name, value, bool(obj.get("globalDefault")))
            if error:
                detail = (
                    "priority class names with 'system-' prefix are reserved for system use "
                    f"only. error: {error}"
                )
                errors.append(FieldError.forbidden("metadata.name", detail))
        elif value > 1_000_000_000:
            detail = "maximum allowed value of a user defined priority is 1000000000"
            errors.append(FieldError.forbidden("value", detail))
        policy = obj.get("preemptionPolicy")
        if policy == "":
            errors.append(FieldError.required("preemptionPolicy"))
        elif policy is not None and policy not in _PREEMPTION_POLICIES:
            errors.append(
                FieldError.not_supported("preemptionPolicy", policy, _PREEMPTION_POLICIES)
            )
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        if (new.get("value") or 0) != (old.get("value") or 0):
            errors.append(FieldError.forbidden("value", "may not be changed in an update."))
        policy = new.get("preemptionPolicy")
        if policy != old.get("preemptionPolicy"):
            errors.append(FieldError.invalid("preemptionPolicy", policy, "field is immutable"))
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
