"""The parts webhook configurations and admission policies share, validated as 1.32's
``pkg/apis/admissionregistration/validation`` words them: rules (operations, API groups
and versions, resources with their subresource wildcards, scope), match conditions
(named, unique, at most 64, CEL that compiles) and label selectors.

Go lists the allowed values of a ``sets.String`` sorted, so the ``NotSupported``
messages here are sorted too.

Entry points: ``rule_errors``, ``match_condition_errors``, ``selector_errors``,
``go_list``.

>>> [str(e) for e in rule_errors({"operations": ["*", "CREATE"], "apiGroups": [""],
...     "apiVersions": ["v1"], "resources": ["pods"]}, "rules[0]")]
['rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \
\\'*\\' is present, must not specify other operations']
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.cel.policy_compile import expression_error, match_condition
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.core.names import qualified_name

__all__ = [
    "go_list",
    "match_condition_errors",
    "qualified_name_errors",
    "rule_errors",
    "selector_errors",
    "selector_is_invalid",
    "strings",
]

OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
SCOPES = ("*", "Cluster", "Namespaced")
MAX_MATCH_CONDITIONS = 64


def strings(value: Any) -> list[str]:
    """A list of strings as Go decodes it (anything else: none)."""
    return [str(v) for v in value] if isinstance(value, list) else []


def go_list(values: list[str], type_name: str = "string") -> GoValue:
    """``%#v`` of a Go slice of strings."""
    return GoValue(f"[]{type_name}{{" + ", ".join(GoValue.quote(v) for v in values) + "}")


def rule_errors(rule: Any, path: str) -> list[FieldError]:
    """``validateRuleWithOperations`` (subresources allowed)."""
    rule = rule if isinstance(rule, dict) else {}
    operations = strings(rule.get("operations"))
    errors: list[FieldError] = []
    if not operations:
        errors.append(FieldError.required(f"{path}.operations"))
    if len(operations) > 1 and "*" in operations:
        errors.append(
            FieldError.invalid(
                f"{path}.operations",
                go_list(operations, "admissionregistration.OperationType"),
                "if '*' is present, must not specify other operations",
            )
        )
    for i, operation in enumerate(operations):
        if operation not in OPERATIONS:
            errors.append(
                FieldError.not_supported(f"{path}.operations[{i}]", operation, OPERATIONS)
            )
    return errors + _rule_errors(rule, path)


def _rule_errors(rule: dict[str, Any], path: str) -> list[FieldError]:
    """``validateRule``: groups, versions, resources and scope."""
    errors: list[FieldError] = []
    groups, versions = strings(rule.get("apiGroups")), strings(rule.get("apiVersions"))
    errors += _listed(f"{path}.apiGroups", groups, "API groups")
    errors += _listed(f"{path}.apiVersions", versions, "API versions")
    errors += [
        FieldError.required(f"{path}.apiVersions[{i}]") for i, v in enumerate(versions) if not v
    ]
    errors += _resource_errors(strings(rule.get("resources")), f"{path}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in SCOPES:
        errors.append(FieldError.not_supported(f"{path}.scope", scope, SCOPES))
    return errors


def _listed(path: str, values: list[str], noun: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not values:
        errors.append(FieldError.required(path))
    if len(values) > 1 and "*" in values:
        detail = f"if '*' is present, must not specify other {noun}"
        errors.append(FieldError.invalid(path, go_list(values), detail))
    return errors


def _resource_errors(resources: list[str], path: str) -> list[FieldError]:
    """``validateResources``: ``x/*`` and ``*/x`` exclude what they cover."""
    errors: list[FieldError] = []
    if not resources:
        errors.append(FieldError.required(path))
    wild_subresources: set[str] = set()  # x/*
    wild_resources: set[str] = set()  # */x
    double = single = plain = False
    for i, entry in enumerate(resources):
        if not entry:
            errors.append(FieldError.required(f"{path}[{i}]"))
            continue
        double = double or entry == "*/*"
        single = single or entry == "*"
        if "/" not in entry:
            plain = entry != "*"  # Go assigns (not ORs): the last plain entry decides
            continue
        resource, sub = entry.split("/", 1)
        if resource in wild_subresources:
            detail = f"if '{resource}/*' is present, must not specify {entry}"
            errors.append(FieldError.invalid(f"{path}[{i}]", entry, detail))
        if sub in wild_resources:
            detail = f"if '*/{sub}' is present, must not specify {entry}"
            errors.append(FieldError.invalid(f"{path}[{i}]", entry, detail))
        if sub == "*":
            wild_subresources.add(resource)
        if resource == "*":
            wild_resources.add(sub)
    if len(resources) > 1 and double:
        detail = "if '*/*' is present, must not specify other resources"
        errors.append(FieldError.invalid(path, go_list(resources), detail))
    if single and plain:
        detail = "if '*' is present, must not specify other resources without subresources"
        errors.append(FieldError.invalid(path, go_list(resources), detail))
    return errors


def match_condition_errors(conditions: Any, path: str, *, params: bool = False) -> list[FieldError]:
    """``validateMatchConditions``: each condition's expression compiles (over object,
    oldObject, request, authorizer; ``params`` in a policy with a ``paramKind``) and its
    name is a qualified name."""
    conditions = conditions if isinstance(conditions, list) else []
    errors: list[FieldError] = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errors.append(
            FieldError(
                "TooMany",
                path,
                f"must have at most {MAX_MATCH_CONDITIONS} items",
                len(conditions),
            )
        )
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        condition = condition if isinstance(condition, dict) else {}
        where = f"{path}[{i}]"
        expression = str(condition.get("expression") or "").strip()
        if not expression:
            errors.append(FieldError.required(f"{where}.expression"))
        elif problem := _condition_error(expression, params=params):
            errors.append(FieldError.invalid(f"{where}.expression", expression, problem))
        name = str(condition.get("name") or "")
        errors += qualified_name_errors(name, f"{where}.name")
        if name and name in seen:
            errors.append(FieldError.duplicate(f"{where}.name", name))
        seen.add(name)
    return errors


def _condition_error(expression: str, *, params: bool) -> str:
    if params:
        return expression_error(expression, params=True)
    return match_condition(expression).error


def qualified_name_errors(name: str, path: str) -> list[FieldError]:
    """Required, else ``ValidateQualifiedName``'s complaints."""
    if not name:
        return [FieldError.required(path)]
    return [FieldError.invalid(path, name, m) for m in qualified_name(name)]


def selector_errors(selector: Any, path: str, *, strict: bool = True) -> list[FieldError]:
    """``ValidateLabelSelector``; ``strict``: expression values must be label values
    (``AllowInvalidLabelValueInSelector`` false)."""
    return validate_selector(selector, path, check_values=strict)


def selector_is_invalid(selector: Any) -> bool:
    """Whether the strict check refuses ``selector`` (an update of an object that already
    had such a selector is then checked leniently)."""
    return bool(selector_errors(selector, "", strict=True))
