"""ValidatingAdmissionPolicies and their bindings, validated as 1.32's
``ValidateValidatingAdmissionPolicy`` / ``ValidateValidatingAdmissionPolicyBinding`` (and
the status rules of ``ValidateValidatingAdmissionPolicyStatusUpdate``), in Go's order and
words. CEL expressions compile in the policy's environment: ``params`` with a
``paramKind``, the ``variables`` declared before, the authorizer except in message
expressions; match conditions compile without variables, as Go's stateless compiler
does, and an update that changed neither them nor the ``paramKind`` does not compile them
again.

Entry points: ``policy_errors``, ``policy_status_errors``, ``binding_errors``.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.builtin.admission_rules import (
    go_list,
    match_condition_errors,
    rule_errors,
    selector_errors,
    strings,
)
from kubeforge.apiserver.cel.policy_compile import CompiledExpression, CompiledPolicy
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.conditions import validate_conditions
from kubeforge.apiserver.meta.validation import path_segment_name
from kubeforge.core.names import dns1035_label, dns1123_subdomain, qualified_name

__all__ = ["binding_errors", "policy_errors", "policy_status_errors"]

_FAILURE_POLICIES = ("Fail", "Ignore")
_MATCH_POLICIES = ("Equivalent", "Exact")
_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
_ACTIONS = ("Audit", "Deny", "Warn")
_MAX_AUDIT_ANNOTATIONS = 20
_MAX_VALUE_EXPRESSION = 5 * 1024
_CEL_IDENTIFIER = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED = frozenset(
    [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def policy_errors(policy: dict[str, Any], old: dict[str, Any] | None = None) -> list[FieldError]:
    """``validateValidatingAdmissionPolicySpec`` of ``policy`` (``old``: on update)."""
    spec = _dict(policy.get("spec"))
    errors: list[FieldError] = []
    failure = spec.get("failurePolicy")
    if failure is None:
        errors.append(FieldError.required("spec.failurePolicy"))
    elif failure not in _FAILURE_POLICIES:
        errors.append(FieldError.not_supported("spec.failurePolicy", failure, _FAILURE_POLICIES))
    params = spec.get("paramKind") is not None
    if params:
        errors += _param_kind_errors(_dict(spec.get("paramKind")), "spec.paramKind")
    constraints = spec.get("matchConstraints")
    if constraints is None:
        errors.append(FieldError.required("spec.matchConstraints"))
    else:
        errors += match_resources_errors(constraints, "spec.matchConstraints")
        if not _list(_dict(constraints).get("resourceRules")):
            errors.append(FieldError.required("spec.matchConstraints.resourceRules"))
    if old is None or _condition_inputs(spec) != _condition_inputs(_dict(old.get("spec"))):
        errors += match_condition_errors(
            spec.get("matchConditions"), "spec.matchConditions", params=params
        )
    compiled = CompiledPolicy.of(policy)
    errors += _variable_errors(_list(spec.get("variables")), compiled)
    validations, annotations = _list(spec.get("validations")), _list(spec.get("auditAnnotations"))
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        errors.append(FieldError.required("spec.validations", detail))
        errors.append(FieldError.required("spec.auditAnnotations", detail))
        return errors
    for i, validation in enumerate(validations):
        _, rule, message = compiled.validations[i]
        errors += _validation_errors(_dict(validation), rule, message, f"spec.validations[{i}]")
    name = str((policy.get("metadata") or {}).get("name") or "")
    errors += _annotation_errors(annotations, compiled, name)
    return errors


def _condition_inputs(spec: dict[str, Any]) -> tuple[Any, Any]:
    return spec.get("paramKind"), spec.get("matchConditions")


def _param_kind_errors(kind: dict[str, Any], path: str) -> list[FieldError]:
    """``validateParamKind``: a group/version of valid names and a kind."""
    errors: list[FieldError] = []
    api_version = str(kind.get("apiVersion") or "")
    where = f"{path}.apiVersion"
    if not api_version:
        errors.append(FieldError.required(where))
    elif api_version.count("/") > 1:
        detail = f"unexpected GroupVersion string: {api_version}"
        errors.append(FieldError.invalid(where, api_version, detail))
    elif api_version != "/":
        group, _, version = api_version.rpartition("/")
        if group and (problems := dns1123_subdomain(group)):
            errors.append(FieldError.invalid(where, group, ",".join(problems)))
        if not version:
            errors.append(FieldError.invalid(where, api_version, "version must be specified"))
        elif problems := dns1035_label(version):
            errors.append(FieldError.invalid(where, version, ",".join(problems)))
    name = str(kind.get("kind") or "")
    if not name:
        errors.append(FieldError.required(f"{path}.kind"))
    elif problems := dns1035_label(name.lower()):
        detail = "may have mixed case, but should otherwise match: " + ",".join(problems)
        errors.append(FieldError.invalid(f"{path}.kind", name, detail))
    return errors


def match_resources_errors(resources: Any, path: str) -> list[FieldError]:
    """``validateMatchResources``: policy, both selectors (strictly), named rules."""
    resources = _dict(resources)
    errors: list[FieldError] = []
    policy = resources.get("matchPolicy")
    if policy is None:
        errors.append(FieldError.required(f"{path}.matchPolicy"))
    elif policy not in _MATCH_POLICIES:
        errors.append(FieldError.not_supported(f"{path}.matchPolicy", policy, _MATCH_POLICIES))
    for key in ("namespaceSelector", "objectSelector"):
        if resources.get(key) is None:
            errors.append(FieldError.required(f"{path}.{key}"))
        else:
            errors += selector_errors(resources[key], f"{path}.{key}")
    for key in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(_list(resources.get(key))):
            errors += _named_rule_errors(_dict(rule), f"{path}.{key}[{i}]")
    return errors


def _named_rule_errors(rule: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, name in enumerate(strings(rule.get("resourceNames"))):
        where = f"{path}.resourceNames[{i}]"
        errors += [FieldError.invalid(where, name, m) for m in path_segment_name(name)]
        if name in seen:
            errors.append(FieldError.duplicate(where, name))
        seen.add(name)
    return errors + rule_errors(rule, path)


def _compile_error(path: str, compiled: CompiledExpression | None) -> list[FieldError]:
    if compiled is None or not compiled.error:
        return []
    return [FieldError.invalid(path, compiled.source, compiled.error)]


def _variable_errors(variables: list[Any], compiled: CompiledPolicy) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, variable in enumerate(variables):
        variable, path = _dict(variable), f"spec.variables[{i}]"
        name = str(variable.get("name") or "")
        if not name.strip():
            errors.append(FieldError.required(f"{path}.name", "name is not specified"))
        elif not _CEL_IDENTIFIER.fullmatch(name) or name in _CEL_RESERVED:
            detail = "name is not a valid CEL identifier"
            errors.append(FieldError.invalid(f"{path}.name", name, detail))
        if not str(variable.get("expression") or "").strip():
            detail = "expression is not specified"
            errors.append(FieldError.required(f"{path}.expression", detail))
        else:
            errors += _compile_error(f"{path}.expression", compiled.variables[i][1])
    return errors


def _validation_errors(
    validation: dict[str, Any],
    rule: CompiledExpression,
    message_expression: CompiledExpression | None,
    path: str,
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not str(validation.get("expression") or "").strip():
        detail = "expression is not specified"
        errors.append(FieldError.required(f"{path}.expression", detail))
    else:
        errors += _compile_error(f"{path}.expression", rule)
    source = str(validation.get("messageExpression") or "")
    if source and not source.strip():
        detail = "must be non-empty if specified"
        errors.append(FieldError.invalid(f"{path}.messageExpression", source, detail))
    elif source:
        errors += _compile_error(f"{path}.messageExpression", message_expression)
    message = str(validation.get("message") or "")
    if message and not message.strip():
        detail = "message must be non-empty if specified"
        errors.append(FieldError.invalid(f"{path}.message", message, detail))
    elif re.search(r"[\n\r]", message.strip()):
        detail = "message must not contain line breaks"
        errors.append(FieldError.invalid(f"{path}.message", message, detail))
    reason = validation.get("reason")
    if reason is not None and reason not in _REASONS:
        errors.append(FieldError.not_supported(f"{path}.reason", reason, _REASONS))
    return errors


def _annotation_errors(
    annotations: list[Any], compiled: CompiledPolicy, policy_name: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(annotations) > _MAX_AUDIT_ANNOTATIONS:
        detail = f"must not have more than {_MAX_AUDIT_ANNOTATIONS} auditAnnotations"
        errors.append(
            FieldError.invalid("spec.auditAnnotations", _go_annotations(annotations), detail)
        )
    keys: set[str] = set()
    for i, annotation in enumerate(annotations):
        annotation, path = _dict(annotation), f"spec.auditAnnotations[{i}]"
        key = str(annotation.get("key") or "")
        if policy_name:
            full = f"{policy_name}/{key}"
            errors += [FieldError.invalid(f"{path}.key", full, m) for m in qualified_name(full)]
        else:
            detail = "requires metadata.name be non-empty"
            errors.append(FieldError.invalid(f"{path}.key", key, detail))
        value = str(annotation.get("valueExpression") or "").strip()
        where = f"{path}.valueExpression"
        if not value:
            errors.append(FieldError.required(where, "valueExpression is not specified"))
        elif len(value.encode()) > _MAX_VALUE_EXPRESSION:
            detail = f"must not exceed {_MAX_VALUE_EXPRESSION} bytes in length"
            errors.append(FieldError.required(where, detail))
        else:
            errors += _compile_error(where, compiled.annotations[i][1])
        if key in keys:
            errors.append(FieldError.duplicate(f"{path}.key", key))
        keys.add(key)
    return errors


def policy_status_errors(policy: dict[str, Any]) -> list[FieldError]:
    """``validateValidatingAdmissionPolicyStatus``: type-checking warnings and conditions."""
    status = _dict(policy.get("status"))
    errors: list[FieldError] = []
    checking = status.get("typeChecking")
    path = "status.typeChecking.expressionWarnings"
    for i, warning in enumerate(_list(_dict(checking).get("expressionWarnings"))):
        warning = _dict(warning)
        if not warning.get("warning"):
            errors.append(FieldError.required(f"{path}[{i}].warning"))
        if not str(warning.get("fieldRef") or "").strip():
            errors.append(FieldError.required(f"{path}[{i}].fieldRef"))
    return errors + validate_conditions(status.get("conditions"), "status.conditions")


def binding_errors(binding: dict[str, Any]) -> list[FieldError]:
    """``validateValidatingAdmissionPolicyBindingSpec``."""
    spec = _dict(binding.get("spec"))
    errors: list[FieldError] = []
    policy = str(spec.get("policyName") or "")
    if not policy:
        errors.append(FieldError.required("spec.policyName"))
    else:
        problems = dns1123_subdomain(policy)
        errors += [FieldError.invalid("spec.policyName", policy, m) for m in problems]
    if spec.get("paramRef") is not None:
        errors += _param_ref_errors(_dict(spec.get("paramRef")), "spec.paramRef")
    if spec.get("matchResources") is not None:
        # Go names this path "matchResouces" (sic), and so do its answers.
        errors += match_resources_errors(spec["matchResources"], "spec.matchResouces")
    return errors + _action_errors(strings(spec.get("validationActions")))


def _param_ref_errors(ref: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name, selector = str(ref.get("name") or ""), ref.get("selector")
    exclusive = "name and selector are mutually exclusive"
    if name:
        errors += [FieldError.invalid(f"{path}.name", name, m) for m in path_segment_name(name)]
        if selector is not None:
            errors.append(FieldError.forbidden(f"{path}.name", exclusive))
    if selector is not None:
        errors += selector_errors(selector, f"{path}.selector")
        if name:
            errors.append(FieldError.forbidden(f"{path}.selector", exclusive))
    if not name and selector is None:
        errors.append(FieldError.required(path, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if not action:
        errors.append(FieldError.required(f"{path}.parameterNotFoundAction"))
    elif action not in ("Deny", "Allow"):
        where = f"{path}.parameterNotFoundAction"
        errors.append(FieldError.not_supported(where, action, ("Deny", "Allow")))
    return errors


def _action_errors(actions: list[str]) -> list[FieldError]:
    path = "spec.validationActions"
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in _ACTIONS:
            errors.append(FieldError.not_supported(f"{path}[{i}]", action, _ACTIONS))
        if action in seen:
            errors.append(FieldError.duplicate(f"{path}[{i}]", action))
        seen.add(action)
    if {"Deny", "Warn"} <= seen:
        detail = (
            "must not contain both Deny and Warn (repeating the same validation failure "
            "information in the API response and headers serves no purpose)"
        )
        actions_value = go_list(actions, "admissionregistration.ValidationAction")
        errors.append(FieldError.invalid(path, actions_value, detail))
    if not seen:
        errors.append(FieldError.required(path, "at least one validation action is required"))
    return errors


def _go_annotations(annotations: list[Any]) -> GoValue:
    """``%#v`` of a ``[]admissionregistration.AuditAnnotation``."""
    kind = "admissionregistration.AuditAnnotation"
    items = ", ".join(
        f"{kind}{{Key:{GoValue.quote(str(_dict(a).get('key') or ''))}, "
        f"ValueExpression:{GoValue.quote(str(_dict(a).get('valueExpression') or ''))}}}"
        for a in annotations
    )
    return GoValue(f"[]{kind}{{{items}}}")
