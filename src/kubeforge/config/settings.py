"""``ClientConfig``: where the API server is and how to talk to it, as one immutable value.

Every loader (kubeconfig files, in-cluster service account) produces a
``ClientConfig``; the client consumes nothing else. Paths are absolute by the
time they land here, and inline data (``*-data`` kubeconfig fields) is already
base64-decoded, so the client never has to know which file a setting came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kubeforge._version import __version__

__all__ = ["DEFAULT_USER_AGENT", "ClientConfig", "ExecConfig"]

DEFAULT_USER_AGENT = f"kubeforge/{__version__}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecConfig:
    """An exec credential plugin (kubeconfig ``users[].user.exec``): a command that prints
    an ``ExecCredential`` with a token or a client certificate."""

    command: str
    """The program; a bare name is looked up on ``$PATH``, a relative path (``./bin/x``)
    is relative to the kubeconfig that named it (already resolved here)."""

    api_version: str
    """``client.authentication.k8s.io/v1`` or ``/v1beta1``; the plugin must answer in it."""

    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    """Extra environment variables for the plugin, on top of the caller's environment."""

    install_hint: str = ""
    """Shown when the command cannot be found."""

    provide_cluster_info: bool = False
    """Pass the cluster (server, CA, ``extensions``) in ``$KUBERNETES_EXEC_INFO``."""

    interactive_mode: Literal["Never", "IfAvailable", "Always"] = "IfAvailable"
    """Whether the plugin may prompt on the terminal (standard input is given only then)."""

    cluster_config: Any = None
    """The cluster's ``extensions`` entry named ``client.authentication.k8s.io/exec``."""

    source: str = ""
    """Where this was defined (file, context, user), for error messages."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientConfig:
    """Connection settings for one API server and one identity.

    Secrets (``token``, ``client_key_data``) are left out of ``repr`` so a config
    can be logged safely. Where a setting can be given both inline and as a file,
    the inline data wins, as in clientcmd.
    """

    server: str
    """Base URL, e.g. ``https://127.0.0.1:6443``; no trailing slash. May carry a path prefix."""

    ca_data: bytes | None = field(default=None, repr=False)
    """PEM bundle of CA certificates to trust (kubeconfig ``certificate-authority-data``)."""

    ca_file: Path | None = None
    """PEM file of CA certificates to trust (kubeconfig ``certificate-authority``)."""

    verify_tls: bool = True
    """``False`` only for ``insecure-skip-tls-verify: true``."""

    tls_server_name: str | None = None
    """Name to verify the server certificate against instead of the URL's host."""

    token: str | None = field(default=None, repr=False)
    """Static bearer token (kubeconfig ``token``)."""

    token_file: Path | None = None
    """Bearer token file, re-read when it changes (kubeconfig ``tokenFile``, in-cluster token).
    Wins over ``token`` when both are set, as in client-go, because it can rotate."""

    client_cert_data: bytes | None = field(default=None, repr=False)
    client_cert_file: Path | None = None
    client_key_data: bytes | None = field(default=None, repr=False)
    client_key_file: Path | None = None

    username: str | None = None
    password: str | None = field(default=None, repr=False)
    """HTTP basic authentication (kubeconfig ``username``/``password``)."""

    exec_plugin: ExecConfig | None = None
    """Credentials from an exec plugin; used instead of ``token``/``token_file``."""

    impersonate_user: str | None = None
    """Act as this user (``Impersonate-User``; kubeconfig ``as``)."""

    impersonate_uid: str | None = None
    impersonate_groups: tuple[str, ...] = ()
    impersonate_extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """``Impersonate-Extra-<key>`` values (kubeconfig ``as-user-extra``)."""

    proxy_url: str | None = None
    """``http://`` or ``https://`` proxy for every request. ``None``: ``$HTTPS_PROXY`` /
    ``$HTTP_PROXY`` (minus ``$NO_PROXY`` and loopback addresses), as client-go does."""

    qps: float | None = None
    """Client-side rate limit in requests per second; ``None`` (the default) turns it off,
    as controller-runtime does, leaving fairness to the server's priority and fairness."""

    burst: int = 10
    """Requests allowed at once above ``qps`` before throttling starts."""

    max_retries: int = 5
    """Retries of one request after a connection failure, 429 or 5xx (see ``Client``)."""

    namespace: str = "default"
    """The context's namespace: what kubectl would use when none is given."""

    connect_timeout: float = 10.0
    """Seconds to establish a connection (TCP + TLS). Defaults to 10 s."""

    request_timeout: float | None = 60.0
    """Seconds for a whole non-streaming request; ``None`` waits forever. Defaults to 60 s.
    Watches are never cut by this: their length is ``timeout_seconds`` on the server."""

    user_agent: str = DEFAULT_USER_AGENT

    context: str | None = None
    """Name of the kubeconfig context this came from (``None`` in-cluster)."""

    source: str = ""
    """Where the settings came from (kubeconfig path(s) or the service-account directory),
    so that later errors can name it."""
