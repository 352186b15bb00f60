"""The built-in kinds the server serves from its start: every API group's ``KINDS``, joined.

Entry points: ``BUILTIN_RESOURCES`` (handed to ``registry.served.Registry`` when the
server is assembled: the generic store knows no kind by itself) and
``builtin_strategy(served, stored_services)`` (handed to the ``Engine``: the strategy of
a built-in resource, from its ``Kind``). Groups are listed in the order discovery shows
them; a new group's module joins ``_GROUPS``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.builtin import (
    admissionregistration,
    apiextensions,
    apiregistration,
    authentication,
    authorization,
    autoscaling,
    certificates,
    coordination,
    discovery,
    events,
    flowcontrol,
    networking,
    node,
    policy,
    rbac,
    scheduling,
    storage,
)
from kubeforge.apiserver.builtin.apps import kinds as apps
from kubeforge.apiserver.builtin.batch import kinds as batch
from kubeforge.apiserver.builtin.core import kinds as core
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["BUILTIN_KINDS", "BUILTIN_RESOURCES", "builtin_strategy"]

_GROUPS = (
    core,
    apps,
    events,
    authentication,
    authorization,
    rbac,
    admissionregistration,
    coordination,
    apiextensions,
    apiregistration,
    autoscaling,
    batch,
    certificates,
    discovery,
    flowcontrol,
    networking,
    node,
    policy,
    scheduling,
    storage,
)

BUILTIN_KINDS: tuple[Kind, ...] = tuple(kind for group in _GROUPS for kind in group.KINDS)
BUILTIN_RESOURCES: tuple[ServedResource, ...] = tuple(kind.served for kind in BUILTIN_KINDS)
_BY_RESOURCE = {(kind.group, kind.version, kind.plural): kind for kind in BUILTIN_KINDS}


def builtin_strategy(
    served: ServedResource, stored_services: Callable[[], list[dict[str, Any]]]
) -> Strategy:
    """The strategy of a built-in resource (the generic one for anything else)."""
    info = served.info
    kind = _BY_RESOURCE.get((info.group, info.version, info.plural))
    if kind is None or not served.builtin:
        return Strategy(served)
    return kind.strategy.for_server(served, stored_services)
