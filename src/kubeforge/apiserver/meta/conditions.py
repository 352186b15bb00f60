"""``metav1.Condition`` lists as apimachinery's ``ValidateConditions`` checks them (the
status conditions of PodDisruptionBudgets and of other kinds using the shared type).

Entry point: ``validate_conditions(conditions, path)``.

>>> [str(e) for e in validate_conditions([{"type": "Ready", "status": "Yes"}], "status.conditions")]
['status.conditions[0].status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"', 'status.conditions[0].lastTransitionTime: Required value: must be set', 'status.conditions[0].reason: Required value: must be set']
"""  # noqa: E501

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import qualified_name, regex_error

__all__ = ["validate_conditions"]

_STATUSES = ("False", "True", "Unknown")
_MAX_REASON = 1024
_MAX_MESSAGE = 32 * 1024
_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON = re.compile(_REASON_FMT)
_REASON_ERROR = regex_error(
    "a condition reason must start with alphabetic character, optionally followed by a string "
    "of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
    _REASON_FMT,
    "my_name",
    "MY_NAME",
    "MyName",
    "ReasonA,ReasonB",
    "ReasonA:ReasonB",
)


def _condition(condition: dict[str, Any], path: str) -> list[FieldError]:
    kind = str(condition.get("type") or "")
    errors = [FieldError.invalid(f"{path}.type", kind, m) for m in qualified_name(kind)]
    status = condition.get("status") or ""
    if status not in _STATUSES:
        errors.append(FieldError.not_supported(f"{path}.status", status, _STATUSES))
    generation = condition.get("observedGeneration")
    if isinstance(generation, int) and generation < 0:
        detail = "must be greater than or equal to zero"
        errors.append(FieldError.invalid(f"{path}.observedGeneration", generation, detail))
    if not condition.get("lastTransitionTime"):
        errors.append(FieldError.required(f"{path}.lastTransitionTime", "must be set"))
    reason = str(condition.get("reason") or "")
    if not reason:
        errors.append(FieldError.required(f"{path}.reason", "must be set"))
    else:
        if not _REASON.fullmatch(reason):
            errors.append(FieldError.invalid(f"{path}.reason", reason, _REASON_ERROR))
        if len(reason.encode()) > _MAX_REASON:
            errors.append(FieldError.too_long(f"{path}.reason", "", _MAX_REASON))
    if len(str(condition.get("message") or "").encode()) > _MAX_MESSAGE:
        errors.append(FieldError.too_long(f"{path}.message", "", _MAX_MESSAGE))
    return errors


def validate_conditions(conditions: Any, path: str) -> list[FieldError]:
    """Each condition valid, and no type twice."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions if isinstance(conditions, list) else ()):
        if not isinstance(condition, dict):
            continue
        kind = str(condition.get("type") or "")
        if kind in seen:
            errors.append(FieldError.duplicate(f"{path}[{i}].type", kind))
        seen.add(kind)
        errors += _condition(condition, f"{path}[{i}]")
    return errors
