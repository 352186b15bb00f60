"""The PodSecurity decisions (k8s.io/pod-security-admission ``admission/admission.go``,
1.32), free of HTTP and storage: a pod against its namespace's policy, a pod template
(warned and audited, never refused), a namespace's labels, and the existing pods a new
enforce level would refuse.

Entry points: ``evaluate_pod``, ``namespace_warnings``, ``significant_pod_update``,
``pod_template``.

>>> from kubeforge.apiserver.admission.plugins.podsecurity.levels import policy_from_labels
>>> policy, _ = policy_from_labels({"pod-security.kubernetes.io/warn": "baseline"})
>>> spec = {"hostNetwork": True, "containers": []}
>>> evaluate_pod(policy, [], {}, spec, enforce=True).warnings
['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)']
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.admission.plugins.podsecurity.levels import LevelVersion, Policy
from kubeforge.apiserver.admission.plugins.podsecurity.registry import (
    Aggregate,
    aggregate,
    evaluate,
)
from kubeforge.apiserver.admission.plugins.podsecurity.spec import Json, mapping
from kubeforge.apiserver.failures import FieldError

__all__ = [
    "MAX_PODS_TO_CHECK",
    "Decision",
    "evaluate_pod",
    "namespace_warnings",
    "pod_template",
    "significant_pod_update",
]

MAX_PODS_TO_CHECK = 3000
_POD_CHECK_SECONDS = 1.0  # the namespace check's budget, as defaultNamespacePodCheckTimeout


@dataclass
class Decision:
    """What one evaluation asks of the request: refuse it (``denial`` is the forbidden
    detail), warn (``warnings``), and record (``audit``: annotation key -> value)."""

    denial: str = ""
    warnings: list[str] = field(default_factory=list)
    audit: dict[str, str] = field(default_factory=dict)


def evaluate_pod(
    policy: Policy, policy_errors: list[FieldError], meta: Json, spec: Json, *, enforce: bool
) -> Decision:
    """A pod (``enforce``) or a pod template against the namespace's ``policy``; enforce
    and audit reuse a result of the same level and version, and a refused request gets
    no warning."""
    decision = Decision()
    if policy_errors:
        decision.audit["error"] = f"Failed to parse policy: {_aggregate_text(policy_errors)}"
    results: dict[LevelVersion, Aggregate] = {}

    def result(level_version: LevelVersion) -> Aggregate:
        if level_version not in results:
            results[level_version] = aggregate(evaluate(level_version, meta, spec))
        return results[level_version]

    if enforce:
        decision.audit["enforce-policy"] = str(policy.enforce)
        enforced = result(policy.enforce)
        if not enforced.allowed:
            decision.denial = f'violates PodSecurity "{policy.enforce}": {enforced.detail()}'
    audited = result(policy.audit)
    if not audited.allowed:
        decision.audit["audit-violations"] = (
            f'would violate PodSecurity "{policy.audit}": {audited.detail()}'
        )
    if not decision.denial:
        warned = result(policy.warn)
        if not warned.allowed:
            decision.warnings.append(
                f'would violate PodSecurity "{policy.warn}": {warned.detail()}'
            )
    return decision


def _aggregate_text(errors: list[FieldError]) -> str:
    """``utilerrors.NewAggregate``'s text: one error, or ``[a, b]``."""
    texts = [str(error) for error in errors]
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def _controller_uid(pod: Json) -> str | None:
    for owner in mapping(pod.get("metadata")).get("ownerReferences") or []:
        if isinstance(owner, dict) and owner.get("controller") is True:
            return str(owner.get("uid") or "")
    return None


def _prioritized(pods: Iterable[Json]) -> list[Json]:
    """One pod per controller first, then the other replicas (``prioritizePods``)."""
    first, replicas = [], []
    seen: set[str] = set()
    for pod in pods:
        uid = _controller_uid(pod)
        if uid is not None and uid in seen:
            replicas.append(pod)
            continue
        if uid is not None:
            seen.add(uid)
        first.append(pod)
    return first + replicas


def namespace_warnings(namespace: str, pods: Iterable[Json], enforce: LevelVersion) -> list[str]:
    """The warnings of labelling ``namespace`` with a stricter ``enforce``: the pods it
    would refuse, one line per distinct set of reasons (named by its first pod in name
    order, with how many others share it), checked within a budget of pods and time."""
    deadline = time.monotonic() + _POD_CHECK_SECONDS
    ordered = _prioritized(pods)
    total = len(ordered)
    checked = min(total, MAX_PODS_TO_CHECK)
    reasons: dict[str, list[str]] = {}  # reasons -> the names of the pods that have them
    for index, pod in enumerate(ordered[:checked]):
        meta, spec = mapping(pod.get("metadata")), mapping(pod.get("spec"))
        result = aggregate(evaluate(enforce, meta, spec))
        if not result.allowed:
            reasons.setdefault(result.reason(), []).append(str(meta.get("name") or ""))
        if time.monotonic() > deadline:
            checked = index + 1
            break
    warnings = []
    if checked < total:
        warnings.append(
            f"new PodSecurity enforce level only checked against the first {checked} of "
            f"{total} existing pods"
        )
    if reasons:
        warnings.append(
            f'existing pods in namespace "{namespace}" violate the new PodSecurity enforce '
            f'level "{enforce}"'
        )
    return warnings + sorted(_named(names, reason) for reason, names in reasons.items())


def _named(names: list[str], reason: str) -> str:
    first, others = min(names), len(names) - 1
    if others == 0:
        return f"{first}: {reason}"
    return f"{first} (and {others} other pod{'' if others == 1 else 's'}): {reason}"


def _containers(spec: Json, key: str) -> list[Json]:
    items = spec.get(key)
    return [mapping(c) for c in items] if isinstance(items, list) else []


def significant_pod_update(new: Json, old: Json) -> bool:
    """Whether a pod update may change what the policy sees: a container added or
    removed, or an image changed (the pod fields an update may change that matter)."""
    spec, old_spec = mapping(new.get("spec")), mapping(old.get("spec"))
    for key in ("containers", "initContainers"):
        now, before = _containers(spec, key), _containers(old_spec, key)
        if len(now) != len(before):
            return True
        if any(a.get("image") != b.get("image") for a, b in zip(now, before, strict=True)):
            return True
    earlier = {c.get("name"): c for c in _containers(old_spec, "ephemeralContainers")}
    return any(
        c.get("name") not in earlier or c.get("image") != earlier[c.get("name")].get("image")
        for c in _containers(spec, "ephemeralContainers")
    )


# The pod template each pod controller embeds, by (group, plural) (DefaultPodSpecExtractor).
_TEMPLATE_PATHS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "podtemplates"): ("template",),
    ("", "replicationcontrollers"): ("spec", "template"),
    ("apps", "replicasets"): ("spec", "template"),
    ("apps", "deployments"): ("spec", "template"),
    ("apps", "daemonsets"): ("spec", "template"),
    ("apps", "statefulsets"): ("spec", "template"),
    ("batch", "jobs"): ("spec", "template"),
    ("batch", "cronjobs"): ("spec", "jobTemplate", "spec", "template"),
}
POD_CONTROLLERS = frozenset(_TEMPLATE_PATHS)


def pod_template(resource: tuple[str, str], obj: Json) -> tuple[Json, Json] | None:
    """The (metadata, spec) of a pod controller's template; None when it has none (only
    a ReplicationController's is optional: the others read as empty)."""
    node: Any = obj
    for key in _TEMPLATE_PATHS[resource]:
        node = mapping(node).get(key)
    if node is None and resource == ("", "replicationcontrollers"):
        return None
    template = mapping(node)
    return mapping(template.get("metadata")), mapping(template.get("spec"))
