"""The RBAC a manager needs, derived from what it was built with: ``required_rules``.

Entry points: ``required_rules(manager)`` -> ``list[Need]`` and
``inspect_setup(setup, options)``, which builds a manager that never connects,
lets ``setup(mgr)`` register its controllers, and returns it for inspection (what
``kubeforge generate rbac`` and ``kubeforge check rbac`` do with a project)::

    mgr = inspect_setup(my_operator.setup)
    for need in required_rules(mgr):
        print(need.rule.verbs, need.rule.resources, need.namespace, need.reason)

What is derived, and why (each ``Need`` carries the reason as text):

* every informer of the shared cache (``for_``, ``owns``, ``watches``, metadata-only
  watches, ``mgr.cache.store(...)``): ``get``, ``list``, ``watch`` on its resource, in
  its namespace when the informer is restricted to one;
* ``for_(..., writes_status=True)``: ``get``, ``update``, ``patch`` on ``<plural>/status``;
* ``for_(..., finalizers=[...])``: ``update``, ``patch`` on the object (the finalizer
  list is metadata) and ``update`` on ``<plural>/finalizers``;
* ``owns(...)``: ``update`` on the owner's ``<plural>/finalizers``, which the
  OwnerReferencesPermissionEnforcement admission plugin demands before an owner
  reference with ``blockOwnerDeletion`` (what ``set_controller_reference`` writes);
* an event recorder (``mgr.event_recorder(...)``): ``create``, ``patch`` on core Events;
* leader election: ``get``, ``create``, ``update`` on Leases in the lease's namespace
  (``role="leader-election"``; kubebuilder keeps it in a Role of its own);
* ``metrics_secure``: ``create`` on TokenReviews and SubjectAccessReviews
  (``role="metrics-auth"``, kubebuilder's ``metrics-auth-role``).

What the reconcilers themselves write is not visible from outside: it stays
declared next to them (``rbac = [Rule(...)]``) and is merged with all of this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from kubeforge.config import ClientConfig
from kubeforge.controller.blueprint import Blueprint
from kubeforge.core.resource import ResourceInfo
from kubeforge.crd.rbac import Rule
from kubeforge.runtime import Manager, ManagerOptions

__all__ = ["Need", "NeedRole", "inspect_setup", "required_rules"]

NeedRole = Literal["manager", "leader-election", "metrics-auth"]

_READ = ("get", "list", "watch")
_STATUS = ("get", "update", "patch")
# Never dialled: a manager made for inspection only registers things.
_NOWHERE = ClientConfig(server="https://kubernetes.invalid")


@dataclass(frozen=True, slots=True)
class Need:
    """One permission the manager needs, where, and why."""

    rule: Rule
    reason: str
    namespace: str | None = None
    """``None``: cluster-wide (a ClusterRole); else only in this namespace (a Role)."""
    role: NeedRole = "manager"
    """Which of the manager's roles grants it (kubebuilder keeps three apart)."""


def inspect_setup(
    setup: Callable[[Manager], None], options: ManagerOptions | None = None
) -> Manager:
    """A manager (never started, never connected) after ``setup(mgr)`` registered on it."""
    manager = Manager(_NOWHERE, options=options)
    setup(manager)
    return manager


def required_rules(manager: Manager) -> list[Need]:
    """Every permission ``manager`` needs for what it was built with, in a stable order."""
    needs = [*_cache_needs(manager), *_controller_needs(manager)]
    if manager.event_recorders:
        components = ", ".join(sorted(r.source.component or "" for r in manager.event_recorders))
        rule = Rule(groups=[""], resources=["events"], verbs=["create", "patch"])
        why = f"records Events (event_recorder {components})"
        # Events go to the namespaces of the objects reconciled: the cache's, if restricted.
        scopes = tuple(manager.cache.options.default_namespaces) or (None,)
        needs += [Need(rule, why, namespace=namespace) for namespace in scopes]
    elector = manager.elector
    if elector is not None:
        rule = Rule(
            groups=["coordination.k8s.io"],
            resources=["leases"],
            verbs=["get", "create", "update"],
        )
        needs.append(
            Need(
                rule,
                f"leader election on the Lease {elector.lease_name}",
                namespace=elector.namespace,
                role="leader-election",
            )
        )
    if manager.options.metrics_secure:
        for group, resource in _REVIEWS:
            rule = Rule(groups=[group], resources=[resource], verbs=["create"])
            needs.append(Need(rule, "authorizes /metrics callers", role="metrics-auth"))
    return needs


_REVIEWS = (
    ("authentication.k8s.io", "tokenreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
)


def _cache_needs(manager: Manager) -> list[Need]:
    users = _watchers(manager)
    needs: list[Need] = []
    for informer in manager.cache.informers:
        info: ResourceInfo = informer.api.info
        namespace: str | None = getattr(informer.api, "namespace", None)
        who = users.get(info.group_resource) or ["the shared cache (mgr.cache)"]
        rule = Rule(groups=[info.group], resources=[info.plural], verbs=_READ)
        needs.append(Need(rule, f"watched by {', '.join(who)}", namespace=namespace))
    return needs


def _watchers(manager: Manager) -> dict[str, list[str]]:
    """``group_resource`` -> ``["controller frigate (for_)", ...]``."""
    found: dict[str, list[str]] = {}
    for controller in manager.controllers:
        plan = controller.blueprint
        if plan is None:
            continue
        roles: list[tuple[str, tuple[ResourceInfo, ...]]] = [
            ("for_", (plan.for_,) if plan.for_ is not None else ()),
            ("owns", plan.owns),
            ("watches", plan.watches),
        ]
        for how, kinds in roles:
            for info in kinds:
                text = f"controller {controller.name} ({how} {info.kind})"
                found.setdefault(info.group_resource, []).append(text)
    return found


def _controller_needs(manager: Manager) -> list[Need]:
    needs: list[Need] = []
    for controller in manager.controllers:
        plan = controller.blueprint
        if plan is None or plan.for_ is None:
            continue
        info = plan.for_
        # Writes to the for_ object happen where it is cached: in the cache's namespaces.
        scopes = manager.cache.options.for_kind(info).namespaces if info.namespaced else None
        for need in _writes(plan, controller.name):
            needs += [Need(need.rule, need.reason, namespace=ns) for ns in scopes or (None,)]
    return needs


def _writes(plan: Blueprint, name: str) -> list[Need]:
    """What ``plan``'s reconciler writes on its ``for_`` object, wherever that lives."""
    assert plan.for_ is not None
    info = plan.for_
    group, plural = info.group, info.plural
    needs: list[Need] = []
    if plan.writes_status:
        rule = Rule(groups=[group], resources=[f"{plural}/status"], verbs=_STATUS)
        needs.append(Need(rule, f"controller {name} writes {info.kind} status"))
    if plan.finalizers:
        listed = ", ".join(plan.finalizers)
        rule = Rule(groups=[group], resources=[plural], verbs=["update", "patch"])
        needs.append(Need(rule, f"controller {name} keeps finalizers {listed}"))
    if plan.finalizers or plan.owns:
        why = (
            f"controller {name} keeps finalizers on {info.kind}"
            if plan.finalizers
            else f"controller {name} owns objects with blockOwnerDeletion references"
        )
        rule = Rule(groups=[group], resources=[f"{plural}/finalizers"], verbs=["update"])
        needs.append(Need(rule, why))
    return needs
