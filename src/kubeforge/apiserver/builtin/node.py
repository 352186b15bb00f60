"""node.k8s.io: RuntimeClasses.

Validated as 1.32's ``ValidateRuntimeClass`` (and, on update, again plus
``ValidateRuntimeClassUpdate``): a DNS-label ``handler`` that never changes, an
``overhead.podFixed`` checked as pod-level resource limits (at ``overhead.limits[...]``, as Go
builds the requirements it reuses), and ``scheduling`` whose node selector holds label
pairs and whose tolerations are valid and unique. Deprecated node labels in the node
selector are warned about (``GetWarningsForRuntimeClass``).

Entry point: ``KINDS``; the rules are ``RuntimeClassStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.builtin.podspec.resource_names import is_hugepages
from kubeforge.apiserver.builtin.podspec.resources import quantity_errors, resource_name_errors
from kubeforge.apiserver.builtin.podspec.scheduling import node_selector, toleration_list
from kubeforge.apiserver.builtin.podspec.warnings import deprecated_node_label
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.printers.cells import created, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns
from kubeforge.core.names import dns1123_label

__all__ = ["KINDS", "RuntimeClassStrategy"]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _go_toleration(toleration: dict[str, Any]) -> GoValue:
    """``%#v`` of a ``core.Toleration`` (a set ``tolerationSeconds`` shows as a pointer,
    whose address a fixed one stands in for)."""
    fields = ", ".join(
        f"{name}:{GoValue.quote(str(toleration.get(key) or ''))}"
        for name, key in (("Key", "key"), ("Operator", "operator"), ("Value", "value"))
    )
    effect = GoValue.quote(str(toleration.get("effect") or ""))
    seconds = "nil" if toleration.get("tolerationSeconds") is None else "0xc000010000"
    return GoValue(
        f"core.Toleration{{{fields}, Effect:{effect}, TolerationSeconds:(*int64)({seconds})}}"
    )


def _tolerations(items: Any, path: str) -> list[FieldError]:
    """``validateTolerations``: each valid, and unique by key, operator, value, effect."""
    errors = toleration_list(items, path)
    seen: set[tuple[str, ...]] = set()
    for i, item in enumerate(items if isinstance(items, list) else []):
        toleration = _dict(item)
        key = tuple(str(toleration.get(k) or "") for k in ("key", "operator", "value", "effect"))
        if key in seen:
            errors.append(FieldError.duplicate(f"{path}[{i}]", _go_toleration(toleration)))
        seen.add(key)
    return errors


def _overhead_errors(pod_fixed: Any) -> list[FieldError]:
    """``ValidateResourceRequirements`` of limits holding ``podFixed`` (pod-level resource
    names, not containers'); Go walks the map in no order, sorted here."""
    limits = pod_fixed if isinstance(pod_fixed, dict) else {}
    errors: list[FieldError] = []
    for name in sorted(limits):
        at = f"overhead.limits[{name}]"
        errors += resource_name_errors(name, at) + quantity_errors(name, limits[name], at)
    if any(map(is_hugepages, limits)) and not set(limits) & {"cpu", "memory"}:
        errors.append(FieldError.forbidden("overhead", "HugePages require cpu or memory"))
    return errors


def runtime_class_errors(obj: dict[str, Any]) -> list[FieldError]:
    handler = str(obj.get("handler") or "")
    errors = [FieldError.invalid("handler", handler, m) for m in dns1123_label(handler)]
    overhead = obj.get("overhead")
    if isinstance(overhead, dict):
        errors += _overhead_errors(overhead.get("podFixed"))
    scheduling = obj.get("scheduling")
    if isinstance(scheduling, dict):
        errors += node_selector(scheduling, "scheduling")
        errors += _tolerations(scheduling.get("tolerations"), "scheduling.tolerations")
    return errors


class RuntimeClassStrategy(CatalogStrategy):
    allow_unconditional_update = False  # an update names the resourceVersion it read

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return runtime_class_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = runtime_class_errors(new)
        handler = new.get("handler")
        if handler != old.get("handler"):
            errors.append(FieldError.invalid("handler", handler or "", "field is immutable"))
        return errors

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        selector = _dict(_dict(obj.get("scheduling")).get("nodeSelector"))
        return [
            f"scheduling.nodeSelector: {message}"
            for key in selector
            if (message := deprecated_node_label(key))
        ]

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return self.warnings_on_create(new)


_RUNTIME_CLASS_PRINTER = Printer(
    (*simple_columns(("Handler", "string", "The CRI handler the class selects.")), AGE_COLUMN),
    lambda obj, now: [name_of(obj), str(obj.get("handler") or ""), created(obj, now)],
)

KINDS = (
    Kind(
        "node.k8s.io",
        "v1",
        "RuntimeClass",
        "runtimeclasses",
        namespaced=False,
        strategy=RuntimeClassStrategy,
        printer=_RUNTIME_CLASS_PRINTER,
    ),
)
