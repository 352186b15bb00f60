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
- ``WebhookServer`` / ``WebhookServerOptions`` (``server``), ``CertWatcher``
  (``certwatcher``), ``ServingCert`` for local certificates (``certs``),
  ``install_local_webhooks`` to point a cluster at a local server (``local``).
"""

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
from kubeforge.webhook.server import (
    DEFAULT_CERT_DIR,
    DEFAULT_PORT,
    WebhookServer,
    WebhookServerOptions,
)
from kubeforge.webhook.typed import Defaulter, Validator, Warnings

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
