"""Which strategy (and which storage representation) each built-in resource uses.

Entry points: ``builtin_strategy(served, used_service_ips)``, called by the engine the
first time it meets a resource, and ``representation(group, version, plural)`` for the
few resources that are stored as another resource's objects (``events.k8s.io``
Events). Kinds without an entry here fall back to ``workloads``/``strategies``.
"""

from __future__ import annotations

from collections.abc import Callable

from kubeforge.apiserver import workloads
from kubeforge.apiserver.builtins_admission import ADMISSION_STRATEGIES
from kubeforge.apiserver.builtins_apps import APPS_STRATEGIES
from kubeforge.apiserver.builtins_core import CORE_STRATEGIES, REPRESENTATIONS, Representation
from kubeforge.apiserver.builtins_rbac import RBAC_GROUP, RBAC_STRATEGIES
from kubeforge.apiserver.registry import ServedResource
from kubeforge.apiserver.strategies import Strategy

__all__ = ["builtin_strategy", "representation"]

_STRATEGIES: dict[tuple[str, str], type[Strategy]] = {
    **CORE_STRATEGIES,
    **{("apps", plural): cls for plural, cls in APPS_STRATEGIES.items()},
    **{(RBAC_GROUP, plural): cls for plural, cls in RBAC_STRATEGIES.items()},
    **{
        ("admissionregistration.k8s.io", plural): cls
        for plural, cls in ADMISSION_STRATEGIES.items()
    },
}


def builtin_strategy(served: ServedResource, used_service_ips: Callable[[], set[str]]) -> Strategy:
    """The strategy of a built-in (non-CRD) resource."""
    cls = _STRATEGIES.get((served.info.group, served.info.plural))
    if cls is not None and served.builtin:
        return cls(served)
    return workloads.builtin_strategy(served, used_service_ips)


def representation(group: str, version: str, plural: str) -> Representation | None:
    """How a served resource's objects are converted to and from what is stored, if they are."""
    return REPRESENTATIONS.get((group, version, plural))
