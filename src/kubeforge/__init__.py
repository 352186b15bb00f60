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

import importlib
import typing

from kubeforge import _deferred_tls
from kubeforge._version import __version__

_deferred_tls.install()  # aiohttp's default CA bundles load on first use, not on import

if typing.TYPE_CHECKING:
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

# The names above are imported on first use (PEP 562): ``import kubeforge.models.core_v1``
# or the CLI must not pay for the client, the runtime and aiohttp to reach one module.
_LAZY = {
    "Informer": "kubeforge.cache",
    "InformerFactory": "kubeforge.cache",
    "Store": "kubeforge.cache",
    "Api": "kubeforge.client",
    "Client": "kubeforge.client",
    "KubernetesWarning": "kubeforge.client",
    "ObjectList": "kubeforge.client",
    "WatchEvent": "kubeforge.client",
    "ClientConfig": "kubeforge.config",
    "load_config": "kubeforge.config",
    "Builder": "kubeforge.controller",
    "Controller": "kubeforge.controller",
    "current_reconcile": "kubeforge.controller.controller",
    "errors": "kubeforge.core.errors",
    "ListMeta": "kubeforge.core.meta",
    "Model": "kubeforge.core.meta",
    "ObjectMeta": "kubeforge.core.meta",
    "OwnerReference": "kubeforge.core.meta",
    "ObjectKey": "kubeforge.core.refs",
    "Resource": "kubeforge.core.resource",
    "ResourceInfo": "kubeforge.core.resource",
    "Request": "kubeforge.reconcile",
    "Result": "kubeforge.reconcile",
    "TerminalError": "kubeforge.reconcile",
    "LeaderElectionOptions": "kubeforge.runtime",
    "Manager": "kubeforge.runtime",
    "ManagerOptions": "kubeforge.runtime",
    "RateLimitingQueue": "kubeforge.workqueue",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kubeforge' has no attribute {name!r}")
    imported = importlib.import_module(module)
    value = imported if module.endswith(f".{name}") else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


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
