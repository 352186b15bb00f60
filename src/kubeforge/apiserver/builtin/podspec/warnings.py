"""The warnings a kubernetes 1.32 server returns on creating a pod for the annotations it
no longer acts on (the annotation part of ``GetWarningsForPod``, ``pkg/api/pod/warnings.go``):
the deprecated critical-pod and sysctl annotations, and the seccomp annotations of a pod or
container that has no ``seccompProfile`` field beside them. (The AppArmor annotations are
warned of while they are synced to fields, by ``prepare.apparmor_version_skew``.)

Entry point: ``annotation_warnings(annotations, spec)``, the texts of the ``Warning``
headers in Go's order.

>>> annotation_warnings({"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}, {})
['metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead']
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.annotations import (
    SECCOMP_CONTAINER_PREFIX,
    SECCOMP_POD,
    visit_containers,
)

__all__ = ["annotation_warnings"]

_DEPRECATED = (
    (
        "scheduler.alpha.kubernetes.io/critical-pod",
        'non-functional in v1.16+; use the "priorityClassName" field instead',
    ),
    (
        "security.alpha.kubernetes.io/sysctls",
        'non-functional in v1.11+; use the "sysctls" field instead',
    ),
    (
        "security.alpha.kubernetes.io/unsafe-sysctls",
        'non-functional in v1.11+; use the "sysctls" field instead',
    ),
)
_SECCOMP = 'non-functional in v1.27+; use the "seccompProfile" field instead'


def _has_seccomp(holder: Any) -> bool:
    context = holder.get("securityContext") if isinstance(holder, dict) else None
    return isinstance(context, dict) and context.get("seccompProfile") is not None


def annotation_warnings(annotations: dict[str, Any], spec: Any) -> list[str]:
    """What ``GetWarningsForPod`` says of a new pod's annotations."""
    at = "metadata.annotations"
    warnings = [f"{at}[{key}]: {text}" for key, text in _DEPRECATED if key in annotations]
    if not _has_seccomp(spec) and SECCOMP_POD in annotations:
        warnings.append(f"{at}[{SECCOMP_POD}]: {_SECCOMP}")
    for container, _ in visit_containers(spec, "spec"):
        key = f"{SECCOMP_CONTAINER_PREFIX}{container.get('name')}"
        if not _has_seccomp(container) and key in annotations:
            warnings.append(f"{at}[{key}]: {_SECCOMP}")
    return warnings
