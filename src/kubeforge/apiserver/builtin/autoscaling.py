"""HorizontalPodAutoscalers: stored as ``autoscaling/v2``, served as v2 and as v1.

v2 objects are defaulted as ``pkg/apis/autoscaling/v2`` does it (``minReplicas`` 1, a
CPU utilization target of 80% when no metric is given, the documented scaling
behavior when ``behavior`` is set). ``autoscaling/v1`` (what ``kubectl autoscale``
posts) is the same objects converted: ``targetCPUUtilizationPercentage`` is the v2
CPU utilization metric and ``currentCPUUtilizationPercentage`` its current value.
Metrics v1 cannot express are not shown through v1, and a v1 write keeps only the CPU
target (the real server stashes the others in annotations; this one does not).

Validation is ``hpa_rules``' (on the v2 shape, whichever version was written).

Entry point: ``KINDS``, the group's kinds with their strategies.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.hpa_rules import hpa_errors, hpa_status_errors
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import NONE, UNSET, created, dict_at, integer, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns
from kubeforge.apiserver.registry.served import Representation

__all__ = [
    "KINDS",
    "HpaV1Representation",
    "HpaV1Strategy",
    "HpaV2Strategy",
]

_V1, _V2 = "autoscaling/v1", "autoscaling/v2"
_DEFAULT_CPU = 80


def _fill(rules: dict[str, Any], defaults: dict[str, Any]) -> None:
    """``copyHPAScalingRules``: each unset (nil) field takes the default; an empty policy
    list is kept (and refused by validation)."""
    for key, value in defaults.items():
        if rules.get(key) is None:
            rules[key] = copy.deepcopy(value)


def _scale_up_defaults(rules: dict[str, Any]) -> None:
    _fill(
        rules,
        {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        },
    )


def _scale_down_defaults(rules: dict[str, Any]) -> None:
    # No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-
    # stabilization (300 s) applies when it is unset.
    _fill(
        rules,
        {
            "selectPolicy": "Max",
            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
        },
    )


def _cpu_metric(percent: Any) -> dict[str, Any]:
    return {
        "type": "Resource",
        "resource": {
            "name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": percent},
        },
    }


def default_v2(obj: dict[str, Any]) -> None:
    """``SetDefaults_HorizontalPodAutoscaler`` (v2)."""
    spec = spec_of(obj)
    if spec is None:
        return
    spec.setdefault("minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [_cpu_metric(_DEFAULT_CPU)]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for key, fill in (("scaleUp", _scale_up_defaults), ("scaleDown", _scale_down_defaults)):
            rules = behavior.get(key)
            if not isinstance(rules, dict):
                rules = behavior[key] = {}
            fill(rules)


class HpaV2Strategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"desiredReplicas": 0}

    def default(self, obj: dict[str, Any]) -> None:
        default_v2(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return hpa_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return hpa_errors(new, old)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return hpa_status_errors(new)


def _cpu_target(metrics: Any) -> Any:
    for metric in metrics or []:
        resource = metric.get("resource") if isinstance(metric, dict) else None
        if metric.get("type") == "Resource" and isinstance(resource, dict):
            target = resource.get("target") or {}
            if resource.get("name") == "cpu" and target.get("type") == "Utilization":
                return target.get("averageUtilization")
    return None


def _cpu_current(metrics: Any) -> Any:
    for metric in metrics or []:
        resource = metric.get("resource") if isinstance(metric, dict) else None
        if not isinstance(resource, dict) or metric.get("type") != "Resource":
            continue
        if resource.get("name") == "cpu":
            return (resource.get("current") or {}).get("averageUtilization")
    return None


def to_v1(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored (v2) HorizontalPodAutoscaler as ``autoscaling/v1`` shows it."""
    out: dict[str, Any] = {"apiVersion": _V1, "kind": stored.get("kind", "HorizontalPodAutoscaler")}
    out["metadata"] = copy.deepcopy(stored.get("metadata") or {})
    spec = stored.get("spec")
    if isinstance(spec, dict):
        new_spec = {
            k: copy.deepcopy(spec[k])
            for k in ("scaleTargetRef", "minReplicas", "maxReplicas")
            if k in spec
        }
        cpu = _cpu_target(spec.get("metrics"))
        if cpu is not None:
            new_spec["targetCPUUtilizationPercentage"] = cpu
        out["spec"] = new_spec
    status = stored.get("status")
    if isinstance(status, dict):
        new_status = {
            k: copy.deepcopy(status[k])
            for k in ("observedGeneration", "lastScaleTime")
            if k in status
        }
        new_status["currentReplicas"] = status.get("currentReplicas", 0)
        new_status["desiredReplicas"] = status.get("desiredReplicas", 0)
        current = _cpu_current(status.get("currentMetrics"))
        if current is not None:
            new_status["currentCPUUtilizationPercentage"] = current
        out["status"] = new_status
    return out


def to_v2(served: dict[str, Any]) -> dict[str, Any]:
    """An ``autoscaling/v1`` HorizontalPodAutoscaler in its stored (v2) form, defaulted."""
    out: dict[str, Any] = {"apiVersion": _V2, "kind": served.get("kind", "HorizontalPodAutoscaler")}
    out["metadata"] = served.get("metadata") or {}
    spec = served.get("spec")
    if isinstance(spec, dict):
        new_spec = {k: v for k, v in spec.items() if k != "targetCPUUtilizationPercentage"}
        cpu = spec.get("targetCPUUtilizationPercentage")
        if cpu is not None:
            new_spec["metrics"] = [_cpu_metric(cpu)]
        out["spec"] = new_spec
    status = served.get("status")
    if isinstance(status, dict):
        new_status = {
            k: v
            for k, v in status.items()
            if k != "currentCPUUtilizationPercentage" and not (k == "currentReplicas" and v == 0)
        }
        current = status.get("currentCPUUtilizationPercentage")
        if current is not None:
            new_status["currentMetrics"] = [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "current": {"averageUtilization": current}},
                }
            ]
        out["status"] = new_status
    default_v2(out)
    return out


@dataclass(frozen=True)
class HpaV1Representation(Representation):
    """``autoscaling/v1`` over the stored v2 objects."""

    def to_served(self, stored: dict[str, Any]) -> dict[str, Any]:
        return stored if stored.get("apiVersion") == _V1 else to_v1(stored)

    def to_stored(self, served: dict[str, Any]) -> dict[str, Any]:
        return served if served.get("apiVersion") == _V2 else to_v2(served)


class HpaV1Strategy(CatalogStrategy):
    """v1 rules; objects are read as v1 (``on_read``) so every write path compares v1 to v1."""

    empty_status: ClassVar[dict[str, Any]] = {"currentReplicas": 0, "desiredReplicas": 0}

    def on_read(self, obj: dict[str, Any]) -> dict[str, Any]:
        return to_v1(obj) if obj.get("apiVersion") == _V2 else obj

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None:
            spec.setdefault("minReplicas", 1)

    # Go validates the internal (v2-shaped) object a v1 write converts to.
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return hpa_errors(to_v2(obj))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return hpa_errors(to_v2(new), old)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return hpa_status_errors(new)


_HPA = "horizontalpodautoscalers"


def _hpa_v1_targets(spec: dict[str, Any], status: dict[str, Any]) -> str:
    current = status.get("currentCPUUtilizationPercentage")
    shown = f"{current}%" if isinstance(current, int) else "<unknown>"
    target = spec.get("targetCPUUtilizationPercentage")
    return f"cpu: {shown}/{target}%" if isinstance(target, int) else "<none>"


def _metric_cell(metric: dict[str, Any], current: dict[str, Any]) -> str:
    """One metric as ``current/target`` (a percentage for a utilization target)."""
    kind = str(metric.get("type") or "")
    source = dict_at(metric, kind[:1].lower() + kind[1:])
    target = dict_at(source, "target")
    now_value = dict_at(current, kind[:1].lower() + kind[1:], "current")
    if target.get("averageUtilization") is not None:
        have = now_value.get("averageUtilization")
        shown = f"{have}%" if have is not None else "<unknown>"
        cell = f"{shown}/{target['averageUtilization']}%"
    else:
        want = target.get("averageValue") or target.get("value") or "<auto>"
        have = now_value.get("averageValue") or now_value.get("value") or "<unknown>"
        cell = f"{have}/{want}"
    name = source.get("name") if kind in ("Resource", "ContainerResource") else None
    return f"{name}: {cell}" if name else cell


def _hpa_targets(obj: dict[str, Any]) -> str:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    if "targetCPUUtilizationPercentage" in spec or "metrics" not in spec:  # autoscaling/v1
        return _hpa_v1_targets(spec, status)
    metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
    statuses = status.get("currentMetrics") or []
    cells = [
        _metric_cell(metric, statuses[i] if i < len(statuses) else {})
        for i, metric in enumerate(metrics)
    ]
    return ", ".join(cells) or NONE


def _hpa_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    ref = dict_at(spec, "scaleTargetRef")
    low = spec.get("minReplicas")
    return [
        name_of(obj),
        f"{ref.get('kind', '')}/{ref.get('name', '')}",
        _hpa_targets(obj),
        str(low) if isinstance(low, int) else UNSET,
        str(integer(spec.get("maxReplicas"))),
        str(integer(status.get("currentReplicas"))),
        created(obj, now),
    ]


_HPA_PRINTER = Printer(
    (
        *simple_columns(
            ("Reference", "string", "The scaled workload."),
            ("Targets", "string", "Current and target value of each metric."),
            ("MinPods", "string", "Lower replica limit."),
            ("MaxPods", "string", "Upper replica limit."),
            ("Replicas", "string", "Current replicas."),
        ),
        AGE_COLUMN,
    ),
    _hpa_row,
)

KINDS = (
    Kind(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        _HPA,
        short=("hpa",),
        subresources=STATUS,
        categories=("all",),
        strategy=HpaV2Strategy,
        printer=_HPA_PRINTER,
    ),
    # v2 is stored; v1 is the same objects, converted.
    Kind(
        "autoscaling",
        "v1",
        "HorizontalPodAutoscaler",
        _HPA,
        short=("hpa",),
        subresources=STATUS,
        categories=("all",),
        storage=False,
        strategy=HpaV1Strategy,
        representation=HpaV1Representation(("autoscaling", _HPA), _V1, "HorizontalPodAutoscaler"),
        printer=_HPA_PRINTER,
    ),
)
"""The autoscaling kinds: HorizontalPodAutoscaler at v2 and v1."""
