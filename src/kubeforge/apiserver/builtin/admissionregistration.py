"""``admissionregistration.k8s.io/v1`` webhook configurations: defaults and validation.

Defaults and rules follow ``pkg/apis/admissionregistration/v1`` and its validation:
``failurePolicy`` Fail, ``matchPolicy`` Equivalent, empty selectors, a 10 second
timeout, rule scope ``*``, service port 443; ``sideEffects`` and
``admissionReviewVersions`` are required. Calling the webhooks is ``admission.webhooks``'
job.

Entry point: ``KINDS``, the group's kinds (the policies' rules are ``admissionpolicies``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from kubeforge.apiserver.builtin.admissionpolicies import (
    ValidatingAdmissionPolicyBindingStrategy,
    ValidatingAdmissionPolicyStrategy,
)
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.cel.policy_compile import match_condition
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.apiserver.meta.validation import dns1123_subdomain
from kubeforge.apiserver.printers.cells import created, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS", "WebhookConfigurationStrategy", "default_webhook"]

_OPERATIONS = ("*", "CREATE", "UPDATE", "DELETE", "CONNECT")
_SCOPES = ("*", "Cluster", "Namespaced")
_REVIEW_VERSIONS = ("v1", "v1beta1")
_MAX_CONDITIONS = 64


def default_webhook(hook: dict[str, Any], *, mutating: bool) -> None:
    """``SetDefaults_ValidatingWebhook``/``SetDefaults_MutatingWebhook`` on one webhook."""
    hook.setdefault("failurePolicy", "Fail")
    hook.setdefault("matchPolicy", "Equivalent")
    hook.setdefault("namespaceSelector", {})
    hook.setdefault("objectSelector", {})
    hook.setdefault("timeoutSeconds", 10)
    if mutating:
        hook.setdefault("reinvocationPolicy", "Never")
    for rule in hook.get("rules") or []:
        if isinstance(rule, dict):
            rule.setdefault("scope", "*")
    service = (hook.get("clientConfig") or {}).get("service")
    if isinstance(service, dict):
        service.setdefault("port", 443)


def _name_errors(name: Any, path: str) -> list[FieldError]:
    text = str(name or "")
    if not text:
        return [FieldError("Required", path)]
    problems = dns1123_subdomain(text)
    if not problems and text.count(".") < 2:
        problems = ["should be a domain with at least three segments separated by dots"]
    return [FieldError("Invalid", path, p, text) for p in problems]


def _rule_errors(rule: Any, path: str) -> list[FieldError]:
    if not isinstance(rule, dict):
        return [FieldError("Invalid", path, "must be an object", rule)]
    errors = []
    for key in ("operations", "apiGroups", "apiVersions", "resources"):
        if not rule.get(key):
            errors.append(FieldError("Required", f"{path}.{key}"))
    for i, operation in enumerate(rule.get("operations") or []):
        if operation not in _OPERATIONS:
            errors.append(
                FieldError.not_supported(f"{path}.operations[{i}]", operation, _OPERATIONS)
            )
    if rule.get("scope") not in _SCOPES:
        errors.append(FieldError.not_supported(f"{path}.scope", rule.get("scope"), _SCOPES))
    return errors


def _client_errors(config: Any, path: str) -> list[FieldError]:
    if not isinstance(config, dict):
        config = {}
    url, service = config.get("url"), config.get("service")
    if bool(url) == bool(service):
        return [FieldError("Required", path, "exactly one of url or service is required")]
    if url:
        parts = urlsplit(str(url))
        problem = ""
        if parts.scheme != "https":
            problem = "'https' is the only allowed URL scheme"
        elif not parts.hostname:
            problem = "host must be specified"
        elif parts.username or parts.password:
            problem = "user information is not permitted in the URL"
        elif parts.fragment:
            problem = "fragments are not permitted in the URL"
        elif parts.query:
            problem = "query parameters are not permitted in the URL"
        return [FieldError("Invalid", f"{path}.url", problem, url)] if problem else []
    errors = []
    if not isinstance(service, dict):
        return [FieldError("Invalid", f"{path}.service", "must be an object", service)]
    for key in ("namespace", "name"):
        if not service.get(key):
            errors.append(FieldError("Required", f"{path}.service.{key}"))
    route = service.get("path")
    if route is not None and not str(route).startswith("/"):
        errors.append(FieldError("Invalid", f"{path}.service.path", "must start with a '/'", route))
    port = service.get("port")
    if not isinstance(port, int) or not 0 < port < 65536:
        errors.append(
            FieldError(
                "Invalid",
                f"{path}.service.port",
                "port is not valid: must be between 1 and 65535",
                port,
            )
        )
    return errors


def _webhook_errors(hook: Any, path: str, *, mutating: bool) -> list[FieldError]:
    if not isinstance(hook, dict):
        return [FieldError("Invalid", path, "must be an object", hook)]
    errors = _name_errors(hook.get("name"), f"{path}.name")
    errors += _client_errors(hook.get("clientConfig"), f"{path}.clientConfig")
    for i, rule in enumerate(hook.get("rules") or []):
        errors += _rule_errors(rule, f"{path}.rules[{i}]")
    choices = {
        "failurePolicy": ("Ignore", "Fail"),
        "matchPolicy": ("Exact", "Equivalent"),
    }
    if mutating:
        choices["reinvocationPolicy"] = ("Never", "IfNeeded")
    for key, allowed in choices.items():
        if hook.get(key) not in allowed:
            errors.append(FieldError.not_supported(f"{path}.{key}", hook.get(key), allowed))
    effects = hook.get("sideEffects")
    if effects is None:
        errors.append(
            FieldError("Required", f"{path}.sideEffects", "must specify one of None, NoneOnDryRun")
        )
    elif effects not in ("None", "NoneOnDryRun"):
        errors.append(
            FieldError.not_supported(f"{path}.sideEffects", effects, ("None", "NoneOnDryRun"))
        )
    timeout = hook.get("timeoutSeconds")
    if not isinstance(timeout, int) or not 1 <= timeout <= 30:
        errors.append(
            FieldError(
                "Invalid",
                f"{path}.timeoutSeconds",
                "the timeout value must be between 1 and 30 seconds",
                timeout,
            )
        )
    versions = hook.get("admissionReviewVersions")
    if not versions:
        errors.append(
            FieldError(
                "Required", f"{path}.admissionReviewVersions", "must specify one of v1, v1beta1"
            )
        )
    elif not isinstance(versions, list) or not set(versions) & set(_REVIEW_VERSIONS):
        errors.append(
            FieldError(
                "Invalid",
                f"{path}.admissionReviewVersions",
                "must include at least one of v1, v1beta1",
                versions,
            )
        )
    for key in ("namespaceSelector", "objectSelector"):
        errors += validate_selector(hook.get(key), f"{path}.{key}")
    errors += _condition_errors(hook.get("matchConditions"), f"{path}.matchConditions")
    return errors


def _condition_errors(conditions: Any, path: str) -> list[FieldError]:
    """Named, unique, at most 64, each a CEL expression that compiles."""
    if conditions is None:
        return []
    if not isinstance(conditions, list):
        return [FieldError("Invalid", path, "must be a list", conditions)]
    errors = []
    if len(conditions) > _MAX_CONDITIONS:
        errors.append(
            FieldError(
                "TooMany", path, f"must have at most {_MAX_CONDITIONS} items", len(conditions)
            )
        )
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        where = f"{path}[{i}]"
        condition = condition if isinstance(condition, dict) else {}
        name, expression = str(condition.get("name") or ""), str(condition.get("expression") or "")
        if not name:
            errors.append(FieldError("Required", f"{where}.name"))
        elif name in seen:
            errors.append(FieldError("Duplicate", f"{where}.name", value=name))
        seen.add(name)
        if not expression:
            errors.append(FieldError("Required", f"{where}.expression"))
        elif problem := match_condition(expression).error:
            errors.append(FieldError("Invalid", f"{where}.expression", problem, expression))
    return errors


class WebhookConfigurationStrategy(Strategy):
    has_generation = True
    top_level_fields: tuple[str, ...] | None = ("webhooks",)
    mutating = False

    def _default(self, obj: dict[str, Any]) -> None:
        for hook in obj.get("webhooks") or []:
            if isinstance(hook, dict):
                default_webhook(hook, mutating=self.mutating)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._default(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._default(new)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        hooks = obj.get("webhooks") or []
        if not isinstance(hooks, list):
            return [FieldError("Invalid", "webhooks", "must be a list", hooks)]
        errors: list[FieldError] = []
        seen: set[str] = set()
        for i, hook in enumerate(hooks):
            errors += _webhook_errors(hook, f"webhooks[{i}]", mutating=self.mutating)
            name = hook.get("name") if isinstance(hook, dict) else None
            if name in seen:
                errors.append(FieldError("Duplicate", f"webhooks[{i}].name", value=name))
            if isinstance(name, str):
                seen.add(name)
        return errors


class MutatingWebhookConfigurationStrategy(WebhookConfigurationStrategy):
    mutating = True


_GROUP = "admissionregistration.k8s.io"
_EXTENSIONS = ("api-extensions",)

_WEBHOOKS_PRINTER = Printer(
    (NAME_COLUMN, column("Webhooks", "integer", "Number of webhooks."), AGE_COLUMN),
    lambda obj, now: [name_of(obj), len(obj.get("webhooks") or []), created(obj, now)],
)

KINDS = (
    Kind(
        _GROUP,
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        namespaced=False,
        categories=_EXTENSIONS,
        strategy=MutatingWebhookConfigurationStrategy,
        printer=_WEBHOOKS_PRINTER,
    ),
    Kind(
        _GROUP,
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        namespaced=False,
        categories=_EXTENSIONS,
        strategy=WebhookConfigurationStrategy,
        printer=_WEBHOOKS_PRINTER,
    ),
    Kind(
        _GROUP,
        "v1",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
        namespaced=False,
        subresources=STATUS,
        categories=_EXTENSIONS,
        strategy=ValidatingAdmissionPolicyStrategy,
    ),
    Kind(
        _GROUP,
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
        namespaced=False,
        categories=_EXTENSIONS,
        strategy=ValidatingAdmissionPolicyBindingStrategy,
    ),
)
"""The admissionregistration.k8s.io/v1 kinds (the policies' rules are ``admissionpolicies``)."""
