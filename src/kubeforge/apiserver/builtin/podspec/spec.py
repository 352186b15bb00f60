"""``ValidatePodSpec`` of kubernetes 1.32, in its order: volumes, containers, init
containers, host network ports, restart and DNS policy, node selector, the pod's
security context, affinity, DNS config, gates, topology spread, Windows HostProcess,
then the spec-wide scalar fields, tolerations, host aliases and the OS.

Entry point: ``validate_pod_spec(spec, path)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.affinity import pod_affinity
from kubeforge.apiserver.builtin.podspec.containers import pod_containers
from kubeforge.apiserver.builtin.podspec.dns import dns_config, host_aliases
from kubeforge.apiserver.builtin.podspec.platform import host_network, host_process, pod_os
from kubeforge.apiserver.builtin.podspec.scheduling import (
    gates,
    node_selector,
    spread_constraints,
    tolerations,
)
from kubeforge.apiserver.builtin.podspec.security import pod_security_context
from kubeforge.apiserver.builtin.podspec.volumes import pod_volumes
from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import dns1123_label, dns1123_subdomain

__all__ = ["validate_pod_spec"]

_RESTART = ("Always", "OnFailure", "Never")
_DNS = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PREEMPTION = ("PreemptLowerPriority", "Never")
_INT32_MAX = 2147483647


def _choice(
    spec: dict[str, Any], key: str, allowed: tuple[str, ...], path: str
) -> list[FieldError]:
    value = spec.get(key)
    if not value:
        return [FieldError.required(f"{path}.{key}")]
    if value not in allowed:
        return [FieldError.not_supported(f"{path}.{key}", value, allowed)]
    return []


def _names(spec: dict[str, Any], path: str, keys: tuple[str, ...]) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in keys:
        value = spec.get(key)
        rule = dns1123_label if key in ("hostname", "subdomain") else dns1123_subdomain
        if isinstance(value, str) and value:
            errors += [FieldError.invalid(f"{path}.{key}", value, m) for m in rule(value)]
    return errors


def _deadline(spec: dict[str, Any], path: str) -> list[FieldError]:
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= _INT32_MAX:
        detail = f"must be between 1 and {_INT32_MAX}, inclusive"
        return [FieldError.invalid(f"{path}.activeDeadlineSeconds", deadline, detail)]
    return []


def _last(spec: dict[str, Any], path: str) -> list[FieldError]:
    """The runtime class, preemption policy and OS, after everything else."""
    errors = _names(spec, path, ("runtimeClassName",))
    if spec.get("preemptionPolicy") is not None:
        errors += _choice(spec, "preemptionPolicy", _PREEMPTION, path)
    return errors + pod_os(spec, path)


def validate_pod_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """Every rule of this package over one pod spec found at ``path`` (``spec`` for a Pod,
    ``spec.template.spec`` for a workload)."""
    errors, volumes = pod_volumes(spec.get("volumes"), f"{path}.volumes")
    errors += pod_containers(spec, volumes, path)
    errors += host_network(spec, path)
    errors += _choice(spec, "restartPolicy", _RESTART, path)
    errors += _choice(spec, "dnsPolicy", _DNS, path)
    errors += node_selector(spec, path)
    errors += pod_security_context(spec, path)
    errors += pod_affinity(spec, path)
    errors += dns_config(spec, path)
    errors += gates(spec, path)
    errors += spread_constraints(spec, path)
    errors += host_process(spec, path)
    errors += _names(spec, path, ("serviceAccountName", "nodeName"))
    errors += _deadline(spec, path)
    errors += _names(spec, path, ("hostname", "subdomain"))
    errors += tolerations(spec, path)
    errors += host_aliases(spec, path)
    errors += _names(spec, path, ("priorityClassName",))
    return errors + _last(spec, path)
