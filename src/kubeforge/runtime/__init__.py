"""Process-level orchestration: the ``Manager`` that runs caches and controllers.

May import everything below it (``controller``, ``cache``, ``client``, ...).
Leader election, metrics and health probes slot in here as more ``Runnable``\\ s.
"""

from kubeforge.runtime.manager import Manager, ManagerOptions, Runnable

__all__ = ["Manager", "ManagerOptions", "Runnable"]
