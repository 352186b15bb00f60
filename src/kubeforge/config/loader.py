"""``load_config()``: find the connection settings the way kubectl and controllers do.

Order: an explicit path, else ``$KUBECONFIG`` (several files joined by
``os.pathsep``, merged), else ``~/.kube/config``, else the in-cluster service
account. The first source that exists is used; the others are not consulted.
"""

from __future__ import annotations

import os
from pathlib import Path

from kubeforge.config.incluster import in_cluster, load_incluster_config
from kubeforge.config.kubeconfig import load_kubeconfig
from kubeforge.config.settings import ClientConfig
from kubeforge.core.errors import ConfigError

__all__ = ["load_config"]


def load_config(kubeconfig: str | Path | None = None, context: str | None = None) -> ClientConfig:
    """Load the settings of ``context`` (default: the current context).

    ``$KUBECONFIG`` entries that do not exist are skipped, as clientcmd does, but
    if none of them exists that is an error rather than a silent fall-through to
    another cluster's credentials.

    Raises ``ConfigError`` (one line naming the file and the problem).
    """
    if kubeconfig is not None:
        return load_kubeconfig(Path(kubeconfig).expanduser(), context)
    env = os.environ.get("KUBECONFIG", "")
    if env.strip():
        listed = list(dict.fromkeys(p for p in env.split(os.pathsep) if p.strip()))
        existing = [Path(p).expanduser() for p in listed if Path(p).expanduser().exists()]
        if not existing:
            raise ConfigError(f"KUBECONFIG={env}: none of these files exists")
        return load_kubeconfig(existing, context)
    home = Path.home() / ".kube" / "config"
    if home.exists():
        return load_kubeconfig(home, context)
    if in_cluster():
        return load_incluster_config()
    raise ConfigError(
        "no kubeconfig found: set KUBECONFIG, create ~/.kube/config, or run in a cluster"
    )
