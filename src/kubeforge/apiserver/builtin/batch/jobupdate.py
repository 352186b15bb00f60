"""What a Job update may change, as 1.32's ``ValidateJobSpecUpdate`` decides: the spec is
valid again, ``completions`` changes only for an Indexed Job and only with
``parallelism`` (elastic Indexed Jobs are GA), and the selector, the pod template, the
completion mode, the pod failure policy, ``backoffLimitPerIndex``, ``managedBy`` and the
success policy are immutable, except that a Job suspended and never started may change
its template's scheduling directives (node affinity, node selector, tolerations, labels,
annotations, scheduling gates).

Entry point: ``job_update_errors(pods, new, old)``.
"""

from __future__ import annotations

import copy
from typing import Any

from kubeforge.apiserver.builtin.batch.jobspec import (
    go_label_selector,
    job_selector_errors,
    job_spec_errors,
)
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.failures import FieldError

__all__ = ["job_update_errors", "semantic"]

_IMMUTABLE = "field is immutable"
_LATER_IMMUTABLE = (
    "completionMode",
    "podFailurePolicy",
    "backoffLimitPerIndex",
    "managedBy",
    "successPolicy",
)


def semantic(value: Any) -> Any:
    """``value`` as ``apiequality.Semantic`` compares it: a null, empty list or empty map
    equals an absent one."""
    if isinstance(value, dict):
        kept = {k: semantic(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [semantic(v) for v in value]
    return value


def _put(parent: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        parent.pop(key, None)
    else:
        parent[key] = copy.deepcopy(value)


def _allow_scheduling_changes(template: dict[str, Any], before: dict[str, Any]) -> None:
    """Make ``before`` take ``template``'s mutable scheduling directives (in place)."""
    spec, old_spec = template.get("spec") or {}, before.setdefault("spec", {})
    meta, old_meta = template.get("metadata") or {}, before.setdefault("metadata", {})
    affinity, old_affinity = spec.get("affinity"), old_spec.get("affinity")
    if affinity is None and old_affinity is not None:
        old_affinity.pop("nodeAffinity", None)
        if not semantic(old_affinity):
            old_spec.pop("affinity", None)
    elif affinity is not None and old_affinity is None:
        node = affinity.get("nodeAffinity")
        old_spec["affinity"] = {} if node is None else {"nodeAffinity": copy.deepcopy(node)}
    elif affinity is not None and old_affinity is not None:
        _put(old_affinity, "nodeAffinity", affinity.get("nodeAffinity"))
    for key in ("nodeSelector", "tolerations", "schedulingGates"):
        _put(old_spec, key, spec.get(key))
    for key in ("annotations", "labels"):
        _put(old_meta, key, meta.get(key))


def _template_errors(
    spec: dict[str, Any], old_spec: dict[str, Any], allow: bool
) -> list[FieldError]:
    """``validatePodTemplateUpdate``."""
    template = spec.get("template") or {}
    before = copy.deepcopy(old_spec.get("template") or {})
    if allow:
        _allow_scheduling_changes(template, before)
    if semantic(template) != semantic(before):
        return [FieldError.invalid("spec.template", template, _IMMUTABLE)]
    return []


def _completions_errors(spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    """``validateCompletions`` with elastic Indexed Jobs allowed."""
    completions = spec.get("completions")
    if completions == old_spec.get("completions"):
        return []
    if spec.get("completionMode") != "Indexed":
        return [FieldError.invalid("spec.completions", completions, _IMMUTABLE)]
    if completions is None or completions == spec.get("parallelism"):
        return []
    detail = "can only be modified in tandem with spec.parallelism"
    return [FieldError.invalid("spec.completions", completions, detail)]


def job_update_errors(
    pods: PodStrategy, new: dict[str, Any], old: dict[str, Any]
) -> list[FieldError]:
    """``ValidateJobSpecUpdate``: the spec's rules again, then what may not change."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    errors = job_spec_errors(pods, spec, "spec") + job_selector_errors(spec, "spec")
    errors += _completions_errors(spec, old_spec)
    if semantic(spec.get("selector")) != semantic(old_spec.get("selector")):
        shown = go_label_selector(spec.get("selector"))
        errors.append(FieldError.invalid("spec.selector", shown, _IMMUTABLE))
    suspended = old_spec.get("suspend") is True
    never_started = (old.get("status") or {}).get("startTime") is None
    errors += _template_errors(spec, old_spec, suspended and never_started)
    for key in _LATER_IMMUTABLE:
        if semantic(spec.get(key)) != semantic(old_spec.get(key)):
            errors.append(FieldError.invalid(f"spec.{key}", spec.get(key), _IMMUTABLE))
    return errors
