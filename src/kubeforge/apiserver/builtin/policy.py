"""policy: PodDisruptionBudgets, validated as 1.32's ``ValidatePodDisruptionBudget`` and
``ValidatePodDisruptionBudgetStatusUpdate`` (policy/v1) do: minAvailable xor maxUnavailable,
each a non-negative integer or a percentage up to 100%, the selector, the unhealthy-pod
eviction policy, and the status counts and conditions.

Entry point: ``KINDS``; the rules are ``PodDisruptionBudgetStrategy`` (``budget_spec_errors``).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.conditions import validate_conditions
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.apiserver.meta.validation import path_segment_name
from kubeforge.apiserver.printers.cells import created, dict_at, integer, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns
from kubeforge.core.names import regex_error

__all__ = ["KINDS", "budget_spec_errors"]


_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
_PERCENT = re.compile(r"[0-9]+%")
_PERCENT_ERROR = regex_error(
    "a valid percent string must be a numeric string followed by an ending '%'",
    "[0-9]+%",
    "1%",
    "93%",
)
_SPEC_POINTERS = (
    ("MinAvailable", "*intstr.IntOrString", "minAvailable"),
    ("Selector", "*v1.LabelSelector", "selector"),
    ("MaxUnavailable", "*intstr.IntOrString", "maxUnavailable"),
    (
        "UnhealthyPodEvictionPolicy",
        "*policy.UnhealthyPodEvictionPolicyType",
        "unhealthyPodEvictionPolicy",
    ),
)
_STATUS_COUNTS = ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")


def _int_or_percent(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` and ``IsNotMoreThan100Percent``; a string is shown
    as Go's ``%#v`` prints the IntOrString (its String method needs a pointer)."""
    if isinstance(value, str):
        shown = GoValue(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{GoValue.quote(value)}}}")
        if not _PERCENT.fullmatch(value):
            return [FieldError.invalid(path, shown, _PERCENT_ERROR)]
        if int(value[:-1]) > 100:
            return [FieldError.invalid(path, shown, "must not be greater than 100%")]
        return []
    if isinstance(value, int) and value < 0:
        return [FieldError.invalid(path, value, "must be greater than or equal to 0")]
    return []


def _spec_value(spec: dict[str, Any]) -> GoValue:
    """The spec as Go's ``%#v`` shows the struct (its pointers' addresses stood in for)."""
    shown = []
    for i, (name, kind, key) in enumerate(_SPEC_POINTERS):
        address = "nil" if spec.get(key) is None else f"0xc0000100{i}0"
        shown.append(f"{name}:({kind})({address})")
    return GoValue(f"policy.PodDisruptionBudgetSpec{{{', '.join(shown)}}}")


def budget_spec_errors(spec: dict[str, Any], *, selector_values: bool = True) -> list[FieldError]:
    """``ValidatePodDisruptionBudgetSpec`` of policy/v1, in its order."""
    low, high = spec.get("minAvailable"), spec.get("maxUnavailable")
    errors: list[FieldError] = []
    if low is not None and high is not None:
        detail = "minAvailable and maxUnavailable cannot be both set"
        errors.append(FieldError.invalid("spec", _spec_value(spec), detail))
    if low is not None:
        errors += _int_or_percent(low, "spec.minAvailable")
    if high is not None:
        errors += _int_or_percent(high, "spec.maxUnavailable")
    errors += validate_selector(spec.get("selector"), "spec.selector", check_values=selector_values)
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _EVICTION_POLICIES:
        at = "spec.unhealthyPodEvictionPolicy"
        errors.append(FieldError.not_supported(at, policy, _EVICTION_POLICIES))
    return errors


class PodDisruptionBudgetStrategy(CatalogStrategy):
    # ValidatePodDisruptionBudget checks no metadata: rest.BeforeCreate's generic check,
    # which only asks for a path segment, is all a budget's name meets.
    name_validator = staticmethod(path_segment_name)
    empty_status: ClassVar[dict[str, Any]] = {
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    }

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return budget_spec_errors(spec_of(obj) or {})

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        # A selector stored with values 1.32 would refuse may keep them.
        old_selector = (spec_of(old) or {}).get("selector")
        lenient = bool(validate_selector(old_selector, "", check_values=True))
        return budget_spec_errors(spec_of(new) or {}, selector_values=not lenient)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """``ValidatePodDisruptionBudgetStatusUpdate`` for policy/v1."""
        status = new.get("status")
        status = status if isinstance(status, dict) else {}
        errors = validate_conditions(status.get("conditions"), "status.conditions")
        for name in _STATUS_COUNTS:
            value = status.get(name)
            if isinstance(value, int) and value < 0:
                at = f"status.{name}"
                errors.append(FieldError.invalid(at, value, "must be greater than or equal to 0"))
        return errors


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
