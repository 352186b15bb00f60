"""Containers and init containers (``validateContainers``, ``validateInitContainers``
and ``validateContainerCommon`` of kubernetes 1.32): names, image, termination message
policy, ports, env, volume mounts, pull policy, resources, probes, lifecycle, and host
ports unique across the pod.

Entry point: ``pod_containers(spec, volumes, path)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.ports import container_ports
from kubeforge.apiserver.builtin.podspec.probes import container_probes, lifecycle
from kubeforge.apiserver.builtin.podspec.resources import container_resources
from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import dns1123_label

__all__ = ["container_common", "pod_containers"]

_ENV_NAME = "a valid environment variable name must consist only of printable ASCII characters other than '='"  # noqa: E501
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")


def _env(env: Any, path: str) -> list[FieldError]:
    """``ValidateEnv`` with 1.32's relaxed names (RelaxedEnvironmentVariableValidation, beta)."""
    errors: list[FieldError] = []
    for i, var in enumerate(env if isinstance(env, list) else ()):
        if not isinstance(var, dict):
            continue
        at = f"{path}[{i}]"
        name = var.get("name") or ""
        if not name:
            errors.append(FieldError.required(f"{at}.name"))
        elif any(not " " <= ch <= "~" or ch == "=" for ch in name):
            errors.append(FieldError.invalid(f"{at}.name", name, _ENV_NAME))
        source = var.get("valueFrom")
        if not isinstance(source, dict):
            continue
        count = sum(source.get(key) is not None for key in _ENV_SOURCES)
        if count > 1:
            detail = "may not have more than one field specified at a time"
            errors.append(FieldError.invalid(f"{at}.valueFrom", "", detail))
        if var.get("value") and count:
            detail = "may not be specified when `value` is not empty"
            errors.append(FieldError.invalid(f"{at}.valueFrom", "", detail))
    return errors


def _mounts(mounts: Any, volumes: set[str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    points: set[str] = set()
    for i, mount in enumerate(mounts if isinstance(mounts, list) else ()):
        if not isinstance(mount, dict):
            continue
        at = f"{path}[{i}]"
        name = mount.get("name") or ""
        if not name:
            errors.append(FieldError.required(f"{at}.name"))
        if name not in volumes:
            errors.append(FieldError.not_found(f"{at}.name", name))
        point = mount.get("mountPath") or ""
        if not point:
            errors.append(FieldError.required(f"{at}.mountPath"))
        if point in points:
            errors.append(FieldError.invalid(f"{at}.mountPath", point, "must be unique"))
        points.add(point)
    return errors


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
    errors += _env(container.get("env"), f"{path}.env")
    errors += _mounts(container.get("volumeMounts"), volumes, f"{path}.volumeMounts")
    pull = container.get("imagePullPolicy")
    if pull is not None and pull not in _PULL_POLICIES:
        at = f"{path}.imagePullPolicy"
        errors.append(
            FieldError.required(at)
            if not pull
            else FieldError.not_supported(at, pull, _PULL_POLICIES)
        )
    errors += container_resources(container.get("resources"), f"{path}.resources")
    return errors


def _list(
    spec: dict[str, Any], key: str, volumes: set[str], names: set[str], path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, container in enumerate(spec.get(key) or []):
        at = f"{path}.{key}[{i}]"
        if not isinstance(container, dict):
            continue
        errors += container_common(container, volumes, at)
        name = container.get("name") or ""
        if name in names:
            errors.append(FieldError.duplicate(f"{at}.name", name))
        names.add(name)
        restartable = key == "initContainers" and container.get("restartPolicy") == "Always"
        if key == "containers" or restartable:
            errors += lifecycle(container.get("lifecycle"), f"{at}.lifecycle")
            errors += container_probes(container, at)
        if key == "containers" and container.get("restartPolicy") is not None:
            errors.append(
                FieldError.forbidden(
                    f"{at}.restartPolicy", "may not be set for non-init containers"
                )
            )
    return errors


def _host_ports(spec: dict[str, Any], path: str) -> list[FieldError]:
    """``AccumulateUniqueHostPorts`` over the regular containers."""
    errors: list[FieldError] = []
    taken: set[str] = set()
    for ci, container in enumerate(spec.get("containers") or []):
        ports = container.get("ports") if isinstance(container, dict) else None
        for pi, port in enumerate(ports if isinstance(ports, list) else ()):
            if not isinstance(port, dict) or not port.get("hostPort"):
                continue
            key = f"{port.get('hostIP', '')}/{port.get('protocol', 'TCP')}/{port['hostPort']}"
            if key in taken:
                errors.append(FieldError.duplicate(f"{path}.containers[{ci}].ports[{pi}]", key))
            taken.add(key)
    return errors


def pod_containers(spec: dict[str, Any], volumes: set[str], path: str) -> list[FieldError]:
    """Containers, then init containers (names unique across both), then host ports."""
    names: set[str] = set()
    containers = spec.get("containers")
    errors: list[FieldError] = []
    if not isinstance(containers, list) or not containers:
        errors.append(FieldError.required(f"{path}.containers"))
    errors += _list(spec, "containers", volumes, names, path)
    errors += _host_ports(spec, path)
    errors += _list(spec, "initContainers", volumes, names, path)
    return errors
