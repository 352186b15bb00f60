"""HorizontalPodAutoscaler validation, as 1.32's ``pkg/apis/autoscaling/validation`` words it.

Go validates the internal object, which is the v2 shape: an ``autoscaling/v1`` write's
``targetCPUUtilizationPercentage`` is judged as the CPU utilization metric it converts to
(``spec.metrics[0].resource.target.averageUtilization``). ``minReplicas`` 0 belongs to
the HPAScaleToZero gate, off in 1.32: refused on create, kept on an update of an object
that already has it.

Entry points: ``hpa_errors``, ``hpa_status_errors``.

>>> [str(e) for e in hpa_errors({"spec": {"maxReplicas": 0, "scaleTargetRef": {"kind": "D",
...     "name": "d"}}})]
['spec.maxReplicas: Invalid value: 0: must be greater than 0']
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.resources import (
    container_resource_name_errors,
    go_quantity,
    quantity_value,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.validation import path_segment_name
from kubeforge.core.names import dns1123_label

__all__ = ["hpa_errors", "hpa_status_errors"]

_MAX_PERIOD = 1800
_MAX_WINDOW = 3600
_SOURCES = ("ContainerResource", "External", "Object", "Pods", "Resource")
# Each source type's field, in the order Go looks for them.
_SOURCE_FIELDS = (
    ("object", "Object"),
    ("external", "External"),
    ("pods", "Pods"),
    ("resource", "Resource"),
    ("containerResource", "ContainerResource"),
)
_SELECT_POLICIES = ("Disabled", "Max", "Min")
_POLICY_TYPES = ("Percent", "Pods")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def hpa_errors(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[FieldError]:
    """``validateHorizontalPodAutoscalerSpec`` of a v2-shaped object (``old``: on update)."""
    spec = _dict(obj.get("spec"))
    old_low = _int(_dict((old or {}).get("spec")).get("minReplicas"))
    bound = 0 if old_low == 0 else 1
    errors: list[FieldError] = []
    low, high = _int(spec.get("minReplicas")), _int(spec.get("maxReplicas")) or 0
    if low is not None and low < bound:
        detail = f"must be greater than or equal to {bound}"
        errors.append(FieldError.invalid("spec.minReplicas", low, detail))
    if high < 1:
        errors.append(FieldError.invalid("spec.maxReplicas", high, "must be greater than 0"))
    if low is not None and high < low:
        detail = "must be greater than or equal to `minReplicas`"
        errors.append(FieldError.invalid("spec.maxReplicas", high, detail))
    errors += reference_errors(_dict(spec.get("scaleTargetRef")), "spec.scaleTargetRef")
    errors += _metrics_errors(spec.get("metrics"), low)
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for key in ("scaleUp", "scaleDown"):
            if isinstance(behavior.get(key), dict):
                errors += _rules_errors(behavior[key], f"spec.behavior.{key}")
    return errors


def reference_errors(ref: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidateCrossVersionObjectReference``: a kind and a name, each a path segment."""
    errors: list[FieldError] = []
    for key in ("kind", "name"):
        value = str(ref.get(key) or "")
        if not value:
            errors.append(FieldError.required(f"{path}.{key}"))
        errors += [FieldError.invalid(f"{path}.{key}", value, m) for m in _segment(value)]
    return errors


def _segment(value: str) -> list[str]:
    return path_segment_name(value) if value else []


def _metrics_errors(metrics: Any, low: int | None) -> list[FieldError]:
    metrics = metrics if isinstance(metrics, list) else []
    errors: list[FieldError] = []
    for i, metric in enumerate(metrics):
        errors += _metric_errors(_dict(metric), f"spec.metrics[{i}]")
    kinds = {_dict(m).get("type") for m in metrics}
    if low == 0 and not kinds & {"Object", "External"}:
        detail = (
            "must specify at least one Object or External metric to support scaling to zero "
            "replicas"
        )
        errors.append(FieldError.forbidden("spec.metrics", detail))
    return errors


def _metric_errors(metric: dict[str, Any], path: str) -> list[FieldError]:
    """``validateMetricSpec``: a known type and exactly its source, which is checked."""
    kind = metric.get("type") or ""
    errors: list[FieldError] = []
    if not kind:
        errors.append(FieldError.required(f"{path}.type", "must specify a metric source type"))
    if kind not in _SOURCES:
        errors.append(FieldError.not_supported(f"{path}.type", kind, _SOURCES))
    present = [key for key, _ in _SOURCE_FIELDS if metric.get(key) is not None]
    if present:
        errors += _SOURCE_CHECKS[present[0]](_dict(metric[present[0]]), f"{path}.{present[0]}")
    expected = next((key for key, name in _SOURCE_FIELDS if name == kind), "")
    if not expected:
        errors.append(FieldError.not_supported(f"{path}.type", kind, _SOURCES))
    elif expected not in present:
        detail = "must populate information for the given metric source"
        errors.append(FieldError.required(f"{path}.{expected}", detail))
    if len(present) > 1:
        # Go walks a set here: the order of these few is not fixed; sorted is one of them.
        for key in sorted(k for k in present if k != expected):
            detail = "must populate the given metric source only"
            errors.append(FieldError.forbidden(f"{path}.{key}", detail))
    return errors


def _object_source(source: dict[str, Any], path: str) -> list[FieldError]:
    errors = reference_errors(_dict(source.get("describedObject")), f"{path}.describedObject")
    errors += _identifier_errors(_dict(source.get("metric")), f"{path}.metric")
    target = _dict(source.get("target"))
    errors += _target_errors(target, f"{path}.target")
    if target.get("value") is None and target.get("averageValue") is None:
        detail = "must set either a target value or averageValue"
        errors.append(FieldError.required(f"{path}.target.averageValue", detail))
    return errors


def _external_source(source: dict[str, Any], path: str) -> list[FieldError]:
    errors = _identifier_errors(_dict(source.get("metric")), f"{path}.metric")
    target = _dict(source.get("target"))
    errors += _target_errors(target, f"{path}.target")
    value, average = target.get("value"), target.get("averageValue")
    if value is None and average is None:
        detail = "must set either a target value for metric or a per-pod target"
        errors.append(FieldError.required(f"{path}.target.averageValue", detail))
    if value is not None and average is not None:
        detail = "may not set both a target value for metric and a per-pod target"
        errors.append(FieldError.forbidden(f"{path}.target.value", detail))
    return errors


def _pods_source(source: dict[str, Any], path: str) -> list[FieldError]:
    errors = _identifier_errors(_dict(source.get("metric")), f"{path}.metric")
    target = _dict(source.get("target"))
    errors += _target_errors(target, f"{path}.target")
    if target.get("averageValue") is None:
        detail = "must specify a positive target averageValue"
        errors.append(FieldError.required(f"{path}.target.averageValue", detail))
    return errors


def _resource_source(source: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not source.get("name"):
        errors.append(FieldError.required(f"{path}.name", "must specify a resource name"))
    return errors + _resource_target_errors(_dict(source.get("target")), f"{path}.target")


def _container_resource_source(source: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name, container = str(source.get("name") or ""), str(source.get("container") or "")
    if not name:
        errors.append(FieldError.required(f"{path}.name", "must specify a resource name"))
    else:
        errors += container_resource_name_errors(name, f"{path}.name")
    if not container:
        errors.append(FieldError.required(f"{path}.container", "must specify a container"))
    else:
        where = f"{path}.container"
        errors += [FieldError.invalid(where, container, m) for m in dns1123_label(container)]
    return errors + _resource_target_errors(_dict(source.get("target")), f"{path}.target")


def _resource_target_errors(target: dict[str, Any], path: str) -> list[FieldError]:
    errors = _target_errors(target, path)
    utilization, average = target.get("averageUtilization"), target.get("averageValue")
    if utilization is None and average is None:
        detail = "must set either a target raw value or a target utilization"
        errors.append(FieldError.required(f"{path}.averageUtilization", detail))
    if utilization is not None and average is not None:
        detail = "may not set both a target raw value and a target utilization"
        errors.append(FieldError.forbidden(f"{path}.averageValue", detail))
    return errors


_SOURCE_CHECKS = {
    "object": _object_source,
    "external": _external_source,
    "pods": _pods_source,
    "resource": _resource_source,
    "containerResource": _container_resource_source,
}


def _target_errors(target: dict[str, Any], path: str) -> list[FieldError]:
    """``validateMetricTarget``."""
    kind = target.get("type") or ""
    errors: list[FieldError] = []
    if not kind:
        errors.append(FieldError.required(f"{path}.type", "must specify a metric target type"))
    if kind not in ("Utilization", "Value", "AverageValue"):
        detail = "must be either Utilization, Value, or AverageValue"
        errors.append(FieldError.invalid(f"{path}.type", kind, detail))
    for key in ("value", "averageValue"):
        text = target.get(key)
        amount = quantity_value(text) if text is not None else None
        if amount is not None and amount <= 0:
            errors.append(
                FieldError.invalid(f"{path}.{key}", go_quantity(str(text)), "must be positive")
            )
    utilization = _int(target.get("averageUtilization"))
    if utilization is not None and utilization < 1:
        detail = "must be greater than 0"
        errors.append(FieldError.invalid(f"{path}.averageUtilization", utilization, detail))
    return errors


def _identifier_errors(metric: dict[str, Any], path: str) -> list[FieldError]:
    name = str(metric.get("name") or "")
    if not name:
        return [FieldError.required(f"{path}.name", "must specify a metric name")]
    return [FieldError.invalid(f"{path}.name", name, m) for m in path_segment_name(name)]


def _rules_errors(rules: dict[str, Any], path: str) -> list[FieldError]:
    """``validateScalingRules``: a window of 0-3600 s, a select policy, some policies."""
    errors: list[FieldError] = []
    window = _int(rules.get("stabilizationWindowSeconds"))
    where = f"{path}.stabilizationWindowSeconds"
    if window is not None and window < 0:
        errors.append(FieldError.invalid(where, window, "must be greater than or equal to zero"))
    if window is not None and window > _MAX_WINDOW:
        detail = f"must be less than or equal to {_MAX_WINDOW}"
        errors.append(FieldError.invalid(where, window, detail))
    select = rules.get("selectPolicy")
    if select is not None and select not in _SELECT_POLICIES:
        errors.append(FieldError.not_supported(f"{path}.selectPolicy", select, _SELECT_POLICIES))
    policies = rules.get("policies")
    policies = policies if isinstance(policies, list) else []
    if not policies:
        errors.append(FieldError.required(f"{path}.policies", "must specify at least one Policy"))
    for i, policy in enumerate(policies):
        errors += _policy_errors(_dict(policy), f"{path}.policies[{i}]")
    return errors


def _policy_errors(policy: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = policy.get("type") or ""
    if kind not in _POLICY_TYPES:
        errors.append(FieldError.not_supported(f"{path}.type", kind, _POLICY_TYPES))
    value, period = _int(policy.get("value")) or 0, _int(policy.get("periodSeconds")) or 0
    if value <= 0:
        errors.append(FieldError.invalid(f"{path}.value", value, "must be greater than zero"))
    if period <= 0:
        errors.append(
            FieldError.invalid(f"{path}.periodSeconds", period, "must be greater than zero")
        )
    if period > _MAX_PERIOD:
        detail = f"must be less than or equal to {_MAX_PERIOD}"
        errors.append(FieldError.invalid(f"{path}.periodSeconds", period, detail))
    return errors


def hpa_status_errors(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateHorizontalPodAutoscalerStatusUpdate``: replica counts not negative."""
    status = _dict(obj.get("status"))
    errors: list[FieldError] = []
    for key in ("currentReplicas", "desiredReplicas"):
        count = _int(status.get(key)) or 0
        if count < 0:
            detail = "must be greater than or equal to 0"
            errors.append(FieldError.invalid(f"status.{key}", count, detail))
    return errors
