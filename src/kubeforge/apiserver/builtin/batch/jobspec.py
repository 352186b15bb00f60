"""A Job's spec (and a CronJob's job template) checked as 1.32's ``validateJobSpec`` and
``ValidateJobSpec`` check it, in Go's order and words.

Counts are non-negative; ``maxFailedIndexes`` needs ``backoffLimitPerIndex``; ``managedBy``
is a domain-prefixed path of at most 63 bytes; ``completionMode`` is NonIndexed or Indexed,
and Indexed needs ``completions``, keeps parallelism and ``maxFailedIndexes`` to 100,000
(10,000 above 100,000 completions with ``backoffLimitPerIndex``, when
``maxFailedIndexes`` is also required); the per-index fields and ``successPolicy`` need
Indexed; the pod failure and success policies (``failurepolicy``), the pod replacement
policy, the pod template and its restart policy (OnFailure or Never; Never with a pod
failure policy); then the selector and that it matches the template's labels.

Entry points: ``job_spec_errors(pods, spec, path)`` (``validateJobSpec``) and
``job_selector_errors(spec, path)`` (the rest of ``ValidateJobSpec``).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from kubeforge.apiserver.builtin.batch.failurepolicy import (
    failure_policy_errors,
    non_negative,
    success_policy_errors,
)
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.govalues import go_label_selector, go_string_map
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import selector_matches, validate_selector
from kubeforge.core.names import dns1123_subdomain, regex_error

__all__ = ["go_label_selector", "go_string_map", "job_selector_errors", "job_spec_errors"]

_COUNTS = (
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "backoffLimitPerIndex",
)
_MODES = ("NonIndexed", "Indexed")
_REPLACEMENT = ("Failed", "TerminatingOrFailed")
_RESTART = ("OnFailure", "Never")
_MAX_INDEXED_PARALLELISM = 100_000
_MAX_FAILED_INDEXES = 100_000
_COMPLETIONS_SOFT_LIMIT = 100_000
_HIGH_COMPLETIONS_LIMIT = 10_000
_MAX_MANAGED_BY = 63
_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH = re.compile(_HTTP_PATH_FMT)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """apimachinery's ``IsDomainPrefixedPath``."""
    if not value:
        return [FieldError.required(path)]
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        detail = 'must be a domain-prefixed path (such as "acme.io/foo")'
        return [FieldError.invalid(path, value, detail)]
    errors = [FieldError.invalid(path, host, message) for message in dns1123_subdomain(host)]
    if not _HTTP_PATH.fullmatch(rest):
        errors.append(FieldError.invalid(path, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errors


def _managed_by_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    managed = spec.get("managedBy")
    if managed is None:
        return []
    errors = _domain_prefixed_path(f"{path}.managedBy", str(managed))
    if len(str(managed).encode()) > _MAX_MANAGED_BY:
        errors.append(FieldError.too_long(f"{path}.managedBy", "", _MAX_MANAGED_BY))
    return errors


def _indexed_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    """The rules ``completionMode: Indexed`` adds."""
    errors: list[FieldError] = []
    completions, parallelism = _int(spec.get("completions")), _int(spec.get("parallelism"))
    per_index = spec.get("backoffLimitPerIndex")
    max_failed = _int(spec.get("maxFailedIndexes"))
    if spec.get("completions") is None:
        errors.append(FieldError.required(f"{path}.completions", "when completion mode is Indexed"))
    if parallelism is not None and parallelism > _MAX_INDEXED_PARALLELISM:
        limit = _MAX_INDEXED_PARALLELISM
        detail = f"must be less than or equal to {limit} when completion mode is Indexed"
        errors.append(FieldError.invalid(f"{path}.parallelism", parallelism, detail))
    if completions is not None and max_failed is not None and max_failed > completions:
        detail = "must be less than or equal to completions"
        errors.append(FieldError.invalid(f"{path}.maxFailedIndexes", max_failed, detail))
    if max_failed is not None and max_failed > _MAX_FAILED_INDEXES:
        detail = f"must be less than or equal to {_MAX_FAILED_INDEXES}"
        errors.append(FieldError.invalid(f"{path}.maxFailedIndexes", max_failed, detail))
    if completions is not None and completions > _COMPLETIONS_SOFT_LIMIT and per_index is not None:
        high = (
            f"when completions are above {_COMPLETIONS_SOFT_LIMIT} "
            "and used with backoff limit per index"
        )
        if spec.get("maxFailedIndexes") is None:
            detail = f"must be specified when completions is above {_COMPLETIONS_SOFT_LIMIT}"
            errors.append(FieldError.required(f"{path}.maxFailedIndexes", detail))
        if parallelism is not None and parallelism > _HIGH_COMPLETIONS_LIMIT:
            detail = f"must be less than or equal to {_HIGH_COMPLETIONS_LIMIT} {high}"
            errors.append(FieldError.invalid(f"{path}.parallelism", parallelism, detail))
        if max_failed is not None and max_failed > _HIGH_COMPLETIONS_LIMIT:
            detail = f"must be less than or equal to {_HIGH_COMPLETIONS_LIMIT} {high}"
            errors.append(FieldError.invalid(f"{path}.maxFailedIndexes", max_failed, detail))
    return errors


def _mode_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    mode = spec.get("completionMode")
    if mode is not None:
        if mode not in _MODES:
            errors.append(FieldError.not_supported(f"{path}.completionMode", mode, _MODES))
        if mode == "Indexed":
            errors += _indexed_errors(spec, path)
    if mode is None or mode == "NonIndexed":
        for key in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if spec.get(key) is not None:
                detail = "requires indexed completion mode"
                errors.append(FieldError.invalid(f"{path}.{key}", spec[key], detail))
    return errors


def _replacement_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    policy = spec.get("podReplacementPolicy")
    if policy is None:
        return []
    where = f"{path}.podReplacementPolicy"
    if spec.get("podFailurePolicy") is not None:
        return [] if policy == "Failed" else [FieldError.not_supported(where, policy, ("Failed",))]
    return [] if policy in _REPLACEMENT else [FieldError.not_supported(where, policy, _REPLACEMENT)]


def _template_errors(pods: PodStrategy, spec: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidatePodTemplateSpec`` and the restart policy a Job's pods may have."""
    template = spec.get("template")
    if not isinstance(template, dict):
        return [FieldError.required(f"{path}.template")]
    pod = {"metadata": template.get("metadata") or {}, "spec": template.get("spec")}
    errors = [
        dataclasses.replace(error, field=f"{path}.template.{error.field}")
        for error in pods.validate(pod)
        if error.field != "spec.restartPolicy"
    ]
    policy = (template.get("spec") or {}).get("restartPolicy") or ""
    where = f"{path}.template.spec.restartPolicy"
    if policy in ("Always", ""):
        errors.append(FieldError.required(where, 'valid values: "OnFailure", "Never"'))
    elif policy not in _RESTART:
        errors.append(FieldError.not_supported(where, policy, _RESTART))
    elif spec.get("podFailurePolicy") is not None and policy != "Never":
        detail = 'only "Never" is supported when podFailurePolicy is specified'
        errors.append(FieldError.invalid(where, policy, detail))
    return errors


def job_spec_errors(pods: PodStrategy, spec: dict[str, Any], path: str) -> list[FieldError]:
    """``validateJobSpec`` of ``spec`` at ``path`` (a Job's, or a job template's)."""
    errors: list[FieldError] = []
    for key in _COUNTS:
        errors += non_negative(spec.get(key), f"{path}.{key}")
    if spec.get("maxFailedIndexes") is not None:
        errors += non_negative(spec.get("maxFailedIndexes"), f"{path}.maxFailedIndexes")
        if spec.get("backoffLimitPerIndex") is None:
            detail = "when maxFailedIndexes is specified"
            errors.append(FieldError.required(f"{path}.backoffLimitPerIndex", detail))
    errors += _managed_by_errors(spec, path)
    errors += _mode_errors(spec, path)
    if spec.get("podFailurePolicy") is not None:
        errors += failure_policy_errors(spec, f"{path}.podFailurePolicy")
    success = spec.get("successPolicy")
    if success is not None:
        if spec.get("completionMode") != "Indexed":
            detail = "requires indexed completion mode"
            errors.append(FieldError.invalid(f"{path}.successPolicy", success, detail))
        else:
            errors += success_policy_errors(spec, f"{path}.successPolicy")
    errors += _replacement_errors(spec, path)
    return errors + _template_errors(pods, spec, path)


def job_selector_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    """The selector half of ``ValidateJobSpec``: present, valid, matching the template."""
    selector = spec.get("selector")
    if selector is None:
        errors = [FieldError.required(f"{path}.selector")]
    else:
        errors = validate_selector(selector, f"{path}.selector")
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    # A missing selector selects nothing (LabelSelectorAsSelector(nil) is Nothing()).
    matches = selector is not None and selector_matches(selector, labels or {})
    if not (errors and selector is not None) and not matches:
        detail = "`selector` does not match template `labels`"
        where = f"{path}.template.metadata.labels"
        errors.append(FieldError.invalid(where, go_string_map(labels), detail))
    return errors
