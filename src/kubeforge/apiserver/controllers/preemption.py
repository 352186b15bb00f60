"""The default scheduler's preemption (``DefaultPreemption``): which pods to evict so that
a higher-priority pod that fits nowhere can run.

A pod may preempt unless its ``preemptionPolicy`` is ``Never`` (``not eligible due to
preemptionPolicy=Never.``) or a lower-priority pod is still terminating on the node it
was already nominated to (``not eligible due to a terminating pod on the nominated
node.``). Each node the filters rejected for a reason evictions could change is tried
as ``SelectVictimsOnNode`` does: without every lower-priority pod the pod must fit;
then the victims are given back one by one, those a PodDisruptionBudget protects first
(their eviction would take a matching budget's ``disruptionsAllowed`` below zero), each
group most important first (higher priority, then the longer running), as long as it
still fits. Of the nodes with victims, the one with the fewest protected victims wins,
then the one whose most important victim has the lowest priority, then the lowest sum
of offset priorities (in effect the fewest victims, then the lowest priorities), then
the name (``pickOneNodeForPreemption``).

Entry points: ``ineligible(pod, view)``, ``find_candidate(pod, nodes, placed,
verdicts)`` -> ``Candidate`` or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.scheduling import Placement, Verdict, filter_node
from kubeforge.apiserver.meta.labelselector import selector_matches

__all__ = ["Candidate", "find_candidate", "ineligible", "priority"]


@dataclass(frozen=True)
class Candidate:
    """The node the preemptor is nominated to and the pods to evict there."""

    node: str
    victims: list[dict[str, Any]]
    violations: int = 0
    """Victims whose eviction a PodDisruptionBudget does not allow."""


def priority(pod: dict[str, Any]) -> int:
    value = (pod.get("spec") or {}).get("priority")
    return value if isinstance(value, int) else 0


def ineligible(pod: dict[str, Any], view: Placement) -> str | None:
    """Why ``pod`` may not preempt (``PodEligibleToPreemptOthers``), or None if it may."""
    if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return "not eligible due to preemptionPolicy=Never."
    nominated = (pod.get("status") or {}).get("nominatedNodeName")
    if nominated and any(
        p["metadata"].get("deletionTimestamp") and priority(p) < priority(pod)
        for p in view.pods_on(str(nominated))
    ):
        return "not eligible due to a terminating pod on the nominated node."
    return None


def find_candidate(
    pod: dict[str, Any],
    nodes: list[dict[str, Any]],
    placed: list[dict[str, Any]],
    verdicts: dict[str, Verdict],
    budgets: list[dict[str, Any]],
) -> Candidate | None:
    """The best node to preempt on and its victims, or None if evictions cannot help;
    ``budgets`` are the PodDisruptionBudgets, whose allowed disruptions victims use up."""
    candidates = []
    for node in nodes:
        verdict = verdicts[node["metadata"]["name"]]
        if verdict.fits or not verdict.resolvable:
            continue
        found = _victims(pod, node, nodes, placed, budgets)
        if found is not None and found[0]:
            candidates.append(Candidate(node["metadata"]["name"], *found))
    if not candidates:
        return None
    return min(candidates, key=_cost)


def _victims(
    pod: dict[str, Any],
    node: dict[str, Any],
    nodes: list[dict[str, Any]],
    placed: list[dict[str, Any]],
    budgets: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], int] | None:
    """``SelectVictimsOnNode``: the victims and how many of them a budget protects."""
    name = node["metadata"]["name"]
    lower = [
        p
        for p in placed
        if (p.get("spec") or {}).get("nodeName") == name and priority(p) < priority(pod)
    ]
    ids = {id(p) for p in lower}
    remaining = [p for p in placed if id(p) not in ids]
    if not lower or not filter_node(pod, node, Placement.of(nodes, remaining)).fits:
        return None
    violating, free = _split_by_budget(sorted(lower, key=_importance), budgets)
    victims, violations = [], 0
    # The pods a budget protects are given back first, so that fewer of them go.
    for candidate in [*violating, *free]:
        remaining.append(candidate)
        if not filter_node(pod, node, Placement.of(nodes, remaining)).fits:
            remaining.pop()
            victims.append(candidate)
            violations += 1 if any(candidate is v for v in violating) else 0
    return victims, violations


def _split_by_budget(
    pods: list[dict[str, Any]], budgets: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``filterPodsWithPDBViolation``: the pods whose eviction would take a matching
    budget below zero allowed disruptions, and the others (order kept)."""
    allowed = [int((b.get("status") or {}).get("disruptionsAllowed") or 0) for b in budgets]
    violating: list[dict[str, Any]] = []
    free: list[dict[str, Any]] = []
    for pod in pods:
        labels = pod["metadata"].get("labels") or {}
        violated = False
        for index, budget in enumerate(budgets):
            selector = (budget.get("spec") or {}).get("selector") or {}
            if (
                not labels
                or budget["metadata"].get("namespace") != pod["metadata"].get("namespace")
                or not (selector.get("matchLabels") or selector.get("matchExpressions"))
                or not selector_matches(selector, labels)
                or pod["metadata"]["name"]
                in ((budget.get("status") or {}).get("disruptedPods") or {})
            ):
                continue
            allowed[index] -= 1
            violated = violated or allowed[index] < 0
        (violating if violated else free).append(pod)
    return violating, free


def _importance(pod: dict[str, Any]) -> tuple[int, str]:
    """``MoreImportantPod`` first: higher priority, then the earlier start."""
    started = str((pod.get("status") or {}).get("startTime") or "~")
    return -priority(pod), started


def _cost(candidate: Candidate) -> tuple[int, int, int, int, str]:
    priorities = [priority(v) for v in candidate.victims]
    # Each priority is offset by 2**31 as the scheduler sums them, so fewer victims weigh
    # more than their priorities.
    total = sum(p + 2**31 for p in priorities)
    return candidate.violations, max(priorities), total, len(priorities), candidate.node
