"""``SetDefaults_Job`` and the pod failure policy's pattern default, for Jobs and job
templates.

A Job: ``completions`` and ``parallelism`` 1 when both are unset (else parallelism 1),
``backoffLimit`` 6 (the int32 maximum with ``backoffLimitPerIndex``), ``completionMode``
NonIndexed, ``suspend`` false, ``podReplacementPolicy`` (Failed with a pod failure
policy, else TerminatingOrFailed), ``manualSelector`` false. Both: an ``onPodConditions``
pattern without a status is ``True``; the pod template gets workload template defaults.

Entry points: ``default_job_spec(spec)``, ``default_template(spec)`` (a job template's),
``default_failure_policy(spec)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.apps.workload import default_pod_template

__all__ = ["default_failure_policy", "default_job_spec", "default_template"]

_INT32_MAX = 2147483647


def default_failure_policy(spec: dict[str, Any]) -> None:
    """``SetDefaults_PodFailurePolicyOnPodConditionsPattern`` on every rule's patterns."""
    policy = spec.get("podFailurePolicy")
    rules = policy.get("rules") if isinstance(policy, dict) else None
    for rule in rules if isinstance(rules, list) else ():
        patterns = rule.get("onPodConditions") if isinstance(rule, dict) else None
        for pattern in patterns if isinstance(patterns, list) else ():
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"


def default_job_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_Job`` on a Job's spec (not a CronJob's job template)."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        per_index = spec.get("backoffLimitPerIndex") is not None
        spec["backoffLimit"] = _INT32_MAX if per_index else 6
    if spec.get("completionMode") is None:
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("podReplacementPolicy") is None:
        failed_only = spec.get("podFailurePolicy") is not None
        spec["podReplacementPolicy"] = "Failed" if failed_only else "TerminatingOrFailed"
    if spec.get("manualSelector") is None:
        spec["manualSelector"] = False
    default_template(spec)


def default_template(spec: dict[str, Any]) -> None:
    """The pod template's defaults; a missing template is Go's empty struct (so its
    problems are named field by field, as for real)."""
    default_failure_policy(spec)
    template = spec.get("template")
    if not isinstance(template, dict):
        template = spec["template"] = {}
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    default_pod_template(template)
