"""The ``scale`` subresource (custom resources and apps workloads): an ``autoscaling/v1`` view.

Entry points: ``to_scale(obj, paths)`` renders the view; ``apply_scale(obj, scale,
paths)`` writes ``spec.replicas`` of a ``Scale`` back to the CRD's
``specReplicasPath``. The Scale's resourceVersion is its parent's, so an update
through ``/scale`` gets the same optimistic-concurrency check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import format_selector

__all__ = ["ScalePaths", "apply_scale", "to_scale"]


@dataclass(frozen=True)
class ScalePaths:
    """``subresources.scale`` of a CRD version (JSON paths like ``.spec.replicas``)."""

    spec_replicas: str
    status_replicas: str
    label_selector: str = ""

    @classmethod
    def from_version(cls, version: dict[str, Any]) -> ScalePaths | None:
        scale = (version.get("subresources") or {}).get("scale")
        if not isinstance(scale, dict):
            return None
        return cls(
            spec_replicas=str(scale.get("specReplicasPath") or ".spec.replicas"),
            status_replicas=str(scale.get("statusReplicasPath") or ".status.replicas"),
            label_selector=str(scale.get("labelSelectorPath") or ""),
        )


def _parts(path: str) -> list[str]:
    return [p for p in path.strip().lstrip(".").split(".") if p]


def _get(obj: dict[str, Any], path: str) -> Any:
    value: Any = obj
    for part in _parts(path):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def to_scale(obj: dict[str, Any], paths: ScalePaths) -> dict[str, Any]:
    meta = obj["metadata"]
    scale_meta = {
        key: meta[key]
        for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
        if key in meta
    }
    status: dict[str, Any] = {"replicas": int(_get(obj, paths.status_replicas) or 0)}
    if paths.label_selector:
        selector = _get(obj, paths.label_selector)
        if isinstance(selector, dict):  # a LabelSelector, or a ReplicationController's map
            if selector and not {"matchLabels", "matchExpressions"} & selector.keys():
                selector = {"matchLabels": selector}
            selector = format_selector(selector)
        if isinstance(selector, str) and selector:
            status["selector"] = selector
    spec_replicas = _get(obj, paths.spec_replicas)
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": int(spec_replicas)} if isinstance(spec_replicas, int) else {},
        "status": status,
    }


def apply_scale(obj: dict[str, Any], scale: dict[str, Any], paths: ScalePaths) -> None:
    """Set the parent's replicas from ``scale`` (in place); 422 for a bad value."""
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        error = FieldError(
            "Invalid", "spec.replicas", "must be greater than or equal to 0", replicas
        )
        name = str((scale.get("metadata") or {}).get("name") or obj["metadata"]["name"])
        raise failures.invalid("Scale", "autoscaling", name, [error])
    parts = _parts(paths.spec_replicas)
    target = obj
    for part in parts[:-1]:
        child = target.get(part)
        if not isinstance(child, dict):
            child = {}
            target[part] = child
        target = child
    target[parts[-1]] = replicas
