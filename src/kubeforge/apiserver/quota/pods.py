"""What a pod costs in quota, and which quota scopes it falls under
(kubernetes 1.32 ``pkg/quota/v1/evaluator/core/pods.go`` over
``component-helpers/resource``'s ``PodRequests``/``PodLimits``).

A pod is charged ``count/pods`` always; ``pods`` and its compute resources only while
it is not terminal (phase Succeeded/Failed) nor past the end of its deletion grace
period. Its requests are the sum over its containers and sidecars (restartable init
containers) or the largest need of an init container, whichever is larger, plus
``spec.overhead``; its limits likewise, the overhead added to limits that are set.

Entry points: ``pod_usage(pod, now)``, ``pod_matches_scope(selector, pod)``,
``missing_resources(required, pod)``, ``release_time(pod)``, ``POD_RESOURCES``.

>>> pod = {"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "250m"}}}]}}
>>> sorted(str(q) for q in pod_usage(pod, 0.0).values())
['1', '1', '250m', '250m']
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.builtin.core.qos import pod_qos_class
from kubeforge.apiserver.quota.quantity import ONE, ResourceList, add, parse_list

__all__ = [
    "POD_PREFIXES",
    "POD_RESOURCES",
    "is_extended_for_quota",
    "missing_resources",
    "pod_matches_scope",
    "pod_usage",
    "release_time",
]

POD_RESOURCES = frozenset(
    {
        "count/pods",
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
    }
)
POD_PREFIXES = ("hugepages-", "requests.hugepages-")

# A quota on these makes every container state them (a historical rule the Go code keeps).
_MUST_BE_STATED = frozenset(
    {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}
)
_COMPUTE = ("cpu", "memory", "ephemeral-storage")


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_for_quota(name: str) -> bool:
    """A quota name for an extended resource: only ``requests.<domain>/<name>`` exists."""
    return not _is_native(name) and name.startswith("requests.")


def _compute_usage(requests: ResourceList, limits: ResourceList) -> ResourceList:
    """``podComputeUsageHelper``: the quota names of one container's or pod's resources."""
    result: ResourceList = {"pods": ONE}
    for name in _COMPUTE:
        if name in requests:
            result[name] = result[f"requests.{name}"] = requests[name]
        if name in limits:
            result[f"limits.{name}"] = limits[name]
    for name, amount in requests.items():
        if name.startswith("hugepages-"):
            result[name] = result[f"requests.{name}"] = amount
        if not _is_native(name) and not name.startswith("requests."):
            result[f"requests.{name}"] = amount
    return result


def _larger(into: ResourceList, other: ResourceList) -> None:
    for name, amount in other.items():
        if name not in into or amount.value > into[name].value:
            into[name] = amount


def _aggregate(spec: dict[str, Any], field: str) -> ResourceList:
    """Containers and sidecars summed; each init container's need (with the sidecars
    started before it) taken as a floor."""
    total: ResourceList = {}
    for container in _containers(spec, "containers"):
        total = add(total, _resources(container, field))
    sidecars: ResourceList = {}
    init_floor: ResourceList = {}
    for container in _containers(spec, "initContainers"):
        own = _resources(container, field)
        if container.get("restartPolicy") == "Always":
            total = add(total, own)
            sidecars = add(sidecars, own)
            need = sidecars
        else:
            need = add(own, sidecars)
        _larger(init_floor, need)
    _larger(total, init_floor)
    return total


def _containers(spec: dict[str, Any], key: str) -> list[dict[str, Any]]:
    return [c for c in spec.get(key) or [] if isinstance(c, dict)]


def _resources(container: dict[str, Any], field: str) -> ResourceList:
    return parse_list((container.get("resources") or {}).get(field))


def _pod_requests_and_limits(spec: dict[str, Any]) -> tuple[ResourceList, ResourceList]:
    requests, limits = _aggregate(spec, "requests"), _aggregate(spec, "limits")
    overhead = parse_list(spec.get("overhead"))
    requests = add(requests, overhead)
    limits = add(limits, {n: q for n, q in overhead.items() if n in limits})
    return requests, limits


def _timestamp(text: Any) -> float | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def release_time(pod: dict[str, Any]) -> float | None:
    """When a terminating pod stops being charged: the end of its deletion grace period
    (None for a pod not being deleted)."""
    meta = pod.get("metadata") or {}
    deleted, grace = (
        _timestamp(meta.get("deletionTimestamp")),
        meta.get("deletionGracePeriodSeconds"),
    )
    if deleted is None or not isinstance(grace, int):
        return None
    return deleted + grace


def _charged(pod: dict[str, Any], now: float) -> bool:
    """``QuotaV1Pod``: not terminal, and not stuck past its deletion grace period."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    released = release_time(pod)
    return released is None or now <= released


def pod_usage(pod: dict[str, Any], now: float) -> ResourceList:
    """``PodUsageFunc``: the quota ``pod`` uses at wall-clock time ``now``."""
    usage: ResourceList = {"count/pods": ONE}
    if not _charged(pod, now):
        return usage
    requests, limits = _pod_requests_and_limits(pod.get("spec") or {})
    return add(usage, _compute_usage(requests, limits))


def missing_resources(required: list[str], pod: dict[str, Any]) -> str | None:
    """``podEvaluator.Constraints``: ``must specify <resource> for: <containers>; ...``
    when a quota on cpu or memory meets a container that does not state it."""
    wanted = set(required) & _MUST_BE_STATED
    missing: dict[str, set[str]] = {}
    spec = pod.get("spec") or {}
    for container in _containers(spec, "containers") + _containers(spec, "initContainers"):
        stated = _compute_usage(_resources(container, "requests"), _resources(container, "limits"))
        for name in wanted - stated.keys():
            missing.setdefault(name, set()).add(str(container.get("name") or ""))
    if not missing:
        return None
    parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
    return "must specify " + "; ".join(parts)


def _cross_namespace(spec: dict[str, Any]) -> bool:
    affinity = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = affinity.get(kind) or {}
        terms = list(rules.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        for weighted in rules.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
            terms.append((weighted or {}).get("podAffinityTerm") or {})
        for term in terms:
            if isinstance(term, dict) and (term.get("namespaces") or "namespaceSelector" in term):
                return True
    return False


def selector_matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """One scope selector requirement as a label requirement on ``labels``."""
    key, operator = str(selector.get("scopeName") or ""), selector.get("operator")
    values = [str(v) for v in selector.get("values") or []]
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    return operator == "DoesNotExist" and key not in labels


def pod_matches_scope(selector: dict[str, Any], pod: dict[str, Any]) -> bool:
    """``podMatchesScopeFunc``: whether ``pod`` falls under one scope selector requirement."""
    spec = pod.get("spec") or {}
    scope = str(selector.get("scopeName") or "")
    deadline = spec.get("activeDeadlineSeconds")
    terminating = isinstance(deadline, int) and deadline >= 0
    if scope in ("Terminating", "NotTerminating"):
        return terminating == (scope == "Terminating")
    if scope in ("BestEffort", "NotBestEffort"):
        return (pod_qos_class(spec) == "BestEffort") == (scope == "BestEffort")
    if scope == "PriorityClass":
        name = str(spec.get("priorityClassName") or "")
        if selector.get("operator") == "Exists":
            return bool(name)
        return selector_matches(selector, {"PriorityClass": name} if name else {})
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace(spec)
    return False
