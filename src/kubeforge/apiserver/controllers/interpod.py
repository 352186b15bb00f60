"""The default scheduler's InterPodAffinity filter: the pod's required affinity, its required
anti-affinity, then the required anti-affinity of the pods already placed.

A term matches the pods of its ``namespaces`` (the pod's own when it names none and has no
``namespaceSelector``) whose labels its ``labelSelector`` selects; its domain is the set of
nodes sharing the node's value of ``topologyKey``. Affinity needs a matching pod in the
node's domain (a node without the key never fits), except for the first pod of a group
that selects itself, which may go anywhere while no pod matches; anti-affinity needs none
there; and no placed pod's anti-affinity term may match the pod within its own domain.

Which domains hold a matching pod is worked out once per term and attempt (kept in the
view's ``memo``) and only over the term's namespaces, so trying every node costs what the
matching pods cost, not every node times every pod.

Entry point: ``inter_pod_filter(pod, node, view)`` -> ``(reason, resolvable)`` or None.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.placement import Placement, required_terms
from kubeforge.apiserver.meta.labelselector import selector_matches

__all__ = ["inter_pod_filter"]

_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
_AFFINITY = "node(s) didn't match pod affinity rules"


def inter_pod_filter(
    pod: dict[str, Any], node: dict[str, Any], view: Placement
) -> tuple[str, bool] | None:
    """Why the inter-pod rules keep ``pod`` off ``node`` and whether evictions could help,
    or None when they let it in."""
    labels = node["metadata"].get("labels") or {}
    for index, term in enumerate(required_terms(pod, "podAffinity")):
        key = term.get("topologyKey", "")
        if key not in labels:
            return _AFFINITY, False
        matched, domains = _matching(view, pod, term, ("podAffinity", index))
        if labels[key] in domains:
            continue
        # The first pod of a group that selects itself may go anywhere (as the plugin allows).
        if matched or not _term_matches(term, pod, pod):
            return _AFFINITY, False
    for index, term in enumerate(required_terms(pod, "podAntiAffinity")):
        key = term.get("topologyKey", "")
        if key in labels and labels[key] in _matching(view, pod, term, ("anti", index))[1]:
            return _ANTI_AFFINITY, True
    guarded = view.guarded
    if guarded:
        node_labels = _labels_by_node(view)
        for other in guarded:
            other_node = node_labels.get((other.get("spec") or {}).get("nodeName"), {})
            for term in required_terms(other, "podAntiAffinity"):
                key = term.get("topologyKey", "")
                if (
                    key in labels
                    and other_node.get(key) == labels[key]
                    and _term_matches(term, other, pod)
                ):
                    return _EXISTING_ANTI_AFFINITY, True
    return None


def _matching(
    view: Placement, pod: dict[str, Any], term: dict[str, Any], memo_key: tuple[str, int]
) -> tuple[bool, set[Any]]:
    """Whether any placed pod matches ``term``, and the values of its ``topologyKey`` on
    the nodes (of this attempt) where matching pods run."""
    found: tuple[bool, set[Any]] | None = view.memo.get(memo_key)
    if found is None:
        key = term.get("topologyKey", "")
        node_labels = _labels_by_node(view)
        matched, domains = False, set()
        for other in view.pods_in(_namespaces(term, pod) or None):
            if _term_matches(term, pod, other):
                matched = True
                labels = node_labels.get((other.get("spec") or {}).get("nodeName"))
                if labels is not None and key in labels:
                    domains.add(labels[key])
        found = view.memo[memo_key] = (matched, domains)
    return found


def _labels_by_node(view: Placement) -> dict[Any, dict[str, str]]:
    found: dict[Any, dict[str, str]] | None = view.memo.get("node labels")
    if found is None:
        found = view.memo["node labels"] = {
            n["metadata"]["name"]: n["metadata"].get("labels") or {} for n in view.nodes
        }
    return found


def _namespaces(term: dict[str, Any], owner: dict[str, Any]) -> list[Any]:
    """The namespaces a term looks in; empty for all of them."""
    namespaces = list(term.get("namespaces") or [])
    if not namespaces and term.get("namespaceSelector") is None:
        namespaces = [owner["metadata"].get("namespace")]
    return namespaces


def _term_matches(term: dict[str, Any], owner: dict[str, Any], other: dict[str, Any]) -> bool:
    namespaces = _namespaces(term, owner)
    if namespaces and other["metadata"].get("namespace") not in namespaces:
        return False
    return (
        selector_matches(
            term.get("labelSelector") or {"matchLabels": {}}, other["metadata"].get("labels") or {}
        )
        if term.get("labelSelector")
        else False
    )
