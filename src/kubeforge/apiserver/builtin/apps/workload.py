"""What every ``apps/v1`` workload shares: the pod template's defaults, the selector and
template rules, a generation that moves on spec changes, and a status written only
through ``/status``.

The rules are ``pkg/apis/apps/v1`` defaults and ``pkg/apis/apps/validation`` of
Kubernetes 1.32. The simulated controllers (``controllers``) act on the workloads; with
those off (``--controllers=-*``), a status changes only when a client writes ``/status``,
exactly as under envtest.

Entry points: ``WorkloadStrategy`` (subclassed per kind in ``deployments`` and ``sets``),
``default_pod_template(template)`` (also used by batch and ReplicationControllers).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.podspec.defaults import default_pod_spec
from kubeforge.apiserver.builtin.podspec.prepare import drop_disabled
from kubeforge.apiserver.builtin.podspec.template_warnings import (
    POD_NAMES,
    generation_moved,
    template_create_warnings,
    template_update_warnings,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import selector_matches, validate_selector
from kubeforge.apiserver.registry.scale import ScalePaths
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = [
    "SCALE",
    "WorkloadStrategy",
    "default_pod_template",
    "default_rolling_update",
    "int_field",
    "int_or_percent",
    "is_zero",
    "rolling_update_errors",
]

_PERCENT = re.compile(r"[0-9]+%")
SCALE = ScalePaths(".spec.replicas", ".status.replicas", ".spec.selector")
_TEMPLATE = ("spec", "template")


def default_pod_template(template: Any) -> None:
    """``SetDefaults_PodSpec`` on a pod template (pod-only defaults such as priority stay off)."""
    if not isinstance(template, dict):
        return
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return
    default_pod_spec(spec)
    drop_disabled(spec, None)  # DropDisabledTemplateFields: 1.32's gated-off fields


def int_field(value: Any, field: str, *, minimum: int = 0) -> list[FieldError]:
    if value is None:
        return []
    if not isinstance(value, int) or isinstance(value, bool):
        return [FieldError("Invalid", field, "must be an integer", value)]
    if value < minimum:
        return [FieldError("Invalid", field, f"must be greater than or equal to {minimum}", value)]
    return []


def default_rolling_update(spec: dict[str, Any], field: str, defaults: dict[str, Any]) -> None:
    """``spec[field]`` defaulted to a ``RollingUpdate`` with ``defaults`` in its
    ``rollingUpdate`` (Deployments' ``strategy``, the sets' ``updateStrategy``)."""
    strategy = spec.get(field)
    if not isinstance(strategy, dict):
        strategy = spec[field] = {}
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        for key, value in defaults.items():
            rolling.setdefault(key, value)


def rolling_update_errors(rolling: dict[str, Any], path: str) -> list[FieldError]:
    """``maxUnavailable``/``maxSurge`` of a rolling update (Deployments and DaemonSets):
    each an integer or a percentage, and not both zero."""
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errors = int_or_percent(unavailable, f"{path}.maxUnavailable")
    errors += int_or_percent(surge, f"{path}.maxSurge")
    if is_zero(unavailable) and is_zero(surge):
        message = "may not be 0 when `maxSurge` is 0"
        errors.append(FieldError("Invalid", f"{path}.maxUnavailable", message, unavailable))
    return errors


def int_or_percent(value: Any, field: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` plus ``IsNotMoreThan100Percent``."""
    if isinstance(value, str):
        if not _PERCENT.fullmatch(value):
            return [
                FieldError(
                    "Invalid",
                    field,
                    "a valid percent string must be a numeric string followed by an ending '%' "
                    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
                    value,
                )
            ]
        if int(value[:-1]) > 100:
            return [FieldError("Invalid", field, "must not be greater than 100%", value)]
        return []
    return int_field(value, field)


def is_zero(value: Any) -> bool:
    return value in (0, "0%")


class WorkloadStrategy(Strategy):
    """What every apps/v1 workload shares: selector, template, status and generation rules."""

    has_generation = True
    status_subresource = True
    top_level_fields: tuple[str, ...] | None = ("spec", "status")
    empty_status: ClassVar[dict[str, Any]] = {}
    """The status a new object gets: the Go status struct with its non-omitempty fields."""
    restart_policies: ClassVar[tuple[str, ...]] = ("Always",)
    immutable_selector = True
    name_warning: ClassVar[str | None] = POD_NAMES
    """How ``WarningsOnCreate`` words a name that is no DNS label (None: it does not)."""

    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        self._pods = PodStrategy(served)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["status"] = dict(self.empty_status)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            self.default_spec(spec)
            default_pod_template(spec.get("template"))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        spec = new.get("spec")
        if isinstance(spec, dict):
            self.default_spec(spec)
            default_pod_template(spec.get("template"))

    def default_spec(self, spec: dict[str, Any]) -> None:
        """The kind's own ``SetDefaults_*`` (replicas, strategy, history limit ...)."""

    # --- validation -------------------------------------------------------------------------

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return [FieldError("Required", "spec.selector")]
        errors = int_field(spec.get("replicas"), "spec.replicas")
        errors += int_field(spec.get("minReadySeconds"), "spec.minReadySeconds")
        errors += int_field(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
        errors += self._validate_selector_and_template(spec)
        errors += self.validate_spec(spec)
        return errors

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        """Kind-specific rules (strategies, policies)."""
        return []

    def _validate_selector_and_template(self, spec: dict[str, Any]) -> list[FieldError]:
        selector = spec.get("selector")
        template = spec.get("template")
        errors: list[FieldError] = []
        if selector is None:
            errors.append(FieldError("Required", "spec.selector"))
        else:
            errors += validate_selector(selector, "spec.selector")
            if not errors and not (selector.get("matchLabels") or selector.get("matchExpressions")):
                errors.append(
                    FieldError(
                        "Invalid",
                        "spec.selector",
                        f"empty selector is invalid for {self.kind.lower()}",
                        selector,
                    )
                )
        if not isinstance(template, dict):
            errors.append(FieldError("Required", "spec.template"))
            return errors
        labels = (template.get("metadata") or {}).get("labels") or {}
        if selector is not None and not errors and not selector_matches(selector, labels):
            errors.append(
                FieldError(
                    "Invalid",
                    "spec.template.metadata.labels",
                    "`selector` does not match template `labels`",
                    labels,
                )
            )
        pod = {"metadata": template.get("metadata") or {}, "spec": template.get("spec")}
        for error in self._pods.validate(pod):
            if error.field == "spec.restartPolicy":
                continue  # replaced by the workload's own rule below
            errors.append(dataclasses.replace(error, field=f"spec.template.{error.field}"))
        policy = (template.get("spec") or {}).get("restartPolicy")
        if policy not in self.restart_policies:
            errors.append(
                FieldError.not_supported(
                    "spec.template.spec.restartPolicy", policy, self.restart_policies
                )
            )
        if (template.get("spec") or {}).get("activeDeadlineSeconds") is not None:
            errors.append(
                FieldError(
                    "Forbidden",
                    "spec.template.spec.activeDeadlineSeconds",
                    "activeDeadlineSeconds in ReplicaSet is not Supported",
                )
            )
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        new_selector = (new.get("spec") or {}).get("selector")
        if self.immutable_selector and new_selector != (old.get("spec") or {}).get("selector"):
            errors.append(
                FieldError("Invalid", "spec.selector", "field is immutable", new_selector)
            )
        return errors

    # --- warnings ---------------------------------------------------------------------------

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return template_create_warnings(obj, _TEMPLATE, self.name_warning)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return template_update_warnings(new, old, _TEMPLATE, self.template_moved(new, old))

    def template_moved(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """Whether an update's template warnings are due: Go asks whether the generation
        moved (any spec change)."""
        return generation_moved(new, old)
