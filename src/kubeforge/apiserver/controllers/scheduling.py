"""Whether a pod fits a node: the default scheduler's filter plugins, in its words.

Each node is tried with the plugins in the order kube-scheduler runs them
(NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit,
PodTopologySpread, InterPodAffinity: the pod's affinity, its anti-affinity, then the
anti-affinity of the pods already placed) and the first that rejects it gives its reasons,
as ``framework.RunFilterPlugins`` does. ``failure_message`` then writes the
``FailedScheduling`` text: the reasons counted over all nodes, sorted, and the
preemption verdict (``Preemption is not helpful`` for what no eviction could change).

Entry points: ``filter_node(pod, node, Placement.of(nodes, placed))`` -> ``Verdict``;
``failure_message``; ``pod_requests(pod)``; ``matches_node_affinity(pod, node)``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.controllers.interpod import inter_pod_filter
from kubeforge.apiserver.controllers.nodes import quantity
from kubeforge.apiserver.controllers.placement import Placement, pod_requests
from kubeforge.apiserver.controllers.topologyspread import spread_counts, spread_filter

__all__ = [
    "Placement",
    "Verdict",
    "failure_message",
    "filter_node",
    "is_domain",
    "pod_requests",
    "tolerates",
    "toleration_matches",
]

_ZERO = Fraction(0)
AFFINITY_MISMATCH = "node(s) didn't match Pod's node affinity/selector"
_UNSCHEDULABLE = "node(s) were unschedulable"
_NOT_HELPFUL = "Preemption is not helpful for scheduling"
_NO_VICTIMS = "No preemption victims found for incoming pod"


@dataclass(frozen=True)
class Verdict:
    """``reasons`` empty: the pod fits. ``resolvable``: evicting pods could make it fit."""

    reasons: tuple[str, ...] = ()
    resolvable: bool = True

    @property
    def fits(self) -> bool:
        return not self.reasons


def filter_node(pod: dict[str, Any], node: dict[str, Any], view: Placement) -> Verdict:
    """Run the filters for ``pod`` on ``node`` given what is placed where (``view``)."""
    spec = pod.get("spec") or {}
    node_spec = node.get("spec") or {}
    taints = node_spec.get("taints") or []
    if node_spec.get("unschedulable") and not tolerates(
        spec, {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    ):
        return Verdict((_UNSCHEDULABLE,), resolvable=False)
    for taint in taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(spec, taint):
            text = f"node(s) had untolerated taint {{{taint.get('key')}: {taint.get('value', '')}}}"
            return Verdict((text,), resolvable=False)
    if not matches_node_affinity(spec, node):
        return Verdict((AFFINITY_MISMATCH,), resolvable=False)
    short = _insufficient(pod, node, view)
    if short:
        return Verdict(short)
    for rule in (_spread, inter_pod_filter):
        failed = rule(pod, node, view)
        if failed is not None:
            return Verdict((failed[0],), resolvable=failed[1])
    return Verdict()


def tolerates(spec: dict[str, Any], taint: dict[str, Any]) -> bool:
    return any(
        toleration_matches(t, taint) for t in spec.get("tolerations") or [] if isinstance(t, dict)
    )


def toleration_matches(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """``Toleration.ToleratesTaint``: the effect (if set) and key (if set) match, and
    ``Exists`` or the same value."""
    effect = toleration.get("effect")
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key")
    if key and key != taint.get("key"):
        return False
    if toleration.get("operator") == "Exists":
        return True
    return (toleration.get("value") or "") == (taint.get("value") or "")


def matches_node_affinity(spec: dict[str, Any], node: dict[str, Any]) -> bool:
    labels = node["metadata"].get("labels") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if not affinity:
        return True
    fields = {"metadata.name": node["metadata"]["name"]}
    return any(
        all(_expression(e, labels) for e in term.get("matchExpressions") or [])
        and all(_expression(e, fields) for e in term.get("matchFields") or [])
        and (term.get("matchExpressions") or term.get("matchFields"))
        for term in affinity.get("nodeSelectorTerms") or []
    )


def _expression(expression: dict[str, Any], labels: dict[str, str]) -> bool:
    key, operator = expression.get("key"), expression.get("operator")
    values = expression.get("values") or []
    present = key in labels
    value = labels.get(str(key))
    if operator == "In":
        return present and value in values
    if operator == "NotIn":
        return not present or value not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and values:
        try:
            have, bound = int(str(value)), int(values[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def _insufficient(pod: dict[str, Any], node: dict[str, Any], view: Placement) -> tuple[str, ...]:
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    node_name = node["metadata"]["name"]
    reasons = []
    if view.count(node_name) + 1 > int(quantity(allocatable.get("pods", "110"))):
        reasons.append("Too many pods")
    used = view.usage(node_name)
    for name, amount in sorted(view.wanted(pod).items()):
        if amount > 0 and _exceeds(used.get(name, _ZERO), amount, str(allocatable.get(name, "0"))):
            reasons.append(f"Insufficient {name}")
    return tuple(reasons)


def _exceeds(used: Fraction, amount: Fraction, allocatable: str) -> bool:
    """Whether ``amount`` more than ``used`` is over ``allocatable``, exactly, in integers
    (the same answer as Fraction arithmetic at a fraction of its cost: it runs for every
    node and resource of every attempt)."""
    limit = quantity(allocatable)
    numerator = used.numerator * amount.denominator + amount.numerator * used.denominator
    denominator = used.denominator * amount.denominator
    return numerator * limit.denominator > limit.numerator * denominator


def _spread(pod: dict[str, Any], node: dict[str, Any], view: Placement) -> tuple[str, bool] | None:
    """The ``DoNotSchedule`` constraints, their counts made once per attempt."""
    counts = view.memo.get("spread")
    if counts is None:
        counts = view.memo["spread"] = spread_counts(pod, "DoNotSchedule", view, is_domain)
    return spread_filter(pod, node, counts)


def is_domain(pod: dict[str, Any], node: dict[str, Any], constraint: dict[str, Any]) -> bool:
    """Whether ``node`` counts for a spread constraint: ``nodeAffinityPolicy: Honor`` (the
    default) keeps the nodes the pod could go to, ``nodeTaintsPolicy: Honor`` the ones
    whose taints it tolerates."""
    spec = pod.get("spec") or {}
    affinity = constraint.get("nodeAffinityPolicy") or "Honor"
    if affinity == "Honor" and not matches_node_affinity(spec, node):
        return False
    if (constraint.get("nodeTaintsPolicy") or "Ignore") == "Honor":
        return all(
            tolerates(spec, t)
            for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") in ("NoSchedule", "NoExecute")
        )
    return True


def failure_message(verdicts: list[Verdict], node_count: int, preemption: str | None = None) -> str:
    """``0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are ...``:
    what the filters said, then what preemption said (``preemption``; by default, why no
    eviction helps; ``""`` after it nominated a node, when it says nothing)."""
    reasons: Counter[str] = Counter()
    for verdict in verdicts:
        reasons.update(verdict.reasons)
    if node_count == 0:
        return "no nodes available to schedule pods"
    message = f"0/{node_count} nodes are available: {_histogram(reasons)}."
    if preemption is None:
        outcomes = Counter(_NO_VICTIMS if v.resolvable else _NOT_HELPFUL for v in verdicts)
        preemption = f"0/{node_count} nodes are available: {_histogram(outcomes)}."
    return f"{message} preemption: {preemption}" if preemption else message


def _histogram(counts: Counter[str]) -> str:
    # The scheduler sorts the "<count> <reason>" strings themselves, count first.
    return ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))
