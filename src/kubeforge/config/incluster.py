"""Connection settings of a pod: the service-account token, CA and namespace.

See ``load_incluster_config()``. The token is kept as a *file* path rather than
its contents because bound service-account tokens rotate (about hourly); the
client re-reads it when it changes.
"""

from __future__ import annotations

import os
from pathlib import Path

from kubeforge.config.settings import ClientConfig
from kubeforge.core.errors import ConfigError

__all__ = ["SERVICE_ACCOUNT_DIR", "in_cluster", "load_incluster_config"]

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
"""Where the kubelet mounts a pod's service-account token, ``ca.crt`` and ``namespace``."""


def in_cluster() -> bool:
    """True when the kubelet's service environment variables are present."""
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and bool(
        os.environ.get("KUBERNETES_SERVICE_PORT")
    )


def load_incluster_config(service_account_dir: str | Path | None = None) -> ClientConfig:
    """Build the config a pod uses to reach its own cluster.

    Reads ``$KUBERNETES_SERVICE_HOST``/``$KUBERNETES_SERVICE_PORT`` and, from
    ``service_account_dir`` (default ``SERVICE_ACCOUNT_DIR``), ``token`` (required),
    ``ca.crt`` (required) and ``namespace`` (optional, ``default`` when absent).

    Raises ``ConfigError`` naming the variable or file at fault.
    """
    host = os.environ.get("KUBERNETES_SERVICE_HOST", "")
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise ConfigError(
            "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
            "must both be set"
        )
    if ":" in host and not host.startswith("["):  # a bare IPv6 address needs brackets in a URL
        host = f"[{host}]"
    directory = Path(service_account_dir or SERVICE_ACCOUNT_DIR).absolute()
    token_file = directory / "token"
    ca_file = directory / "ca.crt"
    try:
        token = token_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise ConfigError(
            f"{token_file}: no such file (no service-account token mounted)"
        ) from None
    except OSError as err:
        raise ConfigError(f"{token_file}: cannot read ({err.strerror})") from err
    if not token:
        raise ConfigError(f"{token_file}: the service-account token is empty")
    if not ca_file.is_file():
        raise ConfigError(f"{ca_file}: no such file (no service-account CA mounted)")
    namespace_file = directory / "namespace"
    try:
        namespace = namespace_file.read_text(encoding="utf-8").strip() or "default"
    except FileNotFoundError:
        namespace = "default"
    except OSError as err:
        raise ConfigError(f"{namespace_file}: cannot read ({err.strerror})") from err
    return ClientConfig(
        server=f"https://{host}:{port}",
        ca_file=ca_file,
        token_file=token_file,
        namespace=namespace,
        source=str(directory),
    )
