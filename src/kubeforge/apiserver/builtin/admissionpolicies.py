"""ValidatingAdmissionPolicy and its bindings as objects: 1.32's defaults and API validation.

Defaults are ``pkg/apis/admissionregistration/v1/defaults.go``'s: a policy fails closed
(``failurePolicy`` Fail), match resources match ``Equivalent`` requests with empty
selectors, and every rule's scope is ``*``; a binding's ``paramRef`` gets no default
(its ``parameterNotFoundAction`` is required). The rules are ``policy_rules``'.

Entry points: the two strategies, listed in ``admissionregistration.KINDS``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.policy_rules import (
    binding_errors,
    policy_errors,
    policy_status_errors,
)
from kubeforge.apiserver.failures import FieldError

__all__ = ["ValidatingAdmissionPolicyBindingStrategy", "ValidatingAdmissionPolicyStrategy"]


def _default_match_resources(resources: Any) -> None:
    """``SetDefaults_MatchResources`` and ``SetDefaults_Rule`` of its rules."""
    if not isinstance(resources, dict):
        return
    resources.setdefault("matchPolicy", "Equivalent")
    resources.setdefault("namespaceSelector", {})
    resources.setdefault("objectSelector", {})
    for key in ("resourceRules", "excludeResourceRules"):
        rules = resources.get(key)
        for rule in rules if isinstance(rules, list) else ():
            if isinstance(rule, dict):
                rule.setdefault("scope", "*")


def _spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else None


class ValidatingAdmissionPolicyStrategy(CatalogStrategy):
    allow_unconditional_update = False  # an update names the resourceVersion it read

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.setdefault("spec", {})
        if isinstance(spec, dict):
            spec.setdefault("failurePolicy", "Fail")
            _default_match_resources(spec.get("matchConstraints"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return policy_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return policy_errors(new, old)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return policy_status_errors(new)


class ValidatingAdmissionPolicyBindingStrategy(CatalogStrategy):
    allow_unconditional_update = False

    def default(self, obj: dict[str, Any]) -> None:
        spec = _spec(obj)
        if spec is not None:
            _default_match_resources(spec.get("matchResources"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return binding_errors(obj)
