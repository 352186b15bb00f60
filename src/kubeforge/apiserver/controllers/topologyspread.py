"""The default scheduler's PodTopologySpread plugin: its filter and its score.

Each constraint counts, per domain (the nodes sharing a value of ``topologyKey``), the
pods of the pod's namespace that match its ``labelSelector`` (with ``matchLabelKeys``
added from the pod's own labels; pods being deleted do not count). Only nodes the
``nodeAffinityPolicy`` (``Honor`` by default: the pod's node selector and required
affinity) and ``nodeTaintsPolicy`` (``Ignore`` by default) let in are domains.

``DoNotSchedule`` filters: placing the pod on a node must not make its domain exceed
the smallest domain by more than ``maxSkew`` (the pod counts itself only if it
matches), where the smallest is 0 while there are fewer domains than ``minDomains``;
a node without the key is ``(missing required label)``, unresolvable.
``ScheduleAnyway`` scores instead: fewer matching pods in a node's domains score
higher, each constraint weighted by ``log(domains + 2)``, normalized to 0..100 as the
plugin's ``NormalizeScore`` does; nodes without every key score 0.

The counts are made once per attempt (``spread_counts``), over the placed pods of the
pod's namespace only, and then read for every node.

Entry points: ``spread_counts(pod, when, view, admits)``; ``spread_filter(pod, node,
counts)`` -> the failing reason or None; ``spread_scores(feasible, counts)`` -> node name
-> 0..100.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.controllers.placement import Placement
from kubeforge.apiserver.meta.labelselector import selector_matches

__all__ = [
    "SPREAD",
    "SPREAD_LABEL",
    "SpreadCounts",
    "spread_counts",
    "spread_filter",
    "spread_scores",
]

Admits = Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], bool]
"""``admits(pod, node, constraint)``: whether ``node`` is a domain of the constraint."""

SPREAD = "node(s) didn't match pod topology spread constraints"
SPREAD_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"
_MAX_SCORE = 100


def _constraints(pod: dict[str, Any], when: str) -> list[dict[str, Any]]:
    return [
        c
        for c in (pod.get("spec") or {}).get("topologySpreadConstraints") or []
        if isinstance(c, dict) and c.get("whenUnsatisfiable") == when
    ]


def _selector(pod: dict[str, Any], constraint: dict[str, Any]) -> dict[str, Any]:
    """The constraint's selector with ``matchLabelKeys`` added from the pod's labels."""
    selector = dict(constraint.get("labelSelector") or {})
    labels = pod["metadata"].get("labels") or {}
    extra = [
        {"key": key, "operator": "In", "values": [labels[key]]}
        for key in constraint.get("matchLabelKeys") or []
        if key in labels
    ]
    if extra:
        selector["matchExpressions"] = [*(selector.get("matchExpressions") or []), *extra]
    return selector


class SpreadCounts:
    """Matching pods per domain of one constraint, over the nodes that are domains."""

    def __init__(
        self,
        pod: dict[str, Any],
        constraint: dict[str, Any],
        nodes: list[dict[str, Any]],
        placed: list[dict[str, Any]],
        admits: Admits,
    ) -> None:
        self.key = str(constraint.get("topologyKey", ""))
        self.selector = _selector(pod, constraint)
        self.max_skew = int(constraint.get("maxSkew") or 1)
        self.min_domains = int(constraint.get("minDomains") or 1)
        domain_of = {
            n["metadata"]["name"]: n["metadata"]["labels"][self.key]
            for n in nodes
            if self.key in (n["metadata"].get("labels") or {}) and admits(pod, n, constraint)
        }
        self.counts: Counter[str] = Counter({value: 0 for value in domain_of.values()})
        namespace = pod["metadata"].get("namespace")
        for other in placed:
            domain = domain_of.get((other.get("spec") or {}).get("nodeName"))
            if (
                domain is not None
                and other["metadata"].get("namespace") == namespace
                and not other["metadata"].get("deletionTimestamp")
                and selector_matches(self.selector, other["metadata"].get("labels") or {})
            ):
                self.counts[domain] += 1

    def smallest(self) -> int:
        if len(self.counts) < self.min_domains:
            return 0  # too few domains: as if an empty one existed
        return min(self.counts.values()) if self.counts else 0


def spread_counts(
    pod: dict[str, Any], when: str, view: Placement, admits: Admits
) -> list[SpreadCounts]:
    """The counts of each of the pod's constraints with ``whenUnsatisfiable: when``."""
    constraints = _constraints(pod, when)
    if not constraints:
        return []
    placed = view.pods_in([pod["metadata"].get("namespace")])
    return [SpreadCounts(pod, c, view.nodes, placed, admits) for c in constraints]


def spread_filter(
    pod: dict[str, Any], node: dict[str, Any], counts: list[SpreadCounts]
) -> tuple[str, bool] | None:
    """``(reason, resolvable)`` when a ``DoNotSchedule`` constraint (``counts``, from
    ``spread_counts``) keeps the pod off ``node``."""
    labels = node["metadata"].get("labels") or {}
    own = pod["metadata"].get("labels") or {}
    for count in counts:
        if count.key not in labels:
            return SPREAD_LABEL, False
        itself = 1 if selector_matches(count.selector, own) else 0
        skew = count.counts[labels[count.key]] + itself - count.smallest()
        if skew > count.max_skew:
            return SPREAD, True
    return None


def spread_scores(
    feasible: list[dict[str, Any]], all_counts: list[SpreadCounts]
) -> dict[str, float]:
    """Each feasible node's ``ScheduleAnyway`` score, 0..100 (all 0 without constraints);
    ``all_counts``: ``spread_counts(pod, "ScheduleAnyway", ...)``."""
    if not all_counts:
        return {n["metadata"]["name"]: 0.0 for n in feasible}
    raw: dict[str, float] = {}
    for node in feasible:
        labels = node["metadata"].get("labels") or {}
        if not all(c.key in labels for c in all_counts):
            continue  # ignored: scores 0 after normalizing
        raw[node["metadata"]["name"]] = sum(
            c.counts[labels[c.key]] * math.log(len(c.counts) + 2) + (c.max_skew - 1)
            for c in all_counts
        )
    if not raw:
        return {n["metadata"]["name"]: 0.0 for n in feasible}
    low, high = min(raw.values()), max(raw.values())
    scores = {}
    for node in feasible:
        name = node["metadata"]["name"]
        if name not in raw:
            scores[name] = 0.0
        elif high == 0:
            scores[name] = float(_MAX_SCORE)
        else:
            scores[name] = _MAX_SCORE * (high + low - raw[name]) / high
    return scores
