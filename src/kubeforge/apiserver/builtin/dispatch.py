"""Which strategy each built-in resource uses.

Entry point: ``builtin_strategy(served, used_service_ips)``, given to the ``Engine`` when
the server is assembled; the engine calls it the first time it meets a resource. Kinds
without an entry here fall back to ``pods_services``/``registry.strategy``.
"""

from __future__ import annotations

from collections.abc import Callable

from kubeforge.apiserver.builtin import pods_services
from kubeforge.apiserver.builtin.admissionpolicies import POLICY_STRATEGIES
from kubeforge.apiserver.builtin.admissionregistration import ADMISSION_STRATEGIES
from kubeforge.apiserver.builtin.apps import APPS_STRATEGIES
from kubeforge.apiserver.builtin.autoscaling import AUTOSCALING_STRATEGIES
from kubeforge.apiserver.builtin.batch import BATCH_STRATEGIES
from kubeforge.apiserver.builtin.catalog import MORE_RESOURCES
from kubeforge.apiserver.builtin.catalog_strategies import MORE_STRATEGIES, CatalogStrategy
from kubeforge.apiserver.builtin.core import CORE_STRATEGIES
from kubeforge.apiserver.builtin.rbac import RBAC_GROUP, RBAC_STRATEGIES
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["builtin_strategy"]

_STRATEGIES: dict[tuple[str, str], type[Strategy]] = {
    **CORE_STRATEGIES,
    **{("apps", plural): cls for plural, cls in APPS_STRATEGIES.items()},
    **{(RBAC_GROUP, plural): cls for plural, cls in RBAC_STRATEGIES.items()},
    **{
        ("admissionregistration.k8s.io", plural): cls
        for plural, cls in {**ADMISSION_STRATEGIES, **POLICY_STRATEGIES}.items()
    },
    **MORE_STRATEGIES,
    **BATCH_STRATEGIES,
}
# The rest of the catalogued kinds follow the generic catalogue rules.
_CATALOGUED = frozenset((entry.group, entry.plural) for entry in MORE_RESOURCES)


def builtin_strategy(served: ServedResource, used_service_ips: Callable[[], set[str]]) -> Strategy:
    """The strategy of a built-in (non-CRD) resource."""
    info = served.info
    cls = AUTOSCALING_STRATEGIES.get((info.group, info.version, info.plural))
    cls = cls or _STRATEGIES.get((info.group, info.plural))
    if cls is None and (info.group, info.plural) in _CATALOGUED:
        cls = CatalogStrategy
    if cls is not None and served.builtin:
        return cls(served)
    return pods_services.builtin_strategy(served, used_service_ips)
