"""The default scheduler's preemption (``DefaultPreemption``): which pods to evict so that
a higher-priority pod that fits nowhere can run.

A pod may preempt unless its ``preemptionPolicy`` is ``Never`` (``not eligible due to
preemptionPolicy=Never.``) or a lower-priority pod is still terminating on the node it
was already nominated to (``not eligible due to a terminating pod on the nominated
node.``). Each node the filters rejected for a reason evictions could change is tried
as ``SelectVictimsOnNode`` does: without every lower-priority pod the pod must fit;
then the victims are given back one by one, most important first (higher priority,
then the longer running), as long as it still fits. Of the nodes with victims, the
one whose most important victim has the lowest priority wins, then the lowest sum of
offset priorities (in effect the fewest victims, then the lowest priorities), then the
name (``pickOneNodeForPreemption``, without PodDisruptionBudgets).

Entry points: ``ineligible(pod, placed)``, ``find_candidate(pod, nodes, placed,
verdicts)`` -> ``Candidate`` or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.scheduling import Placement, Verdict, filter_node

__all__ = ["Candidate", "find_candidate", "ineligible", "priority"]


@dataclass(frozen=True)
class Candidate:
    """The node the preemptor is nominated to and the pods to evict there."""

    node: str
    victims: list[dict[str, Any]]


def priority(pod: dict[str, Any]) -> int:
    value = (pod.get("spec") or {}).get("priority")
    return value if isinstance(value, int) else 0


def ineligible(pod: dict[str, Any], placed: list[dict[str, Any]]) -> str | None:
    """Why ``pod`` may not preempt (``PodEligibleToPreemptOthers``), or None if it may."""
    if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return "not eligible due to preemptionPolicy=Never."
    nominated = (pod.get("status") or {}).get("nominatedNodeName")
    if nominated and any(
        (p.get("spec") or {}).get("nodeName") == nominated
        and p["metadata"].get("deletionTimestamp")
        and priority(p) < priority(pod)
        for p in placed
    ):
        return "not eligible due to a terminating pod on the nominated node."
    return None


def find_candidate(
    pod: dict[str, Any],
    nodes: list[dict[str, Any]],
    placed: list[dict[str, Any]],
    verdicts: dict[str, Verdict],
) -> Candidate | None:
    """The best node to preempt on and its victims, or None if evictions cannot help."""
    candidates = []
    for node in nodes:
        verdict = verdicts[node["metadata"]["name"]]
        if verdict.fits or not verdict.resolvable:
            continue
        victims = _victims(pod, node, nodes, placed)
        if victims:
            candidates.append(Candidate(node["metadata"]["name"], victims))
    if not candidates:
        return None
    return min(candidates, key=_cost)


def _victims(
    pod: dict[str, Any],
    node: dict[str, Any],
    nodes: list[dict[str, Any]],
    placed: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    name = node["metadata"]["name"]
    lower = [
        p
        for p in placed
        if (p.get("spec") or {}).get("nodeName") == name and priority(p) < priority(pod)
    ]
    if not lower:
        return []
    ids = {id(p) for p in lower}
    remaining = [p for p in placed if id(p) not in ids]
    if not filter_node(pod, node, Placement.of(nodes, remaining)).fits:
        return []
    victims = []
    for candidate in sorted(lower, key=_importance):
        remaining.append(candidate)
        if not filter_node(pod, node, Placement.of(nodes, remaining)).fits:
            remaining.pop()
            victims.append(candidate)
    return victims


def _importance(pod: dict[str, Any]) -> tuple[int, str]:
    """``MoreImportantPod`` first: higher priority, then the earlier start."""
    started = str((pod.get("status") or {}).get("startTime") or "~")
    return -priority(pod), started


def _cost(candidate: Candidate) -> tuple[int, int, int, str]:
    priorities = [priority(v) for v in candidate.victims]
    # Each priority is offset by 2**31 as the scheduler sums them, so fewer victims weigh
    # more than their priorities.
    total = sum(p + 2**31 for p in priorities)
    return max(priorities), total, len(priorities), candidate.node
