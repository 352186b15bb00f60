"""What one scheduling attempt sees placed where: the nodes, the live pods bound to them,
what those pods request per node; and what a pod requests.

``Placement.of(nodes, placed)`` builds the view from a list of pods (preemption tries its
victims that way); the scheduler builds it from its ``nodeinfo.PodIndex`` instead, which
answers the same questions without a pass over every pod. Filters and scores ask the view
(``count``, ``usage``, ``pods_in``, ``guarded``), never walk ``placed`` themselves unless
they need every pod in order (preemption does).

Entry points: ``Placement``, ``pod_requests(pod)``, ``required_terms(pod, kind)``.

>>> view = Placement.of([], [])
>>> view.count("node-a"), view.usage("node-a")
(0, {})
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubeforge.apiserver.controllers.nodes import quantity

__all__ = ["Placement", "pod_requests", "required_terms"]

_ZERO = Fraction(0)


class Placement:
    """The nodes and the live pods bound to them, as one attempt of one pod sees them.

    ``memo`` keeps what the attempt works out once and needs for every node (the pod's
    requests, its spread counts, the domains its affinity terms match)."""

    def __init__(
        self, nodes: list[dict[str, Any]], placed: list[dict[str, Any]] | None = None
    ) -> None:
        self.nodes = nodes
        self.memo: dict[Any, Any] = {}
        self._list = placed or []
        self._by_node: dict[str, list[dict[str, Any]]] = {}
        for pod in self._list:
            self._by_node.setdefault(str((pod.get("spec") or {}).get("nodeName")), []).append(pod)
        self._usage: dict[str, dict[str, Fraction]] = {}

    @classmethod
    def of(cls, nodes: list[dict[str, Any]], placed: list[dict[str, Any]]) -> Placement:
        return cls(nodes, placed)

    @property
    def placed(self) -> list[dict[str, Any]]:
        """Every placed pod, in key order (the nominated ones last)."""
        return self._list

    @property
    def guarded(self) -> list[dict[str, Any]]:
        """The placed pods with required anti-affinity, which every newcomer must respect."""
        return [p for p in self._list if required_terms(p, "podAntiAffinity")]

    def count(self, node: str) -> int:
        """How many pods are placed on ``node``."""
        return len(self._by_node.get(node, ()))

    def pods_on(self, node: str) -> list[dict[str, Any]]:
        """The pods placed on ``node``."""
        return self._by_node.get(node, [])

    def pods_in(self, namespaces: list[str] | None) -> list[dict[str, Any]]:
        """The placed pods of ``namespaces`` (every one for None), in no special order."""
        if namespaces is None:
            return self._list
        wanted = set(namespaces)
        return [p for p in self._list if p["metadata"].get("namespace") in wanted]

    def usage_key(self, node: str) -> int | None:
        """A number that changes whenever ``usage(node)`` may have: what was worked out
        from a node's usage holds while it is the same (None: work it out again)."""
        return None

    def usage(self, node: str) -> dict[str, Fraction]:
        """What the pods placed on ``node`` request, summed; read-only."""
        used = self._usage.get(node)
        if used is None:
            used = self._usage[node] = {}
            for pod in self._by_node.get(node, ()):
                for name, amount in pod_requests(pod).items():
                    used[name] = used.get(name, _ZERO) + amount
        return used

    def wanted(self, pod: dict[str, Any]) -> dict[str, Fraction]:
        """``pod_requests(pod)`` of the pod this attempt places, worked out once."""
        found: dict[str, Fraction] | None = self.memo.get("requests")
        if found is None:
            found = self.memo["requests"] = pod_requests(pod)
        return found


def pod_requests(pod: dict[str, Any]) -> dict[str, Fraction]:
    """What a pod asks for: its containers summed, at least each init container, plus overhead."""
    spec = pod.get("spec") or {}
    total: dict[str, Fraction] = {}
    for container in spec.get("containers") or []:
        for name, amount in _container_requests(container).items():
            total[name] = total.get(name, _ZERO) + amount
    for container in spec.get("initContainers") or []:
        for name, amount in _container_requests(container).items():
            total[name] = max(total.get(name, _ZERO), amount)
    for name, amount in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, _ZERO) + quantity(amount)
    return total


def _container_requests(container: Any) -> dict[str, Fraction]:
    resources = (container or {}).get("resources") or {}
    asked = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    return {name: quantity(amount) for name, amount in asked.items()}


def required_terms(pod: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The pod's required ``podAffinity`` or ``podAntiAffinity`` terms."""
    affinity = (pod.get("spec") or {}).get("affinity")
    rules = ((affinity or {}).get(kind) or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    return [t for t in rules or [] if isinstance(t, dict)]
