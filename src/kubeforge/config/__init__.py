"""Where to connect and how to authenticate: kubeconfig and in-cluster loading.

Entry point: ``load_config()``, which returns one frozen ``ClientConfig``.
``load_kubeconfig()`` and ``load_incluster_config()`` pick a source explicitly.
This package imports only ``kubeforge.core``.
"""

from kubeforge.config.incluster import SERVICE_ACCOUNT_DIR, in_cluster, load_incluster_config
from kubeforge.config.kubeconfig import load_kubeconfig
from kubeforge.config.loader import load_config
from kubeforge.config.settings import ClientConfig, ExecConfig

__all__ = [
    "SERVICE_ACCOUNT_DIR",
    "ClientConfig",
    "ExecConfig",
    "in_cluster",
    "load_config",
    "load_incluster_config",
    "load_kubeconfig",
]
