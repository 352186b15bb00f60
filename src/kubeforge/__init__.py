"""kubeforge: Kubernetes custom resources and controllers in Python.

The everyday names live here; each subpackage documents its own layer
(see ARCHITECTURE.md). A controller in full::

    import kubeforge
    from kubeforge.models.core_v1 import Pod

    def setup(mgr: kubeforge.Manager) -> None:
        pods = mgr.cache.store(Pod)

        async def reconcile(request: kubeforge.Request) -> kubeforge.Result:
            pod = pods.get(request.key)          # a copy from the shared cache, or None
            ...                                  # write through mgr.client
            return kubeforge.Result()

        kubeforge.Builder(mgr).for_(Pod).complete(reconcile)

Run it with ``kubeforge run my_module --kubeconfig ./kubeconfig``.
"""

from kubeforge._version import __version__
from kubeforge.cache import Informer, InformerFactory, Store
from kubeforge.client import Api, Client, KubernetesWarning, ObjectList, WatchEvent
from kubeforge.config import ClientConfig, load_config
from kubeforge.controller import Builder, Controller
from kubeforge.controller.controller import current_reconcile
from kubeforge.core import errors
from kubeforge.core.meta import ListMeta, Model, ObjectMeta, OwnerReference
from kubeforge.core.refs import ObjectKey
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.reconcile import Request, Result, TerminalError
from kubeforge.runtime import LeaderElectionOptions, Manager, ManagerOptions
from kubeforge.workqueue import RateLimitingQueue

__all__ = [
    "Api",
    "Builder",
    "Client",
    "ClientConfig",
    "Controller",
    "Informer",
    "InformerFactory",
    "KubernetesWarning",
    "LeaderElectionOptions",
    "ListMeta",
    "Manager",
    "ManagerOptions",
    "Model",
    "ObjectKey",
    "ObjectList",
    "ObjectMeta",
    "OwnerReference",
    "RateLimitingQueue",
    "Request",
    "Resource",
    "ResourceInfo",
    "Result",
    "Store",
    "TerminalError",
    "WatchEvent",
    "__version__",
    "current_reconcile",
    "errors",
    "load_config",
]
