"""A quota's status recomputed from what its namespace holds, as kube-controller-manager's
resource-quota controller computes it (``syncResourceQuota`` over ``quota.CalculateUsage``
and ``generic.CalculateUsageStats``, 1.32).

``status.hard`` is ``spec.hard``; ``status.used`` has one entry per hard resource that
some evaluator can measure, each the sum over the namespace's objects that fall under
the quota's scopes (0 when none); a hard resource nothing measures keeps the usage it had.

Entry point: ``quota_status(quota, evaluators, objects, now)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.quota.evaluators import Evaluator, quota_selectors
from kubeforge.apiserver.quota.quantity import (
    ZERO,
    ResourceList,
    add,
    mask,
    parse_list,
    render_list,
)

__all__ = ["quota_status"]

Objects = Callable[[str, str], list[dict[str, Any]]]
"""``(group, plural)`` -> the objects of that resource in the quota's namespace."""


def _measured(
    quota: dict[str, Any], evaluators: list[Evaluator], objects: Objects, now: float
) -> ResourceList:
    hard = list(parse_list((quota.get("spec") or {}).get("hard")))
    selectors = quota_selectors(quota)
    matched = {name for e in evaluators for name in e.matching_resources(hard)}
    usage: ResourceList = {}
    for evaluator in evaluators:
        tracked = evaluator.matching_resources(sorted(matched))
        if not tracked:
            continue
        total: ResourceList = dict.fromkeys(tracked, ZERO)
        for obj in objects(evaluator.group, evaluator.plural):
            if all(evaluator.matches_scope(s, obj) for s in selectors):
                total = add(total, evaluator.usage(obj, now))
        usage = add(usage, total)
    return mask(usage, matched)


def quota_status(
    quota: dict[str, Any], evaluators: list[Evaluator], objects: Objects, now: float
) -> dict[str, Any]:
    """The ``status`` the controller writes for ``quota``."""
    hard = parse_list((quota.get("spec") or {}).get("hard"))
    used = parse_list((quota.get("status") or {}).get("used"))
    used = mask({**used, **_measured(quota, evaluators, objects, now)}, hard)
    status = {"hard": render_list(hard), "used": render_list(used)}
    return {key: value for key, value in status.items() if value}  # empty lists are omitted
