"""Webhooks written in Python, served by the manager: admission (defaulting, validating,
raw) and conversion (hub and spoke), over HTTPS with a reloading certificate.

May import ``core``, ``client`` and the layers below ``runtime``; ``runtime`` imports
it (``Manager.webhook_server``), as controller-runtime's manager owns its webhook
server. Entry points:

- ``TypeWebhooks(Kind, defaulter=..., validator=..., conversion=...)``: a kind's
  webhooks, declared once; ``.complete(mgr)`` serves them (``declare``).
- ``Defaulter`` / ``Validator`` protocols, ``Denied`` / ``Invalid`` / ``FieldError``
  refusals, ``AdmissionRequest`` (``dry_run``, ``user_info``, ...) (``typed``,
  ``denials``, ``admission``).
- ``AdmissionWebhook(handler)`` for raw ``AdmissionReview`` handlers (``admission``).
- ``Conversion(hub=...).spoke(...)`` and the ``/convert`` handler (``conversion``).
- ``WebhookServer`` (``server``) / ``WebhookServerOptions`` (``options``), ``CertWatcher``
  (``certwatcher``), ``ServingCert`` for local certificates (``certs``),
  ``install_local_webhooks`` to point a cluster at a local server (``local``).
"""

import importlib
import typing

if typing.TYPE_CHECKING:
    from kubeforge.webhook.admission import (
        AdmissionHandler,
        AdmissionRequest,
        AdmissionResponse,
        AdmissionWebhook,
        UserInfo,
    )
    from kubeforge.webhook.certs import ServingCert
    from kubeforge.webhook.certwatcher import CertWatcher
    from kubeforge.webhook.conversion import (
        CONVERT_PATH,
        Conversion,
        ConversionError,
        ConversionWebhook,
        copy_as,
    )
    from kubeforge.webhook.declare import (
        TypeWebhooks,
        configurations,
        conversion_spec,
        mutate_path,
        service_client_config,
        url_client_config,
        validate_path,
        webhooks_in,
    )
    from kubeforge.webhook.denials import Denied, FieldError, Invalid
    from kubeforge.webhook.options import DEFAULT_CERT_DIR, DEFAULT_PORT, WebhookServerOptions
    from kubeforge.webhook.server import WebhookServer
    from kubeforge.webhook.typed import Defaulter, Validator, Warnings

# Imported on first use (PEP 562): the manager imports ``webhook.options`` for every
# process, and only a process that serves webhooks needs aiohttp's server and cryptography.
_LAZY = {
    "AdmissionHandler": "kubeforge.webhook.admission",
    "AdmissionRequest": "kubeforge.webhook.admission",
    "AdmissionResponse": "kubeforge.webhook.admission",
    "AdmissionWebhook": "kubeforge.webhook.admission",
    "UserInfo": "kubeforge.webhook.admission",
    "ServingCert": "kubeforge.webhook.certs",
    "CertWatcher": "kubeforge.webhook.certwatcher",
    "CONVERT_PATH": "kubeforge.webhook.conversion",
    "Conversion": "kubeforge.webhook.conversion",
    "ConversionError": "kubeforge.webhook.conversion",
    "ConversionWebhook": "kubeforge.webhook.conversion",
    "copy_as": "kubeforge.webhook.conversion",
    "TypeWebhooks": "kubeforge.webhook.declare",
    "configurations": "kubeforge.webhook.declare",
    "conversion_spec": "kubeforge.webhook.declare",
    "mutate_path": "kubeforge.webhook.declare",
    "service_client_config": "kubeforge.webhook.declare",
    "url_client_config": "kubeforge.webhook.declare",
    "validate_path": "kubeforge.webhook.declare",
    "webhooks_in": "kubeforge.webhook.declare",
    "Denied": "kubeforge.webhook.denials",
    "FieldError": "kubeforge.webhook.denials",
    "Invalid": "kubeforge.webhook.denials",
    "DEFAULT_CERT_DIR": "kubeforge.webhook.options",
    "DEFAULT_PORT": "kubeforge.webhook.options",
    "WebhookServer": "kubeforge.webhook.server",
    "WebhookServerOptions": "kubeforge.webhook.options",
    "Defaulter": "kubeforge.webhook.typed",
    "Validator": "kubeforge.webhook.typed",
    "Warnings": "kubeforge.webhook.typed",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kubeforge.webhook' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "CONVERT_PATH",
    "DEFAULT_CERT_DIR",
    "DEFAULT_PORT",
    "AdmissionHandler",
    "AdmissionRequest",
    "AdmissionResponse",
    "AdmissionWebhook",
    "CertWatcher",
    "Conversion",
    "ConversionError",
    "ConversionWebhook",
    "Defaulter",
    "Denied",
    "FieldError",
    "Invalid",
    "ServingCert",
    "TypeWebhooks",
    "UserInfo",
    "Validator",
    "Warnings",
    "WebhookServer",
    "WebhookServerOptions",
    "configurations",
    "conversion_spec",
    "copy_as",
    "mutate_path",
    "service_client_config",
    "url_client_config",
    "validate_path",
    "webhooks_in",
]
