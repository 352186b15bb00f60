"""The scheduler's cache: which pods hold each node and what they request, kept up to date
from the storage's events, as kube-scheduler's cache keeps a ``NodeInfo`` per node.

Listing every pod per attempt to find the bound ones and sum their requests would make
an attempt cost what the whole cluster holds, and creating N pods cost N squared: instead
``PodIndex`` is told of every pod write (``observe``) and keeps, per node, the
live pods bound there (bound and not ``Succeeded``/``Failed``; a pod being deleted still
holds its node until it is gone, as in the real cache) with their summed requests, the
same pods by namespace (what affinity and topology spread count), the ones with required
anti-affinity (which every newcomer must respect), and the pods still waiting for a node
(those with ``status.nominatedNodeName`` apart). ``placement(nodes, pod)`` is then the
view one attempt filters and scores with, costing what the pod's rules need rather than
a pass over every pod. A pod's requests are read once per pod: they cannot change while
it exists (``ValidatePodUpdate`` refuses resource changes; in-place resize is off in 1.32).

Entry point: ``PodIndex()``, ``load(pods)`` then ``observe(event)`` for each pod event
(``assume``/``forget`` around a binding that waits); ``placement(nodes, pod)`` ->
``Placement``; ``waiting_keys()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.controllers.loop import Key, key_of
from kubeforge.apiserver.controllers.placement import Placement, pod_requests, required_terms
from kubeforge.apiserver.controllers.preemption import priority
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["PodIndex", "holds_node", "is_waiting"]

_ZERO = Fraction(0)


def is_waiting(pod: dict[str, Any]) -> bool:
    """A pod the default scheduler has yet to place."""
    spec = pod.get("spec") or {}
    return (
        not spec.get("nodeName")
        and not spec.get("schedulingGates")
        and not pod["metadata"].get("deletionTimestamp")
        and spec.get("schedulerName", "default-scheduler") == "default-scheduler"
    )


def holds_node(pod: dict[str, Any]) -> bool:
    """Bound to a node whose resources it still holds (not ``Succeeded`` or ``Failed``)."""
    return bool((pod.get("spec") or {}).get("nodeName")) and (pod.get("status") or {}).get(
        "phase"
    ) not in ("Succeeded", "Failed")


class PodIndex:
    """Bound pods per node and namespace with their summed requests, and the waiting pods."""

    def __init__(self) -> None:
        self._placed: dict[Key, dict[str, Any]] = {}
        self._node_of: dict[Key, str] = {}
        self._requests: dict[Key, tuple[str, dict[str, Fraction]]] = {}
        self._by_node: dict[str, dict[Key, dict[str, Any]]] = {}
        self._usage: dict[str, dict[str, Fraction]] = {}
        self._by_namespace: dict[str, dict[Key, dict[str, Any]]] = {}
        self._guarded: dict[Key, dict[str, Any]] = {}
        self._waiting: dict[Key, dict[str, Any]] = {}
        self._nominated: dict[Key, dict[str, Any]] = {}
        self._changes: dict[str, int] = {}
        """Per node, how many times its pods changed: what a score worked out for a node
        stays right while this stays the same."""

    def load(self, pods: Iterable[dict[str, Any]]) -> None:
        """Start from the pods stored now (before any event is observed)."""
        for pod in pods:
            self._add(key_of(pod), pod)

    def observe(self, event: Event) -> None:
        """Take in one pod write (an undone write arrives as its own reversing event)."""
        key = key_of(event.object)
        if event.type != "DELETED" and self._refreshed(key, event.object):
            return
        self._remove(key)
        if event.type != "DELETED":
            self._add(key, event.object)
        else:
            self._requests.pop(key, None)

    def _refreshed(self, key: Key, pod: dict[str, Any]) -> bool:
        """Whether ``pod`` is a new state of a pod still bound where it was, holding what
        it held (its status written, most often): then only the kept object is swapped
        and its node's usage, and what was worked out from it, stays."""
        node = self._node_of.get(key)
        if node is None or (pod.get("spec") or {}).get("nodeName") != node:
            return False
        if not holds_node(pod) or self._requests[key][0] != str(pod["metadata"].get("uid") or ""):
            return False
        self._placed[key] = self._by_node[node][key] = self._by_namespace[key[0]][key] = pod
        if required_terms(pod, "podAntiAffinity"):
            self._guarded[key] = pod
        else:
            self._guarded.pop(key, None)
        return True

    def assume(self, pod: dict[str, Any]) -> None:
        """Count ``pod`` (bound, not yet stored so) where it is bound while its binding
        waits for admission, as kube-scheduler's cache assumes it: the next attempts do
        not give its room away. Its next event, or ``forget``, ends that."""
        key = key_of(pod)
        self._remove(key)
        self._add(key, pod)

    def forget(self, key: Key, stored: dict[str, Any] | None) -> None:
        """Undo ``assume`` for a refused binding: back to the pod as stored."""
        self._remove(key)
        if stored is not None:
            self._add(key, stored)

    def waiting_keys(self) -> list[Key]:
        """The pods waiting for a node, in key order."""
        return sorted(self._waiting)

    def placement(self, nodes: list[dict[str, Any]], pod: dict[str, Any]) -> Placement:
        """The view ``pod``'s attempt sees: the bound pods, and the waiting pods nominated
        to a node with at least its priority as if placed there: the room preemption made
        for them is theirs (``addNominatedPods``)."""
        uid = pod["metadata"].get("uid")
        own = priority(pod)
        nominated = [
            {**other, "spec": {**other["spec"], "nodeName": other["status"]["nominatedNodeName"]}}
            for key, other in sorted(self._nominated.items())
            if other["metadata"].get("uid") != uid and priority(other) >= own
        ]
        return _IndexedPlacement(nodes, self, nominated)

    # --- bookkeeping -----------------------------------------------------------------------

    def _add(self, key: Key, pod: dict[str, Any]) -> None:
        if is_waiting(pod):
            self._waiting[key] = pod
            if (pod.get("status") or {}).get("nominatedNodeName"):
                self._nominated[key] = pod
        if not holds_node(pod):
            return
        node = str(pod["spec"]["nodeName"])
        self._placed[key] = pod
        self._node_of[key] = node
        self._by_node.setdefault(node, {})[key] = pod
        self._by_namespace.setdefault(key[0], {})[key] = pod
        if required_terms(pod, "podAntiAffinity"):
            self._guarded[key] = pod
        self._changes[node] = self._changes.get(node, 0) + 1
        used = self._usage.setdefault(node, {})
        for name, amount in self._requests_of(key, pod).items():
            used[name] = used.get(name, _ZERO) + amount

    def _remove(self, key: Key) -> None:
        self._waiting.pop(key, None)
        self._nominated.pop(key, None)
        if self._placed.pop(key, None) is None:
            return
        node = self._node_of.pop(key)
        self._by_node[node].pop(key, None)
        self._by_namespace[key[0]].pop(key, None)
        self._guarded.pop(key, None)
        self._changes[node] += 1
        used = self._usage[node]
        for name, amount in self._requests[key][1].items():
            used[name] -= amount

    def _requests_of(self, key: Key, pod: dict[str, Any]) -> dict[str, Fraction]:
        uid = str(pod["metadata"].get("uid") or "")
        known = self._requests.get(key)
        if known is None or known[0] != uid:
            known = self._requests[key] = (uid, pod_requests(pod))
        return known[1]


class _IndexedPlacement(Placement):
    """``PodIndex``'s pods plus the nominated ones, as one attempt sees them."""

    def __init__(
        self, nodes: list[dict[str, Any]], index: PodIndex, nominated: list[dict[str, Any]]
    ) -> None:
        super().__init__(nodes)
        self._index = index
        self._extra = nominated
        self._extra_on: dict[str, list[dict[str, Any]]] = {}
        for pod in nominated:
            self._extra_on.setdefault(pod["spec"]["nodeName"], []).append(pod)

    def count(self, node: str) -> int:
        return len(self._index._by_node.get(node, ())) + len(self._extra_on.get(node, ()))

    def usage_key(self, node: str) -> int | None:
        if node in self._extra_on:
            return None
        return self._index._changes.get(node, 0)

    def usage(self, node: str) -> dict[str, Fraction]:
        used = self._index._usage.get(node, {})
        extra = self._extra_on.get(node)
        if not extra:
            return used
        total = dict(used)
        for pod in extra:
            for name, amount in pod_requests(pod).items():
                total[name] = total.get(name, _ZERO) + amount
        return total

    @property
    def guarded(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] | None = self.memo.get("guarded")
        if found is None:
            extra = [p for p in self._extra if required_terms(p, "podAntiAffinity")]
            found = self.memo["guarded"] = [*self._index._guarded.values(), *extra]
        return found

    @property
    def placed(self) -> list[dict[str, Any]]:
        index = self._index._placed
        return [*(index[key] for key in sorted(index)), *self._extra]

    def pods_on(self, node: str) -> list[dict[str, Any]]:
        return [*self._index._by_node.get(node, {}).values(), *self._extra_on.get(node, ())]

    def pods_in(self, namespaces: list[str] | None) -> list[dict[str, Any]]:
        if namespaces is None:
            return [*self._index._placed.values(), *self._extra]
        by_namespace = self._index._by_namespace
        found = [p for ns in set(namespaces) for p in by_namespace.get(ns, {}).values()]
        wanted = set(namespaces)
        return [*found, *(p for p in self._extra if p["metadata"].get("namespace") in wanted)]
