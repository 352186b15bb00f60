"""A Job's ``podFailurePolicy`` and ``successPolicy``, checked as 1.32's
``validatePodFailurePolicy`` and ``validateSuccessPolicy`` check them, in their order and
words: at most 20 rules; each failure rule an action (``FailIndex`` only with
``backoffLimitPerIndex``) and exactly one of ``onExitCodes`` (operator, a container of
the template, 1-255 values that are ordered, unique and not 0 for ``In``) or
``onPodConditions`` (at most 20 patterns: a qualified type and a status); each success
rule ``succeededIndexes`` and/or ``succeededCount`` within ``completions``.

Entry points: ``failure_policy_errors(spec, path)``, ``success_policy_errors(spec, path)``.
"""

from __future__ import annotations

import itertools
from typing import Any

from kubeforge.apiserver.builtin.batch.indexes import indexes_total
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import qualified_name

__all__ = ["failure_policy_errors", "non_negative", "success_policy_errors"]

_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
_OPERATORS = ("In", "NotIn")
_STATUSES = ("False", "True", "Unknown")
_MAX_RULES = 20
_MAX_EXIT_CODES = 255
_MAX_PATTERNS = 20
_MAX_SUCCEEDED_INDEXES = 64 * 1024


def _quoted_list(values: tuple[str, ...]) -> str:
    """Go's ``%q`` of a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(GoValue.quote(v) for v in values) + "]"


def _too_many(path: str, count: int, limit: int) -> FieldError:
    return FieldError("TooMany", path, f"must have at most {limit} items", count)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def non_negative(value: Any, path: str) -> list[FieldError]:
    """``ValidateNonnegativeField`` of one integer (absent is fine)."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [FieldError.invalid(path, value, "must be greater than or equal to 0")]
    return []


def _container_names(spec: dict[str, Any]) -> set[str]:
    pod = ((spec.get("template") or {}).get("spec")) or {}
    containers = _list(pod.get("containers")) + _list(pod.get("initContainers"))
    return {str(c.get("name")) for c in containers if isinstance(c, dict)}


def _exit_codes_errors(codes: dict[str, Any], path: str, names: set[str]) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = codes.get("operator") or ""
    if not operator:
        errors.append(
            FieldError.required(f"{path}.operator", f"valid values: {_quoted_list(_OPERATORS)}")
        )
    elif operator not in _OPERATORS:
        errors.append(FieldError.not_supported(f"{path}.operator", operator, _OPERATORS))
    container = codes.get("containerName")
    if container is not None and container not in names:
        detail = "must be one of the container or initContainer names in the pod template"
        errors.append(FieldError.invalid(f"{path}.containerName", container, detail))
    values = _list(codes.get("values"))
    shown = GoValue("[]int32{" + ", ".join(str(v) for v in values) + "}")
    if not values:
        shown = GoValue("[]int32(nil)") if codes.get("values") is None else GoValue("[]int32{}")
        errors.append(FieldError.invalid(f"{path}.values", shown, "at least one value is required"))
    elif len(values) > _MAX_EXIT_CODES:
        errors.append(_too_many(f"{path}.values", len(values), _MAX_EXIT_CODES))
    seen: set[Any] = set()
    for index, value in enumerate(values):
        if operator == "In" and value == 0:
            detail = "must not be 0 for the In operator"
            errors.append(FieldError.invalid(f"{path}.values[{index}]", value, detail))
        if value in seen:
            errors.append(FieldError.duplicate(f"{path}.values[{index}]", value))
        seen.add(value)
    if any(a > b for a, b in itertools.pairwise(values)):
        errors.append(FieldError.invalid(f"{path}.values", shown, "must be ordered"))
    return errors


def _pod_conditions_errors(patterns: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(patterns) > _MAX_PATTERNS:
        errors.append(_too_many(path, len(patterns), _MAX_PATTERNS))
    for index, pattern in enumerate(patterns):
        where = f"{path}[{index}]"
        pattern = pattern if isinstance(pattern, dict) else {}
        kind = str(pattern.get("type") or "")
        errors += [FieldError.invalid(f"{where}.type", kind, m) for m in qualified_name(kind)]
        status = pattern.get("status") or ""
        if not status:
            detail = f"valid values: {_quoted_list(_STATUSES)}"
            errors.append(FieldError.required(f"{where}.status", detail))
        elif status not in _STATUSES:
            errors.append(FieldError.not_supported(f"{where}.status", status, _STATUSES))
    return errors


def _rule_errors(
    spec: dict[str, Any], rule: dict[str, Any], path: str, names: set[str]
) -> list[FieldError]:
    errors: list[FieldError] = []
    action = rule.get("action") or ""
    if not action:
        detail = f"valid values: {_quoted_list(_ACTIONS)}"
        errors.append(FieldError.required(f"{path}.action", detail))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            detail = "requires the backoffLimitPerIndex to be set"
            errors.append(FieldError.invalid(f"{path}.action", action, detail))
    elif action not in _ACTIONS:
        errors.append(FieldError.not_supported(f"{path}.action", action, _ACTIONS))
    codes = rule.get("onExitCodes")
    patterns = _list(rule.get("onPodConditions"))
    if isinstance(codes, dict):
        errors += _exit_codes_errors(codes, f"{path}.onExitCodes", names)
    if patterns:
        errors += _pod_conditions_errors(patterns, f"{path}.onPodConditions")
    if isinstance(codes, dict) and patterns:
        detail = "specifying both OnExitCodes and OnPodConditions is not supported"
        errors.append(FieldError("Invalid", path, detail))
    if not isinstance(codes, dict) and not patterns:
        detail = "specifying one of OnExitCodes and OnPodConditions is required"
        errors.append(FieldError("Invalid", path, detail))
    return errors


def failure_policy_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    """``validatePodFailurePolicy`` of ``spec.podFailurePolicy`` (``path`` names it)."""
    rules = _list((spec.get("podFailurePolicy") or {}).get("rules"))
    errors: list[FieldError] = []
    if len(rules) > _MAX_RULES:
        errors.append(_too_many(f"{path}.rules", len(rules), _MAX_RULES))
    names = _container_names(spec)
    for index, rule in enumerate(rules):
        rule = rule if isinstance(rule, dict) else {}
        errors += _rule_errors(spec, rule, f"{path}.rules[{index}]", names)
    return errors


def _success_rule_errors(rule: dict[str, Any], path: str, completions: int) -> list[FieldError]:
    errors: list[FieldError] = []
    indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
    if count is None and indexes is None:
        detail = "at least one of succeededCount or succeededIndexes must be specified"
        errors.append(FieldError.required(path, detail))
    total = 0
    if indexes is not None:
        where = f"{path}.succeededIndexes"
        if len(str(indexes)) > _MAX_SUCCEEDED_INDEXES:
            errors.append(FieldError.too_long(where, indexes, _MAX_SUCCEEDED_INDEXES))
        try:
            total = indexes_total(str(indexes), completions)
        except ValueError as error:
            detail = f"error parsing succeededIndexes: {error}"
            errors.append(FieldError.invalid(where, indexes, detail))
    if isinstance(count, int):
        where = f"{path}.succeededCount"
        errors += non_negative(count, where)
        if count > completions:
            detail = (
                f"must be less than or equal to {completions} (the number of specified completions)"
            )
            errors.append(FieldError.invalid(where, count, detail))
        if indexes is not None and count > total:
            detail = (
                f"must be less than or equal to {total} "
                "(the number of indexes in the specified succeededIndexes field)"
            )
            errors.append(FieldError.invalid(where, count, detail))
    return errors


def success_policy_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    """``validateSuccessPolicy`` of an Indexed Job's ``spec.successPolicy``."""
    rules = _list((spec.get("successPolicy") or {}).get("rules"))
    errors: list[FieldError] = []
    if not rules:
        detail = "at least one rules must be specified when the successPolicy is specified"
        errors.append(FieldError.required(f"{path}.rules", detail))
    if len(rules) > _MAX_RULES:
        errors.append(_too_many(f"{path}.rules", len(rules), _MAX_RULES))
    # Go reads completions through a pointer the Indexed rule requires; missing, it is 0
    # here (Go would fail the request with a 500).
    completions = spec.get("completions")
    completions = completions if isinstance(completions, int) else 0
    for index, rule in enumerate(rules):
        rule = rule if isinstance(rule, dict) else {}
        errors += _success_rule_errors(rule, f"{path}.rules[{index}]", completions)
    return errors
