"""What the scheduler reads from a pod spec: ``nodeSelector``, readiness and scheduling
gates, ``topologySpreadConstraints`` and ``tolerations`` (``ValidateTolerations``,
``validateTopologySpreadConstraints``, ``validateReadinessGates``,
``validateSchedulingGates`` of kubernetes 1.32), in their words.

A repeated ``{topologyKey, whenUnsatisfiable}`` pair is reported on its first
occurrence, at the literal path segment ``{topologyKey, whenUnsatisfiable}``, as Go does.

Entry points: ``node_selector``, ``gates``, ``spread_constraints``, ``tolerations``, each
``(spec, path)``; ``toleration_list(items, path)`` for tolerations held elsewhere.

>>> [str(e) for e in tolerations({"tolerations": [{"operator": "Exists", "value": "x"}]}, "spec")]
['spec.tolerations[0].operator: Invalid value: "x": value must be empty when `operator` is \\'Exists\\'']
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.affinity import dict_items, label_name
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.core.names import label_value, qualified_name

__all__ = ["gates", "node_selector", "spread_constraints", "toleration_list", "tolerations"]

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_OPERATORS = ("Equal", "Exists")
_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
_POLICIES = ("Honor", "Ignore")
_NOT_POSITIVE = "must be greater than zero"


def node_selector(spec: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidateLabels`` over ``nodeSelector``: every problem at the map's own path."""
    selector = spec.get("nodeSelector")
    at = f"{path}.nodeSelector"
    errors: list[FieldError] = []
    for key, value in selector.items() if isinstance(selector, dict) else ():
        errors += [FieldError.invalid(at, key, m) for m in qualified_name(str(key))]
        errors += [FieldError.invalid(at, value, m) for m in label_value(str(value))]
    return errors


def gates(spec: dict[str, Any], path: str) -> list[FieldError]:
    """Readiness gates' condition types, then scheduling gates (qualified, unique)."""
    errors: list[FieldError] = []
    for i, gate in dict_items(spec.get("readinessGates")):
        errors += label_name(gate.get("conditionType"), f"{path}.readinessGates[{i}].conditionType")
    seen: set[str] = set()
    for i, gate in dict_items(spec.get("schedulingGates")):
        name = str(gate.get("name") or "")
        errors += label_name(name, f"{path}.schedulingGates[{i}]")
        if name in seen:
            errors.append(FieldError.duplicate(f"{path}.schedulingGates[{i}]", name))
        seen.add(name)
    return errors


def _min_domains(constraint: dict[str, Any], path: str) -> list[FieldError]:
    domains = constraint.get("minDomains")
    if domains is None:
        return []
    errors = []
    if domains <= 0:
        errors.append(FieldError.invalid(path, domains, _NOT_POSITIVE))
    action = constraint.get("whenUnsatisfiable") or ""
    if action != "DoNotSchedule":
        detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
        errors.append(FieldError.invalid(path, domains, detail))
    return errors


def _spread_label_keys(constraint: dict[str, Any], path: str) -> list[FieldError]:
    """``validateMatchLabelKeysInTopologySpread``."""
    keys = constraint.get("matchLabelKeys") or []
    if not keys:
        return []
    selector = constraint.get("labelSelector")
    errors: list[FieldError] = []
    taken: set[str] = set()
    if isinstance(selector, dict):
        taken = set(selector.get("matchLabels") or {})
        taken |= {str(e.get("key")) for _, e in dict_items(selector.get("matchExpressions"))}
    else:
        errors.append(
            FieldError.forbidden(path, "must not be specified when labelSelector is not set")
        )
    for i, key in enumerate(keys):
        errors += label_name(key, f"{path}[{i}]")
        if key in taken:
            detail = "exists in both matchLabelKeys and labelSelector"
            errors.append(FieldError.invalid(f"{path}[{i}]", key, detail))
    return errors


def _constraint(constraint: dict[str, Any], rest: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    skew = constraint.get("maxSkew") or 0
    if skew <= 0:
        errors.append(FieldError.invalid(f"{path}.maxSkew", skew, _NOT_POSITIVE))
    key = constraint.get("topologyKey") or ""
    if not key:
        errors.append(FieldError.required(f"{path}.topologyKey", "can not be empty"))
    action = constraint.get("whenUnsatisfiable") or ""
    if action not in _ACTIONS:
        errors.append(FieldError.not_supported(f"{path}.whenUnsatisfiable", action, _ACTIONS))
    for other in rest:
        if isinstance(other, dict) and (
            other.get("topologyKey") or "",
            other.get("whenUnsatisfiable") or "",
        ) == (key, action):
            pair = f"{path}.{{topologyKey, whenUnsatisfiable}}"
            errors.append(FieldError.duplicate(pair, f"{{{key}, {action}}}"))
            break
    errors += _min_domains(constraint, f"{path}.minDomains")
    for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        value = constraint.get(policy)
        if value is not None and value not in _POLICIES:
            errors.append(FieldError.not_supported(f"{path}.{policy}", value, _POLICIES))
    errors += _spread_label_keys(constraint, f"{path}.matchLabelKeys")
    selector = constraint.get("labelSelector")
    return errors + validate_selector(selector, f"{path}.labelSelector", check_values=True)


def spread_constraints(spec: dict[str, Any], path: str) -> list[FieldError]:
    constraints = spec.get("topologySpreadConstraints")
    if not isinstance(constraints, list):
        return []
    errors: list[FieldError] = []
    for i, constraint in enumerate(constraints):
        if isinstance(constraint, dict):
            at = f"{path}.topologySpreadConstraints[{i}]"
            errors += _constraint(constraint, constraints[i + 1 :], at)
    return errors


def _toleration(toleration: dict[str, Any], path: str) -> list[FieldError]:
    key, operator = toleration.get("key") or "", toleration.get("operator") or ""
    effect, value = toleration.get("effect") or "", toleration.get("value") or ""
    errors = label_name(key, f"{path}.key") if key else []
    if not key and operator != "Exists":
        detail = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'  # noqa: E501
        errors.append(FieldError.invalid(f"{path}.operator", operator, detail))
    if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
        detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"
        errors.append(FieldError.invalid(f"{path}.effect", effect, detail))
    if operator in ("Equal", ""):
        problems = label_value(value)
        if problems:
            errors.append(FieldError.invalid(f"{path}.operator", value, ";".join(problems)))
    elif operator == "Exists":
        if value:
            detail = "value must be empty when `operator` is 'Exists'"
            errors.append(FieldError.invalid(f"{path}.operator", value, detail))
    else:
        errors.append(FieldError.not_supported(f"{path}.operator", operator, _OPERATORS))
    if effect and effect not in _EFFECTS:
        errors.append(FieldError.not_supported(f"{path}.effect", effect, _EFFECTS))
    return errors


def toleration_list(items: Any, path: str) -> list[FieldError]:
    """``ValidateTolerations`` of the list ``items`` at ``path``."""
    return [
        error
        for i, toleration in dict_items(items)
        for error in _toleration(toleration, f"{path}[{i}]")
    ]


def tolerations(spec: dict[str, Any], path: str) -> list[FieldError]:
    return toleration_list(spec.get("tolerations"), f"{path}.tolerations")
