"""``LimitRanger`` (plugin/pkg/admission/limitranger, 1.32) for pods: the ``Container``
limits of the namespace's LimitRanges fill the requests and limits a container leaves
out (recorded in the ``kubernetes.io/limit-ranger`` annotation), then every container
must fit their ``min`` and ``max``, refused in the plugin's words.

Entry point: ``LimitRangerPlugin``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.admission.plugins.base import Plugin, forbid, is_create_of
from kubeforge.apiserver.builtin.podspec.resources import canonical_quantity, quantity_value
from kubeforge.apiserver.registry.admit import Attempt

__all__ = ["LimitRangerPlugin"]

_ANNOTATION = "kubernetes.io/limit-ranger"
_PREFIXES = (("containers", "container"), ("initContainers", "init container"))


def _container_items(ranges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        item
        for limit_range in ranges
        for item in (limit_range.get("spec") or {}).get("limits") or []
        if isinstance(item, dict) and item.get("type") == "Container"
    ]


def _fill(container: dict[str, Any], item: dict[str, Any], prefix: str) -> list[str]:
    resources = container.get("resources")
    if not isinstance(resources, dict):
        resources = container["resources"] = {}
    notes = []
    for field, source, word in (
        ("requests", "defaultRequest", "request"),
        ("limits", "default", "limit"),
    ):
        current = resources.setdefault(field, {})
        added = sorted(k for k in item.get(source) or {} if k not in current)
        for key in added:
            current[key] = item[source][key]
        if added:
            notes.append(f"{', '.join(added)} {word} for {prefix} {container.get('name', '')}")
        if not current:
            del resources[field]
    return notes


def _bound_errors(container: dict[str, Any], item: dict[str, Any]) -> list[str]:
    """At most one error per bound and resource, the first of Go's min/maxConstraint."""
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    errors = []
    for name, bound in sorted((item.get("min") or {}).items()):
        low, shown = quantity_value(bound), canonical_quantity(str(bound))
        if name not in requests:
            errors.append(
                f"minimum {name} usage per Container is {shown}.  No request is specified"
            )
        elif low is not None and (quantity_value(requests[name]) or 0) < low:
            got = canonical_quantity(str(requests[name]))
            errors.append(f"minimum {name} usage per Container is {shown}, but request is {got}")
        elif name in limits and low is not None and (quantity_value(limits[name]) or 0) < low:
            got = canonical_quantity(str(limits[name]))
            errors.append(f"minimum {name} usage per Container is {shown}, but limit is {got}")
    for name, bound in sorted((item.get("max") or {}).items()):
        high, shown = quantity_value(bound), canonical_quantity(str(bound))
        if name not in limits:
            errors.append(f"maximum {name} usage per Container is {shown}.  No limit is specified")
        elif high is not None and (quantity_value(limits[name]) or 0) > high:
            got = canonical_quantity(str(limits[name]))
            errors.append(f"maximum {name} usage per Container is {shown}, but limit is {got}")
        elif name in requests and high is not None and (quantity_value(requests[name]) or 0) > high:
            got = canonical_quantity(str(requests[name]))
            errors.append(f"maximum {name} usage per Container is {shown}, but request is {got}")
    return errors


class LimitRangerPlugin(Plugin):
    name = "LimitRanger"
    resources = frozenset({("", "pods")})

    def _items(self, attempt: Attempt) -> list[dict[str, Any]]:
        if not is_create_of(attempt, "", "pods") or not isinstance(attempt.obj.get("spec"), dict):
            return []
        return _container_items(self.storage.objects(("", "limitranges"), attempt.namespace))

    def mutate(self, attempt: Attempt) -> None:
        notes: list[str] = []
        for item in self._items(attempt):
            for key, prefix in _PREFIXES:
                for container in attempt.obj["spec"].get(key) or []:
                    if isinstance(container, dict):
                        notes += _fill(container, item, prefix)
        if notes:
            meta = attempt.obj["metadata"]
            annotations = meta.setdefault("annotations", {})
            annotations[_ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)

    def validate(self, attempt: Attempt) -> None:
        errors: list[str] = []
        for item in self._items(attempt):
            for key, _ in _PREFIXES:
                for container in attempt.obj["spec"].get(key) or []:
                    if isinstance(container, dict):
                        errors += _bound_errors(container, item)
        if errors:
            raise forbid(attempt, errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
