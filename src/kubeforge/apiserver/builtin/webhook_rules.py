"""Validating and mutating webhook configurations, validated as 1.32's
``ValidateValidatingWebhookConfiguration`` / ``ValidateMutatingWebhookConfiguration`` and
their ``...Update`` forms, with ``k8s.io/apiserver``'s ``ValidateWebhookURL`` and
``ValidateWebhookService``.

An update is judged by what the stored configuration already had: side effects other
than None/NoneOnDryRun, unrecognized review versions, repeated names and lenient
selectors stay allowed if some webhook of the old object had them, and match conditions
are not compiled again when none changed (``WebhookOptions.for_update``).

Entry points: ``webhook_configuration_errors``, ``WebhookOptions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.builtin.admission_rules import (
    go_list,
    match_condition_errors,
    rule_errors,
    selector_errors,
    selector_is_invalid,
    strings,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.webhook_client import client_config_errors
from kubeforge.core.names import dns1035_label, dns1123_subdomain

__all__ = ["WebhookOptions", "webhook_configuration_errors"]

_FAILURE_POLICIES = ("Fail", "Ignore")
_MATCH_POLICIES = ("Equivalent", "Exact")
_REINVOCATION = ("IfNeeded", "Never")
_NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")
_SIDE_EFFECTS = ("None", "NoneOnDryRun", "Some", "Unknown")
_REVIEW_VERSIONS = ("v1", "v1beta1")


@dataclass(frozen=True)
class WebhookOptions:
    """What one write of a configuration must meet (Go's ``validationOptions``)."""

    check_match_conditions: bool = True
    no_side_effects: bool = True
    recognized_review_version: bool = True
    unique_names: bool = True
    strict_selectors: bool = True

    @classmethod
    def for_update(cls, new: list[Any], old: list[Any]) -> WebhookOptions:
        old_hooks = [h for h in old if isinstance(h, dict)]
        names = [h.get("name") for h in old_hooks]
        unchanged = len(new) == len(old) and all(
            _conditions(a) == _conditions(b) for a, b in zip(new, old, strict=True)
        )
        return cls(
            check_match_conditions=not unchanged,
            no_side_effects=all(h.get("sideEffects") in _NO_SIDE_EFFECTS for h in old_hooks),
            recognized_review_version=all(_recognized_or_empty(h) for h in old_hooks),
            unique_names=len(names) == len(set(map(str, names))),
            strict_selectors=not any(
                selector_is_invalid(h.get(key))
                for h in old_hooks
                for key in ("namespaceSelector", "objectSelector")
                if h.get(key) is not None
            ),
        )


def _conditions(hook: Any) -> Any:
    return hook.get("matchConditions") if isinstance(hook, dict) else None


def _recognized_or_empty(hook: dict[str, Any]) -> bool:
    versions = strings(hook.get("admissionReviewVersions"))
    return not versions or any(v in _REVIEW_VERSIONS for v in versions)


def webhook_configuration_errors(
    hooks: Any, *, mutating: bool, options: WebhookOptions
) -> list[FieldError]:
    """Every webhook's own rules, its review versions, and names unique across them."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, hook in enumerate(hooks if isinstance(hooks, list) else []):
        hook = hook if isinstance(hook, dict) else {}
        path = f"webhooks[{i}]"
        errors += _webhook_errors(hook, path, mutating=mutating, options=options)
        errors += _review_version_errors(
            strings(hook.get("admissionReviewVersions")),
            f"{path}.admissionReviewVersions",
            required=options.recognized_review_version,
        )
        name = str(hook.get("name") or "")
        if options.unique_names and name:
            if name in seen:
                errors.append(FieldError.duplicate(f"{path}.name", name))
            seen.add(name)
    return errors


def _webhook_errors(
    hook: dict[str, Any], path: str, *, mutating: bool, options: WebhookOptions
) -> list[FieldError]:
    errors = _fully_qualified(str(hook.get("name") or ""), f"{path}.name")
    for i, rule in enumerate(hook.get("rules") or []):
        errors += rule_errors(rule, f"{path}.rules[{i}]")
    for key, allowed in (("failurePolicy", _FAILURE_POLICIES), ("matchPolicy", _MATCH_POLICIES)):
        value = hook.get(key)
        if value is not None and value not in allowed:
            errors.append(FieldError.not_supported(f"{path}.{key}", value, allowed))
    effects = _NO_SIDE_EFFECTS if options.no_side_effects else _SIDE_EFFECTS
    side_effects = hook.get("sideEffects")
    if side_effects is None:
        detail = f"must specify one of {', '.join(effects)}"
        errors.append(FieldError.required(f"{path}.sideEffects", detail))
    elif side_effects not in effects:
        errors.append(FieldError.not_supported(f"{path}.sideEffects", side_effects, effects))
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        detail = "the timeout value must be between 1 and 30 seconds"
        errors.append(FieldError.invalid(f"{path}.timeoutSeconds", timeout, detail))
    for key in ("namespaceSelector", "objectSelector"):
        if hook.get(key) is not None:
            errors += selector_errors(hook[key], f"{path}.{key}", strict=options.strict_selectors)
    reinvocation = hook.get("reinvocationPolicy")
    if mutating and reinvocation is not None and reinvocation not in _REINVOCATION:
        errors.append(
            FieldError.not_supported(f"{path}.reinvocationPolicy", reinvocation, _REINVOCATION)
        )
    errors += client_config_errors(hook.get("clientConfig"), f"{path}.clientConfig")
    if options.check_match_conditions:
        errors += match_condition_errors(hook.get("matchConditions"), f"{path}.matchConditions")
    return errors


def _fully_qualified(name: str, path: str) -> list[FieldError]:
    """apimachinery's ``IsFullyQualifiedName``: one complaint at most."""
    if not name:
        return [FieldError.required(path)]
    if problems := dns1123_subdomain(name):
        return [FieldError.invalid(path, name, ",".join(problems))]
    if len(name.split(".")) < 3:
        detail = "should be a domain with at least three segments separated by dots"
        return [FieldError.invalid(path, name, detail)]
    return []


def _review_version_errors(versions: list[str], path: str, *, required: bool) -> list[FieldError]:
    if not versions:
        return [FieldError.required(path, f"must specify one of {', '.join(_REVIEW_VERSIONS)}")]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        if version in seen:
            errors.append(FieldError.invalid(f"{path}[{i}]", version, "duplicate version"))
            continue
        seen.add(version)
        errors += [FieldError.invalid(f"{path}[{i}]", version, m) for m in dns1035_label(version)]
    if required and not seen & set(_REVIEW_VERSIONS):
        detail = f"must include at least one of {', '.join(_REVIEW_VERSIONS)}"
        errors.append(FieldError.invalid(path, go_list(versions), detail))
    return errors
