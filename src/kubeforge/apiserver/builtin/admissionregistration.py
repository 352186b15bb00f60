"""``admissionregistration.k8s.io/v1`` webhook configurations: defaults and validation.

Defaults follow 1.32's ``pkg/apis/admissionregistration/v1/defaults.go``:
``failurePolicy`` Fail, ``matchPolicy`` Equivalent, empty selectors, a 10 second
timeout, rule scope ``*``, service port 443 (``reinvocationPolicy`` Never for mutating
ones); the validation is ``webhook_rules``'. Calling the webhooks is
``admission.webhooks``' job.

Entry point: ``KINDS``, the group's kinds (the policies' rules are ``admissionpolicies``).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.admissionpolicies import (
    ValidatingAdmissionPolicyBindingStrategy,
    ValidatingAdmissionPolicyStrategy,
)
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.builtin.webhook_rules import WebhookOptions, webhook_configuration_errors
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS", "WebhookConfigurationStrategy", "default_webhook"]


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


def _hooks(obj: dict[str, Any]) -> list[Any]:
    hooks = obj.get("webhooks")
    return hooks if isinstance(hooks, list) else []


class WebhookConfigurationStrategy(Strategy):
    """A ValidatingWebhookConfiguration's rules (``MutatingWebhookConfigurationStrategy``:
    a mutating one's); ``generation`` moves when the webhooks change."""

    has_generation = True
    allow_unconditional_update = False  # an update names the resourceVersion it read
    top_level_fields: tuple[str, ...] | None = ("webhooks",)
    mutating = False

    def _default(self, obj: dict[str, Any]) -> None:
        for hook in _hooks(obj):
            if isinstance(hook, dict):
                default_webhook(hook, mutating=self.mutating)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._default(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._default(new)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return webhook_configuration_errors(
            _hooks(obj), mutating=self.mutating, options=WebhookOptions()
        )

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        options = WebhookOptions.for_update(_hooks(new), _hooks(old))
        return webhook_configuration_errors(_hooks(new), mutating=self.mutating, options=options)


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
