"""Where the webhook server listens and finds its certificate: ``WebhookServerOptions``.

Kept apart from ``server`` (aiohttp's server, prometheus_client) and ``certs``
(cryptography) so that ``ManagerOptions``, which holds one, costs nothing to import
for a manager that serves no webhook.

Example::

    WebhookServerOptions(port=9443, cert_dir="/certs")
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CERT_NAME",
    "DEFAULT_CERT_DIR",
    "DEFAULT_PORT",
    "KEY_NAME",
    "CertificateMissing",
    "WebhookServerOptions",
]

CERT_NAME = "tls.crt"
KEY_NAME = "tls.key"
DEFAULT_PORT = 9443
DEFAULT_CERT_DIR = str(Path(tempfile.gettempdir()) / "k8s-webhook-server" / "serving-certs")
"""controller-runtime's default; kubebuilder's manifests mount the Secret here."""


class CertificateMissing(FileNotFoundError):
    """The webhook server's certificate or key file does not exist."""


@dataclass(frozen=True, slots=True)
class WebhookServerOptions:
    """Where and with which certificate the webhook server listens."""

    port: int = DEFAULT_PORT
    """TCP port; ``0`` picks a free one (see ``WebhookServer.port`` once started)."""
    host: str = ""
    """Interface to bind; empty: every interface in a cluster, ``127.0.0.1`` elsewhere."""
    cert_dir: str = DEFAULT_CERT_DIR
    cert_name: str = CERT_NAME
    key_name: str = KEY_NAME
    shutdown_timeout: float = 60.0
    """Seconds requests in flight get to finish on ``stop()``."""
    cert_poll_interval: float = 1.0
    """How often the certificate files are checked for a change."""
