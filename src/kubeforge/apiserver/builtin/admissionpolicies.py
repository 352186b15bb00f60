"""ValidatingAdmissionPolicy and its bindings as objects: the API validation a 1.32 server does.

A policy needs ``matchConstraints`` and at least one validation or audit annotation, and
every CEL expression in it must compile in the policy's environment (with ``params``
when it has a ``paramKind``, and its ``variables``), else the write is refused with the
compiler's text at the expression's field. A binding needs ``policyName`` and at least
one of the ``validationActions`` Deny, Warn and Audit.

Entry points: the two strategies, listed in ``admissionregistration.KINDS``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.cel.policy_compile import CompiledExpression, CompiledPolicy
from kubeforge.apiserver.failures import FieldError

__all__ = ["ValidatingAdmissionPolicyBindingStrategy", "ValidatingAdmissionPolicyStrategy"]

_ACTIONS = ("Audit", "Deny", "Warn")


def _expression_errors(policy: CompiledPolicy) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, (_, compiled) in enumerate(policy.variables):
        if compiled.error:
            where = f"spec.variables[{i}].expression"
            errors.append(FieldError("Invalid", where, compiled.error, compiled.source))
    for i, (_, compiled) in enumerate(policy.conditions):
        if compiled.error:
            where = f"spec.matchConditions[{i}].expression"
            errors.append(FieldError("Invalid", where, compiled.error, compiled.source))
    for i, (_, rule, message) in enumerate(policy.validations):
        checked: list[tuple[str, CompiledExpression | None]] = [
            ("expression", rule),
            ("messageExpression", message),
        ]
        for field, expression in checked:
            if expression is not None and expression.error:
                where = f"spec.validations[{i}].{field}"
                errors.append(FieldError("Invalid", where, expression.error, expression.source))
    for i, (_, compiled) in enumerate(policy.annotations):
        if compiled.error:
            where = f"spec.auditAnnotations[{i}].valueExpression"
            errors.append(FieldError("Invalid", where, compiled.error, compiled.source))
    return errors


class ValidatingAdmissionPolicyStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.setdefault("spec", {})
        if isinstance(spec, dict):
            spec.setdefault("failurePolicy", "Fail")
            constraints = spec.get("matchConstraints")
            if isinstance(constraints, dict):
                constraints.setdefault("matchPolicy", "Equivalent")
                constraints.setdefault("namespaceSelector", {})
                constraints.setdefault("objectSelector", {})

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return [FieldError("Required", "spec")]
        errors: list[FieldError] = []
        if not spec.get("matchConstraints"):
            errors.append(FieldError("Required", "spec.matchConstraints"))
        if not spec.get("validations") and not spec.get("auditAnnotations"):
            detail = "validations or auditAnnotations must contain at least one item"
            errors.append(FieldError("Required", "spec.validations", detail))
        failure = spec.get("failurePolicy")
        if failure not in (None, "Fail", "Ignore"):
            errors.append(
                FieldError(
                    "NotSupported",
                    "spec.failurePolicy",
                    'supported values: "Fail", "Ignore"',
                    failure,
                )
            )
        return errors + _expression_errors(CompiledPolicy.of(obj))


class ValidatingAdmissionPolicyBindingStrategy(CatalogStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return [FieldError("Required", "spec")]
        errors: list[FieldError] = []
        if not spec.get("policyName"):
            errors.append(FieldError("Required", "spec.policyName"))
        actions = spec.get("validationActions")
        if not actions:
            detail = "at least one validation action is required"
            errors.append(FieldError("Required", "spec.validationActions", detail))
        for i, action in enumerate(actions or []):
            if action not in _ACTIONS:
                supported = ", ".join(f'"{a}"' for a in _ACTIONS)
                where = f"spec.validationActions[{i}]"
                errors.append(
                    FieldError("NotSupported", where, f"supported values: {supported}", action)
                )
        return errors
