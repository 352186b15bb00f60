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
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.govalues import go_label_selector, go_string_map
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
from kubeforge.apiserver.meta.validation import validate_object_meta
from kubeforge.apiserver.registry.scale import ScalePaths
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = [
    "SCALE",
    "WorkloadStrategy",
    "default_pod_template",
    "default_rolling_update",
    "int_field",
    "labels_mismatch",
    "selector_errors",
    "selector_usable",
]

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
    """``ValidateNonnegativeField`` of an optional integer (the decoder refused other types)."""
    if not isinstance(value, int) or isinstance(value, bool) or value >= minimum:
        return []
    return [FieldError.invalid(field, value, f"must be greater than or equal to {minimum}")]


def default_rolling_update(spec: dict[str, Any], field: str, defaults: dict[str, Any]) -> None:
    """``spec[field]`` defaulted to a ``RollingUpdate`` with ``defaults`` in its
    ``rollingUpdate`` (Deployments' ``strategy``, DaemonSets' ``updateStrategy``)."""
    strategy = spec.get(field)
    if not isinstance(strategy, dict):
        strategy = spec[field] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        for key, value in defaults.items():
            if rolling.get(key) is None:
                rolling[key] = value


def selector_errors(selector: Any, word: str) -> list[FieldError]:
    """A required, valid, non-empty ``spec.selector`` (``word`` names the kind in Go's
    "empty selector is invalid for ..."; a ReplicaSet's says "deployment")."""
    if selector is None:
        return [FieldError.required("spec.selector")]
    errors = validate_selector(selector, "spec.selector", check_values=True)
    if isinstance(selector, dict) and not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        detail = f"empty selector is invalid for {word}"
        errors.append(FieldError.invalid("spec.selector", go_label_selector(selector), detail))
    return errors


def selector_usable(selector: Any) -> bool:
    """Whether ``LabelSelectorAsSelector`` takes the selector (a missing one selects nothing)."""
    return not validate_selector(selector, "", check_values=True)


def template_meta_errors(meta: dict[str, Any]) -> list[FieldError]:
    """``ValidateLabels``/``ValidateAnnotations`` of a pod template's metadata, at
    ``spec.template.labels`` and ``spec.template.annotations`` (Go's paths: no "metadata")."""
    # A named, cluster-scoped stand-in: only the labels and annotations can be faulted.
    only = {"name": "t", "labels": meta.get("labels"), "annotations": meta.get("annotations")}
    errors = validate_object_meta(only, namespaced=False, name_validator=lambda _: [])
    return [
        dataclasses.replace(error, field=error.field.replace("metadata.", "spec.template.", 1))
        for error in errors
    ]


def labels_mismatch(selector: Any, template: dict[str, Any]) -> list[FieldError]:
    """The template's labels as the selector must match them; a missing selector matches
    nothing and an empty one everything."""
    labels = (template.get("metadata") or {}).get("labels")
    if selector_matches(selector, labels or {}) if selector is not None else False:
        return []
    detail = "`selector` does not match template `labels`"
    return [FieldError.invalid("spec.template.metadata.labels", go_string_map(labels), detail)]


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

    template_is_pointer = False
    """Whether the Go spec holds its template by pointer (a ReplicationController's), so a
    missing one stays missing rather than being defaulted as an empty template."""

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["status"] = dict(self.empty_status)
        self._default(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self._default(new)

    def _default(self, obj: dict[str, Any]) -> None:
        """The kind's defaults on its spec and pod template. Go defaults the zero values of
        a missing spec and template too, so a workload without them is refused for what it
        lacks (containers, a selector), not for unset defaults such as its restart policy."""
        if obj.get("spec") is None:
            obj["spec"] = {}
        spec = obj["spec"]
        if not isinstance(spec, dict):
            return
        self.default_spec(spec)
        if spec.get("template") is None and not self.template_is_pointer:
            spec["template"] = {}
        template = spec.get("template")
        if isinstance(template, dict) and template.get("spec") is None:
            template["spec"] = {}
        default_pod_template(template)

    def default_spec(self, spec: dict[str, Any]) -> None:
        """The kind's own ``SetDefaults_*`` (replicas, strategy, history limit ...)."""

    # --- validation -------------------------------------------------------------------------

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec")
        return self.validate_spec(spec if isinstance(spec, dict) else {})

    def validate_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        """The kind's ``Validate*Spec``, in Go's order."""
        return []

    def replica_set_template_errors(self, spec: dict[str, Any]) -> list[FieldError]:
        """``ValidatePodTemplateSpecForReplicaSet`` after ``LabelSelectorAsSelector``: a
        selector it cannot read is "invalid label selector" and the template goes unchecked."""
        selector = spec.get("selector")
        if not selector_usable(selector):
            shown = go_label_selector(selector)
            return [FieldError.invalid("spec.selector", shown, "invalid label selector")]
        template = spec.get("template")
        template = template if isinstance(template, dict) else {}
        return labels_mismatch(selector, template) + self.pod_template_errors(template)

    def pod_template_errors(self, template: dict[str, Any]) -> list[FieldError]:
        """``ValidatePodTemplateSpec`` then the workload's own restart policy and
        ``activeDeadlineSeconds`` rules."""
        meta = template.get("metadata") or {}
        errors = template_meta_errors(meta)
        pod = {"metadata": meta, "spec": template.get("spec")}
        errors += [
            dataclasses.replace(error, field=f"spec.template.{error.field}")
            for error in self._pods.validate(pod)
            if error.field != "spec.restartPolicy"  # replaced by the workload's own rule below
        ]
        return errors + self.restart_and_deadline_errors(template)

    def restart_and_deadline_errors(self, template: dict[str, Any]) -> list[FieldError]:
        pod_spec = template.get("spec")
        pod_spec = pod_spec if isinstance(pod_spec, dict) else {}
        errors: list[FieldError] = []
        policy = pod_spec.get("restartPolicy")
        if policy not in self.restart_policies:
            at = "spec.template.spec.restartPolicy"
            errors.append(FieldError.not_supported(at, policy or "", self.restart_policies))
        if pod_spec.get("activeDeadlineSeconds") is not None:
            at = "spec.template.spec.activeDeadlineSeconds"
            errors.append(
                FieldError.forbidden(at, f"activeDeadlineSeconds in {self.kind} is not Supported")
            )
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        new_selector = (new.get("spec") or {}).get("selector")
        if self.immutable_selector and new_selector != (old.get("spec") or {}).get("selector"):
            shown = go_label_selector(new_selector)
            errors.append(FieldError.invalid("spec.selector", shown, "field is immutable"))
        return errors

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """The status strategy's ``ValidateUpdate``: the status alone is checked."""
        return self.status_errors(new, old)

    def status_errors(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """The kind's ``Validate*StatusUpdate`` (``status_rules``)."""
        return []

    # --- warnings ---------------------------------------------------------------------------

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return template_create_warnings(obj, _TEMPLATE, self.name_warning)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return template_update_warnings(new, old, _TEMPLATE, self.template_moved(new, old))

    def template_moved(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """Whether an update's template warnings are due: Go asks whether the generation
        moved (any spec change)."""
        return generation_moved(new, old)
