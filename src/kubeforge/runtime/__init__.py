"""Process-level orchestration: the ``Manager`` that runs caches and controllers.

May import everything below it (``controller``, ``cache``, ``client``, ...).

- ``Manager`` / ``ManagerOptions``: client, shared caches, controllers, shutdown.
- ``leader``: ``LeaderElector`` on a ``coordination.k8s.io/v1`` Lease (client-go's protocol).
- ``metrics``: ``ManagerMetrics``, controller-runtime's Prometheus metrics per manager.
- ``health``: ``HealthChecks`` behind ``/healthz`` and ``/readyz``.
- ``serving``: bind addresses and the small HTTP servers.
- ``logs``: per-reconcile context in log records.
"""

from kubeforge.runtime.health import HealthChecks
from kubeforge.runtime.leader import LeaderElectionLost, LeaderElectionOptions, LeaderElector
from kubeforge.runtime.manager import Manager, Runnable
from kubeforge.runtime.metrics import ManagerMetrics
from kubeforge.runtime.options import ManagerOptions

__all__ = [
    "HealthChecks",
    "LeaderElectionLost",
    "LeaderElectionOptions",
    "LeaderElector",
    "Manager",
    "ManagerMetrics",
    "ManagerOptions",
    "Runnable",
]
