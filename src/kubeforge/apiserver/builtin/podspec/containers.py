"""Containers and init containers (``validateContainers``, ``validateInitContainers``
and ``validateContainerCommon`` of kubernetes 1.32): names, image, termination message
policy, ports, env, volume mounts, pull policy, resources, security context, probes,
lifecycle, sidecar (``restartPolicy: Always``) init containers, and host ports unique
across the pod.

Entry point: ``pod_containers(spec, volumes, path)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.env import container_env
from kubeforge.apiserver.builtin.podspec.mounts import volume_mounts
from kubeforge.apiserver.builtin.podspec.ports import container_ports
from kubeforge.apiserver.builtin.podspec.probes import container_probes, lifecycle
from kubeforge.apiserver.builtin.podspec.resources import container_resources
from kubeforge.apiserver.builtin.podspec.security import container_security_context
from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import dns1123_label

__all__ = ["container_common", "pod_containers"]

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_SIDECAR_ONLY = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")


def container_common(container: dict[str, Any], volumes: set[str], path: str) -> list[FieldError]:
    name = container.get("name") or ""
    if not name:
        errors = [FieldError.required(f"{path}.name")]
    else:
        errors = [FieldError.invalid(f"{path}.name", name, m) for m in dns1123_label(name)]
    if not container.get("image"):
        errors.append(FieldError.required(f"{path}.image"))
    policy = container.get("terminationMessagePolicy", "File")
    if policy not in _MESSAGE_POLICIES:
        at = f"{path}.terminationMessagePolicy"
        errors.append(
            FieldError.required(at)
            if not policy
            else FieldError.not_supported(at, policy, _MESSAGE_POLICIES)
        )
    errors += container_ports(container.get("ports") or [], f"{path}.ports")
    errors += container_env(container, path)
    errors += volume_mounts(container, volumes, f"{path}.volumeMounts")
    pull = container.get("imagePullPolicy")
    if pull is not None and pull not in _PULL_POLICIES:
        at = f"{path}.imagePullPolicy"
        errors.append(
            FieldError.required(at)
            if not pull
            else FieldError.not_supported(at, pull, _PULL_POLICIES)
        )
    errors += container_resources(container.get("resources"), f"{path}.resources")
    errors += container_security_context(
        container.get("securityContext"), f"{path}.securityContext"
    )
    return errors


def _regular(spec: dict[str, Any], volumes: set[str], path: str) -> list[FieldError]:
    """``validateContainers``: each container, then host ports across all of them."""
    errors: list[FieldError] = []
    names: set[str] = set()
    grace = spec.get("terminationGracePeriodSeconds")
    containers = spec.get("containers")
    for i, container in enumerate(containers if isinstance(containers, list) else ()):
        if not isinstance(container, dict):
            continue
        at = f"{path}.containers[{i}]"
        errors += container_common(container, volumes, at)
        name = container.get("name") or ""
        if name in names:
            errors.append(FieldError.duplicate(f"{at}.name", name))
        names.add(name)
        errors += lifecycle(container.get("lifecycle"), f"{at}.lifecycle", grace)
        errors += container_probes(container, at)
        if container.get("restartPolicy") is not None:
            detail = "may not be set for non-init containers"
            errors.append(FieldError.forbidden(f"{at}.restartPolicy", detail))
    return errors + _host_ports(containers, f"{path}.containers")


def _init_only(container: dict[str, Any], at: str) -> list[FieldError]:
    """An init container without ``restartPolicy: Always`` runs to completion: no hooks,
    no probes."""
    detail = "may not be set for init containers without restartPolicy=Always"
    return [
        FieldError.forbidden(f"{at}.{key}", detail)
        for key in _SIDECAR_ONLY
        if container.get(key) is not None
    ]


def _init(spec: dict[str, Any], volumes: set[str], path: str) -> list[FieldError]:
    """``validateInitContainers``: names unique with the regular containers too; host
    ports checked per init container (they run one at a time); sidecars
    (``restartPolicy: Always``) get the regular containers' hooks and probes."""
    errors: list[FieldError] = []
    grace = spec.get("terminationGracePeriodSeconds")
    names = {c.get("name") for c in spec.get("containers") or [] if isinstance(c, dict)}
    for i, container in enumerate(spec.get("initContainers") or []):
        if not isinstance(container, dict):
            continue
        at = f"{path}.initContainers[{i}]"
        errors += container_common(container, volumes, at)
        policy = container.get("restartPolicy")
        if policy is not None and policy != "Always":
            errors.append(FieldError.not_supported(f"{at}.restartPolicy", policy, ("Always",)))
        name = container.get("name") or ""
        if name in names:
            errors.append(FieldError.duplicate(f"{at}.name", name))
        elif name:
            names.add(name)
        errors += _host_ports([container], f"{path}.initContainers")
        if policy == "Always":
            errors += lifecycle(container.get("lifecycle"), f"{at}.lifecycle", grace)
            errors += container_probes(container, at)
        else:
            errors += _init_only(container, at)
    return errors


def _host_ports(containers: Any, path: str) -> list[FieldError]:
    """``AccumulateUniqueHostPorts``: one protocol/hostIP/hostPort per pod."""
    errors: list[FieldError] = []
    taken: set[str] = set()
    for ci, container in enumerate(containers if isinstance(containers, list) else ()):
        ports = container.get("ports") if isinstance(container, dict) else None
        for pi, port in enumerate(ports if isinstance(ports, list) else ()):
            if not isinstance(port, dict) or not port.get("hostPort"):
                continue
            key = f"{port.get('protocol', '')}/{port.get('hostIP', '')}/{port['hostPort']}"
            if key in taken:
                at = f"{path}[{ci}].ports[{pi}].hostPort"
                errors.append(FieldError.duplicate(at, key))
            taken.add(key)
    return errors


def pod_containers(spec: dict[str, Any], volumes: set[str], path: str) -> list[FieldError]:
    """Containers (at least one), then init containers."""
    containers = spec.get("containers")
    errors: list[FieldError] = []
    if not isinstance(containers, list) or not containers:
        errors.append(FieldError.required(f"{path}.containers"))
    return errors + _regular(spec, volumes, path) + _init(spec, volumes, path)
