"""A kind's webhooks, declared once, served and written as manifests: ``TypeWebhooks``.

Entry point: ``TypeWebhooks(Frigate, defaulter=..., validator=..., conversion=...)``,
a module-level value in a project's webhook module. ``complete(mgr)`` registers its
handlers with the manager's webhook server (controller-runtime's
``ctrl.NewWebhookManagedBy(mgr).For(&Frigate{}).WithDefaulter(d).WithValidator(v).Complete()``);
``mutating_webhook``/``validating_webhook`` are its entries of the
Mutating/ValidatingWebhookConfiguration, with kubebuilder's paths and names
(``/mutate-ship-example-com-v1-frigate``, ``mfrigate-v1.kb.io``), which
``kubeforge generate`` writes to ``config/webhook/manifests.yaml`` and the local
installer (``local``) points at a running server. ``webhooks_in(*modules)`` finds the
declarations of a project, as ``crd.rules_in`` finds its RBAC rules.

Example::

    webhooks = TypeWebhooks(Frigate, defaulter=FrigateDefaulter(), validator=FrigateValidator())

    def setup(mgr: Manager) -> None:
        webhooks.complete(mgr)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar

from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.webhook.admission import AdmissionWebhook
from kubeforge.webhook.conversion import Conversion
from kubeforge.webhook.server import WebhookServer
from kubeforge.webhook.typed import Defaulter, Validator, defaulting_handler, validating_handler

__all__ = [
    "ClientConfig",
    "HasWebhookServer",
    "TypeWebhooks",
    "configurations",
    "conversion_spec",
    "mutate_path",
    "service_client_config",
    "url_client_config",
    "validate_path",
    "webhooks_in",
]

T = TypeVar("T", bound=Resource)
ClientConfig = dict[str, Any]
"""A webhook's ``clientConfig``: ``{"service": {...}}`` or ``{"url": ...}`` (+ ``caBundle``)."""


class HasWebhookServer(Protocol):
    """What ``complete`` needs of a manager: its (lazily created) webhook server."""

    @property
    def webhook_server(self) -> WebhookServer: ...


def _path(prefix: str, info: ResourceInfo) -> str:
    return f"/{prefix}-{info.group.replace('.', '-')}-{info.version}-{info.kind.lower()}"


def mutate_path(info: ResourceInfo) -> str:
    """kubebuilder's path of a kind's defaulting webhook.

    >>> mutate_path(ResourceInfo("ship.example.com", "v1", "Frigate", "frigates"))
    '/mutate-ship-example-com-v1-frigate'
    """
    return _path("mutate", info)


def validate_path(info: ResourceInfo) -> str:
    """kubebuilder's path of a kind's validating webhook (``/validate--v1-pod`` for core)."""
    return _path("validate", info)


def service_client_config(name: str, namespace: str, path: str, port: int = 443) -> ClientConfig:
    """A ``clientConfig`` reaching ``path`` through a Service (what a cluster uses)."""
    service: dict[str, Any] = {"name": name, "namespace": namespace, "path": path}
    if port != 443:
        service["port"] = port
    return {"service": service}


def url_client_config(base_url: str, path: str, ca_bundle: str) -> ClientConfig:
    """A ``clientConfig`` reaching ``base_url + path`` directly, trusting ``ca_bundle``."""
    return {"url": base_url.rstrip("/") + path, "caBundle": ca_bundle}


def conversion_spec(client_config: ClientConfig) -> dict[str, Any]:
    """A CRD's ``spec.conversion`` sending ``ConversionReview`` v1 to ``client_config``."""
    return {
        "strategy": "Webhook",
        "webhook": {"clientConfig": client_config, "conversionReviewVersions": ["v1"]},
    }


@dataclass
class TypeWebhooks(Generic[T]):
    """The defaulting, validating and conversion webhooks of one kind (each optional)."""

    resource: type[T]
    defaulter: Defaulter[T] | None = None
    validator: Validator[T] | None = None
    conversion: Conversion | None = None
    failure_policy: str = "Fail"
    """``Fail`` (kubebuilder's default) refuses requests while the webhook is down."""
    side_effects: str = "None"
    validate_operations: Sequence[str] = ("CREATE", "UPDATE")
    """Operations sent to the validator (kubebuilder's ``verbs=create;update``); add
    ``"DELETE"`` to have ``validate_delete`` called."""
    timeout_seconds: int | None = None

    def __post_init__(self) -> None:
        if self.conversion is not None and self.resource is not self.conversion.hub:
            raise ValueError(
                f"the conversion of {self.resource.info.kind} must be declared with its hub "
                f"({self.conversion.hub.info.api_version}), not {self.resource.info.api_version}"
            )

    @property
    def info(self) -> ResourceInfo:
        return self.resource.info

    def complete(self, mgr: HasWebhookServer) -> None:
        """Serve these webhooks from ``mgr``'s webhook server."""
        self.register(mgr.webhook_server)

    def register(self, server: WebhookServer) -> None:
        """Serve these webhooks from ``server`` (``complete`` with the manager's)."""
        server.declarations.append(self)
        if self.defaulter is not None:
            handler = defaulting_handler(self.resource, self.defaulter)
            server.register(
                mutate_path(self.info), AdmissionWebhook(handler, on_panic=server.on_panic)
            )
        if self.validator is not None:
            handler = validating_handler(self.resource, self.validator)
            server.register(
                validate_path(self.info), AdmissionWebhook(handler, on_panic=server.on_panic)
            )
        if self.conversion is not None:
            server.conversion_webhook().add(self.conversion)

    def mutating_webhook(self, client_config: ClientConfig) -> dict[str, Any] | None:
        """This kind's entry of a MutatingWebhookConfiguration (``None`` without a defaulter)."""
        if self.defaulter is None:
            return None
        return self._webhook("m", client_config, ("CREATE", "UPDATE"))

    def validating_webhook(self, client_config: ClientConfig) -> dict[str, Any] | None:
        """This kind's entry of a ValidatingWebhookConfiguration (``None`` without a validator)."""
        if self.validator is None:
            return None
        return self._webhook("v", client_config, tuple(self.validate_operations))

    def _webhook(
        self, letter: str, client_config: ClientConfig, operations: Sequence[str]
    ) -> dict[str, Any]:
        info = self.info
        webhook: dict[str, Any] = {
            "admissionReviewVersions": ["v1"],
            "clientConfig": client_config,
            "failurePolicy": self.failure_policy,
            "name": f"{letter}{info.kind.lower()}-{info.version}.kb.io",
            "rules": [
                {
                    "apiGroups": [info.group],
                    "apiVersions": [info.version],
                    "operations": list(operations),
                    "resources": [info.plural],
                }
            ],
            "sideEffects": self.side_effects,
        }
        if self.timeout_seconds is not None:
            webhook["timeoutSeconds"] = self.timeout_seconds
        return webhook


def webhooks_in(*modules: ModuleType) -> list[TypeWebhooks[Any]]:
    """Every ``TypeWebhooks`` bound to a module-level name of ``modules`` (each once)."""
    found: list[TypeWebhooks[Any]] = []
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, TypeWebhooks) and all(value is not f for f in found):
                found.append(value)
    return found


def configurations(
    webhooks: Iterable[TypeWebhooks[Any]],
    client_config: Any,
    *,
    name_prefix: str,
) -> list[dict[str, Any]]:
    """The Mutating- and ValidatingWebhookConfiguration of ``webhooks`` (each only if non-empty).

    ``client_config(path)`` gives the ``clientConfig`` of a path.
    """
    hooks = list(webhooks)
    mutating = [m for w in hooks if (m := w.mutating_webhook(client_config(mutate_path(w.info))))]
    validating = [
        v for w in hooks if (v := w.validating_webhook(client_config(validate_path(w.info))))
    ]
    objects: list[dict[str, Any]] = []
    sections: list[tuple[str, str, list[dict[str, Any]]]] = [
        ("MutatingWebhookConfiguration", "mutating-webhook-configuration", mutating),
        ("ValidatingWebhookConfiguration", "validating-webhook-configuration", validating),
    ]
    for kind, name, entries in sections:
        if entries:
            objects.append(
                {
                    "apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": kind,
                    "metadata": {"name": f"{name_prefix}{name}"},
                    "webhooks": sorted(entries, key=lambda e: str(e["name"])),
                }
            )
    return objects
