"""The quota evaluators of kubernetes 1.32: what each kind of object costs, which quota
resource names concern it, and which writes of it are charged
(``pkg/quota/v1/evaluator/core`` and ``k8s.io/apiserver/pkg/quota/v1/generic``).

Pods, services and persistent volume claims have their own evaluators; every other
namespaced resource is counted as ``count/<resource>[.<group>]`` (configmaps, secrets,
replicationcontrollers and resourcequotas also under their legacy names), events and
the review kinds excepted. Creates are charged; updates too for services (a type change
costs load balancers and node ports) and claims (a bigger request).

Entry points: ``evaluator_for(group, plural)``, ``Evaluator``, ``quota_selectors(quota)``,
``matches(evaluator, quota_hard, selectors, obj)``.

>>> evaluator_for("apps", "deployments").matching_resources(["count/deployments.apps", "pods"])
['count/deployments.apps']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.quota.pods import (
    POD_PREFIXES,
    POD_RESOURCES,
    is_extended_for_quota,
    missing_resources,
    pod_matches_scope,
    pod_usage,
)
from kubeforge.apiserver.quota.quantity import ONE, ZERO, Quantity, ResourceList

__all__ = [
    "IGNORED",
    "Evaluator",
    "counted_resource",
    "evaluator_for",
    "evaluators_for",
    "matches",
    "quota_selectors",
]

IGNORED = frozenset(
    {
        ("", "bindings"),
        ("", "componentstatuses"),
        ("authentication.k8s.io", "tokenreviews"),
        ("authentication.k8s.io", "selfsubjectreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
        ("", "events"),
        ("events.k8s.io", "events"),
    }
)
"""Resources quota never looks at (``install.DefaultIgnoredResources``)."""

_LEGACY = {
    "configmaps": "configmaps",
    "resourcequotas": "resourcequotas",
    "replicationcontrollers": "replicationcontrollers",
    "secrets": "secrets",
}
_STORAGE_CLASS = ".storageclass.storage.k8s.io/"
_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def count_name(group: str, plural: str) -> str:
    """``ObjectCountQuotaResourceNameFor``: ``count/<resource>`` or ``count/<resource>.<group>``."""
    return f"count/{plural}.{group}" if group else f"count/{plural}"


@dataclass(frozen=True)
class Evaluator:
    """Object counting; the subclasses below charge more. ``names`` are the quota
    resource names this evaluator fills."""

    group: str
    plural: str
    names: tuple[str, ...]
    operations: tuple[str, ...] = ("CREATE",)

    def handles(self, operation: str) -> bool:
        return operation in self.operations

    def matching_resources(self, names: Iterable[str]) -> list[str]:
        return [name for name in names if name in self.names]

    def matches_scope(self, selector: dict[str, Any], obj: dict[str, Any]) -> bool:
        """Whether ``obj`` falls under a scope selector requirement (none for most kinds)."""
        return False

    def constraints(self, required: list[str], obj: dict[str, Any]) -> str | None:
        """Why ``obj`` cannot be admitted under a quota on ``required`` (None: it can)."""
        return None

    def usage(self, obj: dict[str, Any], now: float) -> ResourceList:
        return dict.fromkeys(self.names, ONE)


class PodEvaluator(Evaluator):
    def matching_resources(self, names: Iterable[str]) -> list[str]:
        return [
            name
            for name in names
            if name in POD_RESOURCES or name.startswith(POD_PREFIXES) or is_extended_for_quota(name)
        ]

    def matches_scope(self, selector: dict[str, Any], obj: dict[str, Any]) -> bool:
        return pod_matches_scope(selector, obj)

    def constraints(self, required: list[str], obj: dict[str, Any]) -> str | None:
        return missing_resources(required, obj)

    def usage(self, obj: dict[str, Any], now: float) -> ResourceList:
        return pod_usage(obj, now)


class ServiceEvaluator(Evaluator):
    def usage(self, obj: dict[str, Any], now: float) -> ResourceList:
        spec = obj.get("spec") or {}
        ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
        node_ports, balancers = ZERO, ZERO
        if spec.get("type") == "NodePort":
            node_ports = Quantity(Fraction(len(ports)))
        elif spec.get("type") == "LoadBalancer":
            balancers = ONE
            # Without allocated node ports, only the ports that name one are charged.
            if spec.get("allocateLoadBalancerNodePorts") is False:
                ports = [p for p in ports if p.get("nodePort")]
            node_ports = Quantity(Fraction(len(ports)))
        return {
            "count/services": ONE,
            "services": ONE,
            "services.loadbalancers": balancers,
            "services.nodeports": node_ports,
        }


class ClaimEvaluator(Evaluator):
    def matching_resources(self, names: Iterable[str]) -> list[str]:
        suffixes = tuple(_STORAGE_CLASS + n for n in ("persistentvolumeclaims", "requests.storage"))
        return [name for name in names if name in self.names or name.endswith(suffixes)]

    def usage(self, obj: dict[str, Any], now: float) -> ResourceList:
        usage: ResourceList = {"persistentvolumeclaims": ONE, "count/persistentvolumeclaims": ONE}
        annotations = (obj.get("metadata") or {}).get("annotations") or {}
        spec = obj.get("spec") or {}
        storage_class = str(annotations.get(_CLASS_ANNOTATION, spec.get("storageClassName") or ""))
        if storage_class:
            usage[f"{storage_class}{_STORAGE_CLASS}persistentvolumeclaims"] = ONE
        storage = _claim_storage(obj)
        if storage is not None:
            usage["requests.storage"] = storage
            if storage_class:
                usage[f"{storage_class}{_STORAGE_CLASS}requests.storage"] = storage
        return usage


def _whole(amount: Quantity) -> Quantity:
    """Rounded up to whole bytes (``Quantity.RoundUp(0)``)."""
    return Quantity(Fraction(math.ceil(amount.value)), amount.form)


def _claim_storage(claim: dict[str, Any]) -> Quantity | None:
    """The claim's requested storage, or its allocated storage when that is larger."""
    requested = Quantity.parse(
        (((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
    )
    if requested is None:
        return None
    requested = _whole(requested)
    allocated = Quantity.parse(
        ((claim.get("status") or {}).get("allocatedResources") or {}).get("storage")
    )
    if allocated is not None and allocated.value > requested.value:
        return _whole(allocated)
    return requested


def evaluator_for(group: str, plural: str) -> Evaluator | None:
    """The evaluator of one resource; None for those quota ignores."""
    if (group, plural) in IGNORED:
        return None
    if group == "" and plural == "pods":
        return PodEvaluator(group, plural, ("count/pods",))
    if group == "" and plural == "services":
        services = ("count/services", "services", "services.loadbalancers", "services.nodeports")
        return ServiceEvaluator(group, plural, services, ("CREATE", "UPDATE"))
    if group == "" and plural == "persistentvolumeclaims":
        claims = ("count/persistentvolumeclaims", "persistentvolumeclaims", "requests.storage")
        return ClaimEvaluator(group, plural, claims, ("CREATE", "UPDATE"))
    legacy = _LEGACY.get(plural) if group == "" else None
    return Evaluator(group, plural, (count_name(group, plural), *([legacy] if legacy else [])))


def quota_selectors(quota: dict[str, Any]) -> list[dict[str, Any]]:
    """The quota's scopes (each as an ``Exists`` requirement), then its scopeSelector's."""
    spec = quota.get("spec") or {}
    selectors = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    expressions = (spec.get("scopeSelector") or {}).get("matchExpressions") or []
    return selectors + [e for e in expressions if isinstance(e, dict)]


def matches(
    evaluator: Evaluator,
    hard: Iterable[str],
    selectors: list[dict[str, Any]],
    obj: dict[str, Any],
) -> bool:
    """``generic.Matches``: the quota limits something the evaluator charges, and ``obj``
    falls under every one of its scopes."""
    if not evaluator.matching_resources(hard):
        return False
    return all(evaluator.matches_scope(selector, obj) for selector in selectors)


def counted_resource(name: str) -> tuple[str, str] | None:
    """The ``(group, plural)`` a ``count/<resource>[.<group>]`` name counts."""
    if not name.startswith("count/"):
        return None
    plural, _, group = name.removeprefix("count/").partition(".")
    return (group, plural) if plural else None


def evaluators_for(names: Iterable[str], served: Callable[[str, str], bool]) -> list[Evaluator]:
    """The evaluators that can fill a quota limiting ``names``: those of pods, services,
    claims and the legacy counted kinds, and a counter for each ``count/`` name of a
    namespaced resource the server serves (``served(group, plural)``)."""
    found: dict[tuple[str, str], Evaluator] = {}
    fixed = [("", p) for p in ("pods", "services", "persistentvolumeclaims", *_LEGACY)]
    counted = [counted_resource(name) for name in names]
    for group, plural in fixed + [c for c in counted if c is not None and served(*c)]:
        evaluator = evaluator_for(group, plural)
        if evaluator is not None:
            found.setdefault((group, plural), evaluator)
    return list(found.values())
