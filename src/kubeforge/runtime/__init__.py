"""Process-level orchestration: the ``Manager`` that runs caches and controllers.

May import everything below it (``controller``, ``cache``, ``client``, ...).

- ``Manager`` / ``ManagerOptions``: client, shared caches, controllers, shutdown.
- ``leader``: ``LeaderElector`` on a ``coordination.k8s.io/v1`` Lease (client-go's protocol).
- ``metrics``: ``ManagerMetrics``, controller-runtime's Prometheus metrics per manager.
- ``health``: ``HealthChecks`` behind ``/healthz`` and ``/readyz``.
- ``serving``: bind addresses and the small HTTP servers; ``servers`` builds the manager's
  ``/metrics`` (``metrics_auth`` guards it) and probe servers from its options.
- ``logs``: per-reconcile context in log records.
"""

from typing import TYPE_CHECKING

from kubeforge.runtime.health import HealthChecks
from kubeforge.runtime.manager import Manager, Runnable
from kubeforge.runtime.metrics import ManagerMetrics
from kubeforge.runtime.options import LeaderElectionOptions, ManagerOptions

if TYPE_CHECKING:
    from kubeforge.runtime.leader import LeaderElectionLost, LeaderElector


def __getattr__(name: str) -> object:
    # The elector loads on first use (PEP 562): a manager without leader election never
    # needs it, and importing it is a Lease model, uuid and the elector's own classes.
    if name in ("LeaderElectionLost", "LeaderElector"):
        from kubeforge.runtime import leader

        return getattr(leader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
