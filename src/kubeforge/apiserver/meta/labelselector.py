"""``metav1.LabelSelector`` objects as the server handles them: validation, the string form
that ``Scale.status.selector`` and ``kubectl get -o wide`` show, and matching labels.

Entry points: ``validate_selector(selector, field)``, ``format_selector(selector)``,
``selector_matches(selector, labels)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.failures import FieldError
from kubeforge.core.selectors import validate_label_key, validate_label_value

__all__ = ["format_labels", "format_selector", "selector_matches", "validate_selector"]

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def validate_selector(selector: Any, field: str, *, check_values: bool = False) -> list[FieldError]:
    """Problems with a ``LabelSelector`` at ``field`` (``ValidateLabelSelector``); with
    ``check_values``, the expressions' values are label values too (what
    ``AllowInvalidLabelValueInSelector: false`` asks, as for new pods' affinity terms)."""
    if selector is None:
        return []
    if not isinstance(selector, dict):
        return [FieldError("Invalid", field, "must be an object", selector)]
    errors: list[FieldError] = []
    labels = selector.get("matchLabels")
    if labels is not None and not isinstance(labels, dict):
        errors.append(FieldError("Invalid", f"{field}.matchLabels", "must be an object", labels))
    for key, value in (labels or {}).items() if isinstance(labels, dict) else ():
        for problem in validate_label_key(str(key)):
            errors.append(FieldError("Invalid", f"{field}.matchLabels", problem, key))
        for problem in validate_label_value(str(value)):
            errors.append(FieldError("Invalid", f"{field}.matchLabels", problem, value))
    expressions = selector.get("matchExpressions")
    if expressions is not None and not isinstance(expressions, list):
        errors.append(
            FieldError("Invalid", f"{field}.matchExpressions", "must be a list", expressions)
        )
        return errors
    for i, expression in enumerate(expressions or []):
        path = f"{field}.matchExpressions[{i}]"
        if not isinstance(expression, dict):
            errors.append(FieldError("Invalid", path, "must be an object", expression))
            continue
        operator, values = expression.get("operator"), expression.get("values") or []
        if operator in ("In", "NotIn") and not values:
            errors.append(
                FieldError(
                    "Required",
                    f"{path}.values",
                    "must be specified when `operator` is 'In' or 'NotIn'",
                )
            )
        elif operator in ("Exists", "DoesNotExist") and values:
            errors.append(
                FieldError(
                    "Forbidden",
                    f"{path}.values",
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
        elif operator not in _OPERATORS:
            errors.append(
                FieldError("Invalid", f"{path}.operator", "not a valid selector operator", operator)
            )
        for problem in validate_label_key(str(expression.get("key") or "")):
            errors.append(FieldError("Invalid", f"{path}.key", problem, expression.get("key")))
        for j, value in enumerate(values if check_values and isinstance(values, list) else ()):
            for problem in validate_label_value(str(value)):
                errors.append(FieldError("Invalid", f"{path}.values[{j}]", problem, value))
    return errors


def format_labels(labels: Any) -> str:
    """``k=v,k2=v2`` sorted by key, ``<none>`` when empty (``labels.FormatLabels``)."""
    if not isinstance(labels, dict) or not labels:
        return "<none>"
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


def format_selector(selector: Any) -> str:
    """The string form of a ``LabelSelector`` (``metav1.FormatLabelSelector``).

    >>> format_selector({"matchLabels": {"app": "web"},
    ...                  "matchExpressions": [{"key": "tier", "operator": "In",
    ...                                        "values": ["b", "a"]}]})
    'app=web,tier in (a,b)'
    >>> format_selector({})
    '<none>'
    """
    if not isinstance(selector, dict):
        return "<none>"
    # (key, rendered) pairs; the real selector sorts its requirements by key.
    parts = [(str(k), f"{k}={v}") for k, v in (selector.get("matchLabels") or {}).items()]
    for expression in selector.get("matchExpressions") or []:
        if not isinstance(expression, dict):
            continue
        key, operator = str(expression.get("key") or ""), expression.get("operator")
        values = ",".join(sorted(str(v) for v in expression.get("values") or []))
        rendered = {
            "In": f"{key} in ({values})",
            "NotIn": f"{key} notin ({values})",
            "Exists": key,
            "DoesNotExist": f"!{key}",
        }.get(str(operator))
        if rendered is not None:
            parts.append((key, rendered))
    text = ",".join(rendered for _, rendered in sorted(parts, key=lambda p: p[0]))
    return text or "<none>"


def selector_matches(selector: Any, labels: Any) -> bool:
    """Whether ``labels`` satisfy a ``LabelSelector``; an empty selector matches everything.

    >>> selector_matches({"matchExpressions": [{"key": "env", "operator": "NotIn",
    ...                                         "values": ["prod"]}]}, {"env": "dev"})
    True
    >>> selector_matches({"matchLabels": {"a": "1"}}, {})
    False
    """
    if not isinstance(selector, dict):
        return True
    labels = labels if isinstance(labels, dict) else {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        if not isinstance(expression, dict):
            return False
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
        if operator not in _OPERATORS:
            return False
    return True
