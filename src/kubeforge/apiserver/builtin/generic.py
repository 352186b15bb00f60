"""``CatalogStrategy``: the rules of a GA built-in kind, generic and overridable.

Every such kind gets them: unknown fields pruned against the Kubernetes 1.32 type table,
``status`` owned by ``/status`` where the real resource has that subresource (a new
object starts with the Go status struct's non-omitempty fields), ``metadata.generation``
kept for the kinds whose real strategy keeps it. A kind's own strategy, in its group's
module, subclasses it to add the defaults of ``pkg/apis/*/v1/defaults.go`` and the
validation users hit first, worded as the real server words it.

Entry points: ``CatalogStrategy`` (the default strategy of a ``kind.Kind``), ``spec_of``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.apiserver.smd.schema import builtin_root

__all__ = ["CatalogStrategy", "spec_of"]

# Kinds whose real strategy sets generation 1 on create and bumps it on spec changes.
_WITH_GENERATION = frozenset(
    {
        "cronjobs",
        "endpointslices",
        "flowschemas",
        "horizontalpodautoscalers",
        "ingressclasses",
        "ingresses",
        "jobs",
        "networkpolicies",
        "poddisruptionbudgets",
        "prioritylevelconfigurations",
        "replicationcontrollers",
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
    }
)


def spec_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else None


def _child(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` as a dict, created (or replaced when not a dict) as needed."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


class CatalogStrategy(Strategy):
    """The generic rules of a catalogued built-in; ``default`` runs on every write."""

    empty_status: ClassVar[dict[str, Any]] = {}
    """A new object's status (with ``/status``): the Go struct's non-omitempty fields."""

    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        info = served.info
        root = builtin_root(info.group, info.version, info.kind)
        if root is not None:
            known = ("apiVersion", "kind", "metadata")
            self.top_level_fields = tuple(k for k in root.fields if k not in known)
        self.status_subresource = "status" in served.subresources
        self.has_generation = info.plural in _WITH_GENERATION

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.status_subresource:
            obj["status"] = dict(self.empty_status)
        self.default(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self.default(new)

    def default(self, obj: dict[str, Any]) -> None:
        """The kind's ``SetDefaults_*``."""


# --- core/v1 ---------------------------------------------------------------------------------


# --- other groups ----------------------------------------------------------------------------


_Kinds = dict[tuple[str, str], type[Strategy]]
