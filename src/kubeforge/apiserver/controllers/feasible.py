"""Which nodes one scheduling attempt tries, and what the filters say of each: kube-scheduler's
``findNodesThatPassFilters`` (``pkg/scheduler/schedule_one.go``, 1.32).

The nodes come from a ``NodeSnapshot`` (the live Nodes in key order, listed again only
after a Node changed, as the scheduler's cache snapshot is updated from Node events
instead of being rebuilt per pod). The search starts where the previous attempt stopped
(``nextStartNodeIndex``) and stops once ``num_feasible_nodes_to_find`` nodes fit: every
node below 100 nodes, else the adaptive ``percentageOfNodesToScore`` (50% less 1% per
125 nodes, at least 5%, and never fewer than 100 nodes), so each node gets the same
chance of being tried across pods. When no node fits, every node has been tried, and
the verdicts name them all (what the failure message and preemption read).

A pod's verdict on a node is the same as long as the node, the pods bound to it and the
pod's own placement-relevant fields are the same, unless inter-pod rules or
``DoNotSchedule`` spread constraints are in play (those read pods on other nodes too).
For the pods without them, the verdicts are kept per node and per such "shape" of pod
(its tolerations, node selector, node affinity and requests), so a ReplicaSet's pods
cost one dictionary look per unchanged node, not a run of every filter.

Entry points: ``NodeSnapshot``, ``NodeSearch().find(pod, nodes, view)``,
``num_feasible_nodes_to_find(count)``.

>>> [num_feasible_nodes_to_find(n) for n in (50, 100, 1000, 5000, 10000)]
[50, 100, 420, 500, 500]
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

import orjson

from kubeforge.apiserver.controllers.placement import Placement, required_terms
from kubeforge.apiserver.controllers.scheduling import Verdict, filter_node

__all__ = ["Found", "NodeSearch", "NodeSnapshot", "num_feasible_nodes_to_find"]

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
_SHAPES_KEPT = 64
_NODES = ("", "nodes")


def num_feasible_nodes_to_find(count: int, percentage: int = 0) -> int:
    """How many fitting nodes end the search among ``count`` (``numFeasibleNodesToFind``;
    ``percentage`` 0 is the adaptive default the scheduler runs with)."""
    if count < MIN_FEASIBLE_NODES_TO_FIND:
        return count
    if percentage == 0:
        percentage = max(50 - count // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(count * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


class NodeSnapshot:
    """The nodes not being deleted, in key order: listed once, then again only after a
    Node event (``changed()``)."""

    def __init__(self, list_nodes: Any) -> None:
        self._list_nodes = list_nodes
        self._nodes: list[dict[str, Any]] | None = None

    def changed(self) -> None:
        self._nodes = None

    def nodes(self) -> list[dict[str, Any]]:
        if self._nodes is None:
            self._nodes = [
                n for n in self._list_nodes(_NODES) if not n["metadata"].get("deletionTimestamp")
            ]
        return self._nodes


class Found(NamedTuple):
    """What one search found: the nodes that fit (at most ``num_feasible_nodes_to_find``),
    the verdicts of those tried that do not, and the best rank among the fitting ones
    (when the search was given a ``rank``; None when none fits)."""

    feasible: list[dict[str, Any]]
    refused: dict[str, Verdict]
    best: Any = None


_Kept = dict[str, tuple[tuple[Any, int], Verdict, Any]]
"""Per node: the stamp the verdict holds for, the verdict, and the node's rank (None until
a search that ranks asked)."""


class NodeSearch:
    """The search of the nodes for one pod at a time, remembering where it stopped."""

    def __init__(self) -> None:
        self._next_start = 0
        self._kept: OrderedDict[bytes, _Kept] = OrderedDict()

    def find(
        self,
        pod: dict[str, Any],
        nodes: list[dict[str, Any]],
        view: Placement,
        rank: Callable[[dict[str, Any]], Any] | None = None,
    ) -> Found:
        """Try the nodes from where the last search stopped; with ``rank`` (a node's rank,
        lower is better, the same while the node and its pods are), also the best rank of
        the fitting nodes, kept with their verdicts."""
        total = len(nodes)
        if total == 0:
            return Found([], {})
        wanted = num_feasible_nodes_to_find(total)
        kept = self._kept_for(pod, view)
        feasible: list[dict[str, Any]] = []
        refused: dict[str, Verdict] = {}
        best = None
        start = self._next_start
        for offset in range(total):
            node = nodes[(start + offset) % total]
            _, verdict, ranked = self._judged(pod, node, view, kept, rank)
            if verdict.fits:
                feasible.append(node)
                if rank is not None and (best is None or ranked < best):
                    best = ranked
                if len(feasible) == wanted:
                    break
            else:
                refused[node["metadata"]["name"]] = verdict
        self._next_start = (start + len(feasible) + len(refused)) % total
        return Found(feasible, refused, best)

    @staticmethod
    def _judged(
        pod: dict[str, Any],
        node: dict[str, Any],
        view: Placement,
        kept: _Kept | None,
        rank: Callable[[dict[str, Any]], Any] | None,
    ) -> tuple[tuple[Any, int], Verdict, Any]:
        """The node's verdict and (for a fitting node, given ``rank``) its rank: as kept
        while the node and its pods are the same, else worked out (and kept)."""
        meta = node["metadata"]
        name = meta["name"]
        pods_key = view.usage_key(name) if kept is not None else None
        if pods_key is None:  # not kept, or pods nominated there count too: work it out
            verdict = filter_node(pod, node, view)
            return (None, 0), verdict, rank(node) if rank is not None and verdict.fits else None
        stamp = (meta.get("resourceVersion"), pods_key)
        known = kept.get(name) if kept is not None else None
        if known is not None and known[0] == stamp:
            if known[2] is not None or rank is None or not known[1].fits:
                return known
            verdict = known[1]
        else:
            verdict = filter_node(pod, node, view)
        entry = (stamp, verdict, rank(node) if rank is not None and verdict.fits else None)
        if kept is not None:
            kept[name] = entry
        return entry

    def _kept_for(self, pod: dict[str, Any], view: Placement) -> _Kept | None:
        """The kept verdicts of pods shaped as ``pod`` is, or None when its verdicts also
        depend on pods bound to other nodes (inter-pod rules, hard spread constraints)."""
        spec = pod.get("spec") or {}
        if (
            view.guarded
            or required_terms(pod, "podAffinity")
            or required_terms(pod, "podAntiAffinity")
            or any(
                isinstance(c, dict) and c.get("whenUnsatisfiable") == "DoNotSchedule"
                for c in spec.get("topologySpreadConstraints") or []
            )
        ):
            return None
        shape = _shape(spec, view.wanted(pod))
        kept = self._kept.get(shape)
        if kept is None:
            kept = self._kept[shape] = {}
            while len(self._kept) > _SHAPES_KEPT:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(shape)
        return kept


def _shape(spec: dict[str, Any], requests: dict[str, Any]) -> bytes:
    """What of a pod the node filters read, when no inter-pod or hard spread rule applies."""
    node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    return orjson.dumps(
        [
            spec.get("tolerations"),
            spec.get("nodeSelector"),
            node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"),
            sorted((name, str(amount)) for name, amount in requests.items()),
        ]
    )
