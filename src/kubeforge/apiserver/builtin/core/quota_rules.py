"""A ResourceQuota's spec as 1.32's ``ValidateResourceQuota`` checks it: resource names
(standard or fully qualified, and standard for quota), non-negative amounts, scopes that
exist, fit every standard resource the quota limits and do not conflict, a scope
selector with valid operators and values, and scopes that never change on update.

Errors of ``spec.hard`` come in key order (Go walks the map in random order). Counted
resources (``pods``, ``count/...``, extended resources) must be whole numbers; that
error prints the decoded ``resource.Quantity`` struct, as Go's does.

Entry points: ``quota_spec_errors(spec)``, ``quota_update_errors(new, old)``.

>>> [str(e) for e in quota_spec_errors({"hard": {"pods": "1"}, "scopes": ["BestEffort"] * 2})]
[]
>>> print(*quota_spec_errors({"hard": {"cpu": "-1"}}))
spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.resource_names import QUOTA_RESOURCES
from kubeforge.apiserver.builtin.podspec.resources import quantity_errors, resource_name_errors
from kubeforge.apiserver.failures import FieldError, GoValue

__all__ = ["quota_spec_errors", "quota_update_errors"]

_SCOPES = (
    "Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
    "CrossNamespacePodAffinity",
)  # fmt: skip
_POD_COMPUTE = frozenset(
    {"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
)
_CONFLICTS = (("BestEffort", "NotBestEffort"), ("NotTerminating", "Terminating"))
_EXISTS_ONLY = (
    "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, "
    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
    "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
)


def _standard_for_quota(name: str) -> bool:
    """``IsStandardQuotaResourceName``."""
    return name in QUOTA_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))


def _scope_fits(scope: str, resource: str) -> bool:
    """``IsResourceQuotaScopeValidForResource``."""
    if scope == "BestEffort":
        return resource == "pods"
    if scope in _SCOPES:
        return resource == "pods" or resource in _POD_COMPUTE
    return True


def _name_errors(name: str, path: str) -> list[FieldError]:
    """``ValidateResourceQuotaResourceName``."""
    errors = resource_name_errors(name, path)
    if "/" not in name and not _standard_for_quota(name):
        errors.append(FieldError.invalid(path, name, "must be a standard resource for quota"))
    return errors


def _go_list(type_name: str, items: Any) -> str:
    if not isinstance(items, list):
        return f"{type_name}(nil)"
    return f"{type_name}{{{', '.join(GoValue.quote(str(i)) for i in items)}}}"


def _go_selector(selector: dict[str, Any]) -> GoValue:
    """``core.ScopeSelector`` as ``%#v`` prints it."""
    requirements = [
        "core.ScopedResourceSelectorRequirement{"
        f"ScopeName:{GoValue.quote(str(r.get('scopeName') or ''))}, "
        f"Operator:{GoValue.quote(str(r.get('operator') or ''))}, "
        f"Values:{_go_list('[]string', r.get('values'))}}}"
        for r in selector.get("matchExpressions") or []
        if isinstance(r, dict)
    ]
    inner = f"[]core.ScopedResourceSelectorRequirement{{{', '.join(requirements)}}}"
    return GoValue(f"core.ScopeSelector{{MatchExpressions:{inner}}}")


def _conflicts(chosen: set[str], path: str, value: GoValue) -> list[FieldError]:
    return [
        FieldError.invalid(path, value, "conflicting scopes")
        for pair in _CONFLICTS
        if set(pair) <= chosen
    ]


def _scope_errors(spec: dict[str, Any], hard: list[str]) -> list[FieldError]:
    scopes = spec.get("scopes")
    if not scopes:
        return []
    shown = GoValue(_go_list("[]core.ResourceQuotaScope", scopes))
    errors = []
    for scope in map(str, scopes):
        if scope not in _SCOPES:
            errors.append(FieldError.invalid("spec.scopes", shown, "unsupported scope"))
        for name in hard:
            if _standard_for_quota(name) and not _scope_fits(scope, name):
                detail = "unsupported scope applied to resource"
                errors.append(FieldError.invalid("spec.scopes", shown, detail))
    return errors + _conflicts(set(map(str, scopes)), "spec.scopes", shown)


def _requirement_errors(requirement: dict[str, Any], path: str) -> list[FieldError]:
    scope, operator = (
        str(requirement.get("scopeName") or ""),
        str(requirement.get("operator") or ""),
    )
    values = requirement.get("values") or []
    errors = []
    exists_only = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating")
    if scope in (*exists_only, "CrossNamespacePodAffinity") and operator != "Exists":
        errors.append(FieldError.invalid(f"{path}.operator", operator, _EXISTS_ONLY))
    if operator in ("In", "NotIn") and not values:
        detail = "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
        errors.append(FieldError.required(f"{path}.values", detail))
    elif operator in ("Exists", "DoesNotExist") and values:
        shown = GoValue(_go_list("[]string", values))
        detail = "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
        errors.append(FieldError.invalid(f"{path}.values", shown, detail))
    elif operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
        errors.append(
            FieldError.invalid(f"{path}.operator", operator, "not a valid selector operator")
        )
    return errors


def _selector_errors(spec: dict[str, Any], hard: list[str]) -> list[FieldError]:
    selector = spec.get("scopeSelector")
    if not isinstance(selector, dict):
        return []
    path = "spec.scopeSelector.matchExpressions"
    errors: list[FieldError] = []
    chosen = set()
    for requirement in selector.get("matchExpressions") or []:
        if not isinstance(requirement, dict):
            continue
        scope = str(requirement.get("scopeName") or "")
        if scope not in _SCOPES:
            errors.append(FieldError.invalid(f"{path}.scopeName", scope, "unsupported scope"))
        for name in hard:
            if _standard_for_quota(name) and not _scope_fits(scope, name):
                detail = "unsupported scope applied to resource"
                errors.append(FieldError.invalid(path, _go_selector(selector), detail))
        errors += _requirement_errors(requirement, path)
        chosen.add(scope)
    scopes = GoValue(_go_list("[]core.ResourceQuotaScope", spec.get("scopes")))
    return errors + _conflicts(chosen, path, scopes)


def quota_spec_errors(spec: Any) -> list[FieldError]:
    """``ValidateResourceQuotaSpec``."""
    if not isinstance(spec, dict):
        return []
    hard: dict[str, Any] = spec["hard"] if isinstance(spec.get("hard"), dict) else {}
    errors = []
    for name in sorted(hard):
        path = f"spec.hard[{name}]"
        errors += _name_errors(name, path) + quantity_errors(name, hard[name], path)
    return errors + _scope_errors(spec, sorted(hard)) + _selector_errors(spec, sorted(hard))


def quota_update_errors(new: Any, old: Any) -> list[FieldError]:
    """``ValidateResourceQuotaUpdate``: the spec's rules, and scopes that stay as they were."""
    new_spec = new if isinstance(new, dict) else {}
    old_spec = old if isinstance(old, dict) else {}
    errors = quota_spec_errors(new_spec)
    if set(map(str, new_spec.get("scopes") or [])) != set(map(str, old_spec.get("scopes") or [])):
        shown = GoValue(_go_list("[]core.ResourceQuotaScope", new_spec.get("scopes")))
        errors.append(FieldError.invalid("spec.scopes", shown, "field is immutable"))
    return errors
