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
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.controllers.nodes import quantity
from kubeforge.apiserver.controllers.topologyspread import spread_filter
from kubeforge.apiserver.meta.labelselector import selector_matches

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

AFFINITY_MISMATCH = "node(s) didn't match Pod's node affinity/selector"
_UNSCHEDULABLE = "node(s) were unschedulable"
_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
_AFFINITY = "node(s) didn't match pod affinity rules"
_NOT_HELPFUL = "Preemption is not helpful for scheduling"
_NO_VICTIMS = "No preemption victims found for incoming pod"
_ZERO = Fraction(0)
_REQUESTS: dict[tuple[str, str], dict[str, Fraction]] = {}
_REQUESTS_KEPT = 200_000  # pod versions (and nodes) remembered; each cache starts over past that
# Per node name: the (uid, resourceVersion) of the pods summed, and their summed requests.
_NODE_USAGE: dict[str, tuple[tuple[tuple[str, str] | None, ...], dict[str, Fraction]]] = {}


@dataclass(frozen=True)
class Verdict:
    """``reasons`` empty: the pod fits. ``resolvable``: evicting pods could make it fit."""

    reasons: tuple[str, ...] = ()
    resolvable: bool = True

    @property
    def fits(self) -> bool:
        return not self.reasons


@dataclass(frozen=True)
class Placement:
    """Nodes and the live pods bound to them, indexed once per scheduling attempt."""

    nodes: list[dict[str, Any]]
    placed: list[dict[str, Any]]
    by_node: dict[str, list[dict[str, Any]]]
    guarded: list[dict[str, Any]]
    """The placed pods with required anti-affinity, which every newcomer must respect."""
    _usage: dict[str, dict[str, Fraction]] = field(default_factory=dict)

    def usage(self, node: str) -> dict[str, Fraction]:
        """What the pods placed on ``node`` request, summed (once per attempt and node:
        the filter and the score both need it)."""
        used = self._usage.get(node)
        if used is None:
            pods = self.by_node.get(node, [])
            # The same pods in the same versions as at the last attempt: the same sum.
            signature = tuple(_version(pod) for pod in pods)
            known = _NODE_USAGE.get(node)
            if known is not None and known[0] == signature and None not in signature:
                used = known[1]
            else:
                used = {}
                for pod in pods:
                    for name, amount in pod_requests(pod).items():
                        used[name] = used.get(name, _ZERO) + amount
                if len(_NODE_USAGE) >= _REQUESTS_KEPT:
                    _NODE_USAGE.clear()
                _NODE_USAGE[node] = (signature, used)
            self._usage[node] = used
        return used

    @classmethod
    def of(cls, nodes: list[dict[str, Any]], placed: list[dict[str, Any]]) -> Placement:
        by_node: dict[str, list[dict[str, Any]]] = {}
        for pod in placed:
            by_node.setdefault(str((pod.get("spec") or {}).get("nodeName")), []).append(pod)
        guarded = [
            p for p in placed if _required((p.get("spec") or {}).get("affinity"), "podAntiAffinity")
        ]
        return cls(nodes, placed, by_node, guarded)


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
    spread = _spread(pod, node, view.placed, view.nodes)
    if spread is not None:
        return spread
    return _inter_pod(pod, node, view)


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


def pod_requests(pod: dict[str, Any]) -> dict[str, Fraction]:
    """What a pod asks for: its containers summed, at least each init container, plus overhead.

    Remembered per pod version (uid and resourceVersion, which every change moves): each
    scheduling attempt sums the requests of every placed pod, and parsing them anew made
    scheduling cost grow with the square of the pods. Treat the answer as read-only.
    """
    version = _version(pod)
    if version is not None:
        known = _REQUESTS.get(version)
        if known is None:
            if len(_REQUESTS) >= _REQUESTS_KEPT:
                _REQUESTS.clear()
            known = _REQUESTS[version] = _requests(pod)
        return known
    return _requests(pod)


def _version(pod: dict[str, Any]) -> tuple[str, str] | None:
    """``(uid, resourceVersion)``: which version of which pod (``None`` before it is stored)."""
    meta = pod.get("metadata") or {}
    uid, version = meta.get("uid"), meta.get("resourceVersion")
    return (uid, version) if uid and version else None


def _requests(pod: dict[str, Any]) -> dict[str, Fraction]:
    spec = pod.get("spec") or {}
    total: dict[str, Fraction] = {}
    for container in spec.get("containers") or []:
        for name, amount in _container_requests(container).items():
            total[name] = total.get(name, Fraction(0)) + amount
    for container in spec.get("initContainers") or []:
        for name, amount in _container_requests(container).items():
            total[name] = max(total.get(name, Fraction(0)), amount)
    for name, amount in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, Fraction(0)) + quantity(amount)
    return total


def _container_requests(container: Any) -> dict[str, Fraction]:
    resources = (container or {}).get("resources") or {}
    asked = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    return {name: quantity(amount) for name, amount in asked.items()}


def _insufficient(pod: dict[str, Any], node: dict[str, Any], view: Placement) -> tuple[str, ...]:
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    node_name = node["metadata"]["name"]
    reasons = []
    if len(view.by_node.get(node_name, [])) + 1 > int(quantity(allocatable.get("pods", "110"))):
        reasons.append("Too many pods")
    used = view.usage(node_name)
    for name, amount in sorted(pod_requests(pod).items()):
        if amount > 0 and used.get(name, Fraction(0)) + amount > quantity(
            allocatable.get(name, "0")
        ):
            reasons.append(f"Insufficient {name}")
    return tuple(reasons)


def _domain_pods(
    pods: list[dict[str, Any]], nodes: list[dict[str, Any]], key: str, value: str
) -> list[dict[str, Any]]:
    in_domain = {
        n["metadata"]["name"]
        for n in nodes
        if (n["metadata"].get("labels") or {}).get(key) == value
    }
    return [p for p in pods if (p.get("spec") or {}).get("nodeName") in in_domain]


def _term_matches(term: dict[str, Any], owner: dict[str, Any], other: dict[str, Any]) -> bool:
    namespaces = term.get("namespaces") or []
    if not namespaces and term.get("namespaceSelector") is None:
        namespaces = [owner["metadata"].get("namespace")]
    if namespaces and other["metadata"].get("namespace") not in namespaces:
        return False
    return (
        selector_matches(
            term.get("labelSelector") or {"matchLabels": {}}, other["metadata"].get("labels") or {}
        )
        if term.get("labelSelector")
        else False
    )


def _inter_pod(pod: dict[str, Any], node: dict[str, Any], view: Placement) -> Verdict:
    placed, nodes = view.placed, view.nodes
    labels = node["metadata"].get("labels") or {}
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    for term in _required(affinity, "podAffinity"):
        key = term.get("topologyKey", "")
        if key not in labels:
            return Verdict((_AFFINITY,), resolvable=False)
        if any(_term_matches(term, pod, p) for p in _domain_pods(placed, nodes, key, labels[key])):
            continue
        # The first pod of a group that selects itself may go anywhere (as the plugin allows).
        if any(_term_matches(term, pod, p) for p in placed) or not _term_matches(term, pod, pod):
            return Verdict((_AFFINITY,), resolvable=False)
    for term in _required(affinity, "podAntiAffinity"):
        key = term.get("topologyKey", "")
        if key in labels and any(
            _term_matches(term, pod, p) for p in _domain_pods(placed, nodes, key, labels[key])
        ):
            return Verdict((_ANTI_AFFINITY,))
    for other in view.guarded:
        other_terms = _required((other.get("spec") or {}).get("affinity"), "podAntiAffinity")
        for term in other_terms:
            key = term.get("topologyKey", "")
            other_node = _node_labels(nodes, (other.get("spec") or {}).get("nodeName"))
            if (
                key in labels
                and other_node.get(key) == labels[key]
                and _term_matches(term, other, pod)
            ):
                return Verdict((_EXISTING_ANTI_AFFINITY,))
    return Verdict()


def _required(affinity: Any, kind: str) -> list[dict[str, Any]]:
    rules = ((affinity or {}).get(kind) or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    return [t for t in rules or [] if isinstance(t, dict)]


def _node_labels(nodes: list[dict[str, Any]], name: Any) -> dict[str, str]:
    for node in nodes:
        if node["metadata"]["name"] == name:
            return node["metadata"].get("labels") or {}
    return {}


def _spread(
    pod: dict[str, Any],
    node: dict[str, Any],
    placed: list[dict[str, Any]],
    nodes: list[dict[str, Any]],
) -> Verdict | None:
    failed = spread_filter(pod, node, placed, nodes, is_domain)
    return None if failed is None else Verdict((failed[0],), resolvable=failed[1])


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
