"""What depends on the node a pod runs on: host network ports
(``validatePodHostNetworkDeps``), Windows HostProcess pods
(``validateWindowsHostProcessPod``) and ``spec.os`` with the fields each OS forbids
(``validateOS``, ``validateLinux``, ``validateWindows`` of kubernetes 1.32).

Host ports left at 0 in a pod are defaulted to the container port before this runs (as
``SetDefaults_Pod`` does when ``hostNetwork`` is true), so one rule serves pods and
templates: a host port that is set must match its container port.

Entry points: ``host_network(spec, path)``, ``host_process(spec, path)``,
``pod_os(spec, path)``.

>>> spec = {"os": {"name": "windows"}, "securityContext": {"runAsUser": 1}, "containers": []}
>>> [str(e) for e in pod_os(spec, "spec")]
['spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod']
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kubeforge.apiserver.failures import FieldError

__all__ = ["host_network", "host_process", "pod_os"]

_OSES = ("linux", "windows")
_NOT_WINDOWS = "cannot be set for a windows pod"
# Pod-level fields a Windows pod may not set: (v1 location, path Go reports).
_WINDOWS_POD = (
    ("securityContext.appArmorProfile", "securityContext.appArmorProfile"),
    ("securityContext.seLinuxOptions", "securityContext.seLinuxOptions"),
    ("hostUsers", "hostUsers"),
    ("hostPID", "hostPID"),
    ("hostIPC", "hostIPC"),
    ("securityContext.seccompProfile", "securityContext.seccompProfile"),
    ("securityContext.fsGroup", "securityContext.fsGroup"),
    ("securityContext.fsGroupChangePolicy", "securityContext.fsGroupChangePolicy"),
    ("securityContext.sysctls", "securityContext.sysctls"),
    ("shareProcessNamespace", "shareProcessNamespace"),
    ("securityContext.runAsUser", "securityContext.runAsUser"),
    ("securityContext.runAsGroup", "securityContext.runAsGroup"),
    ("securityContext.supplementalGroups", "securityContext.supplementalGroups"),
)
_TRUTHY = ("hostPID", "hostIPC", "securityContext.sysctls")
_WINDOWS_CONTAINER = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                      "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation",
                      "procMount", "runAsUser", "runAsGroup")  # fmt: skip


def _containers(spec: dict[str, Any], path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """``VisitContainersWithPath``: init, regular, then ephemeral containers."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for i, container in enumerate(spec.get(key) or []):
            if isinstance(container, dict):
                yield container, f"{path}.{key}[{i}]"


def _context(owner: dict[str, Any]) -> dict[str, Any]:
    context = owner.get("securityContext")
    return context if isinstance(context, dict) else {}


def host_network(spec: dict[str, Any], path: str) -> list[FieldError]:
    if spec.get("hostNetwork") is not True:
        return []
    errors = []
    for i, container in enumerate(spec.get("containers") or []):
        ports = container.get("ports") if isinstance(container, dict) else None
        for j, port in enumerate(ports if isinstance(ports, list) else ()):
            if not isinstance(port, dict):
                continue
            host, given = port.get("hostPort") or 0, port.get("containerPort") or 0
            if host != 0 and host != given:
                at = f"{path}.containers[{i}].ports[{j}].hostPort"
                detail = "must match `containerPort` when `hostNetwork` is true"
                errors.append(FieldError.invalid(at, host, detail))
    return errors


def host_process(spec: dict[str, Any], path: str) -> list[FieldError]:
    """All containers HostProcess or none, and then on the host network."""
    pod_flag = (_context(spec).get("windowsOptions") or {}).get("hostProcess")
    errors: list[FieldError] = []
    count = hosted = 0
    for container, at in _containers(spec, path):
        count += 1
        flag = (_context(container).get("windowsOptions") or {}).get("hostProcess")
        if pod_flag is not None and flag is not None and pod_flag != flag:
            shown = "true" if pod_flag else "false"
            detail = f"pod hostProcess value must be identical if both are specified, was {shown}"
            errors.append(
                FieldError.invalid(f"{at}.securityContext.windowsOptions.hostProcess", flag, detail)
            )
        if flag is True or (flag is None and pod_flag is True):
            hosted += 1
    if hosted:
        if hosted != count:
            detail = "If pod contains any hostProcess containers then all containers must be HostProcess containers"  # noqa: E501
            errors.append(FieldError.invalid(path, "", detail))
        if spec.get("hostNetwork") is not True:
            detail = "hostNetwork must be true if pod contains any hostProcess containers"
            errors.append(FieldError.invalid(f"{path}.hostNetwork", False, detail))
    return errors


def _lookup(spec: dict[str, Any], dotted: str) -> Any:
    value: Any = spec
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _windows(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors = []
    for where, reported in _WINDOWS_POD:
        value = _lookup(spec, where)
        # Go tests the two host flags and the sysctls for being on, the rest for being set.
        if value if where in _TRUTHY else value is not None:
            errors.append(FieldError.forbidden(f"{path}.{reported}", _NOT_WINDOWS))
    for container, at in _containers(spec, path):
        context = _context(container)
        errors += [
            FieldError.forbidden(f"{at}.securityContext.{key}", _NOT_WINDOWS)
            for key in _WINDOWS_CONTAINER
            if context.get(key) is not None
        ]
    return errors


def _linux(spec: dict[str, Any], path: str) -> list[FieldError]:
    detail = "windows options cannot be set for a linux pod"
    errors = []
    if _context(spec).get("windowsOptions") is not None:
        errors.append(FieldError.forbidden(f"{path}.securityContext.windowsOptions", detail))
    for container, at in _containers(spec, path):
        if _context(container).get("windowsOptions") is not None:
            errors.append(FieldError.forbidden(f"{at}.securityContext.windowsOptions", detail))
    return errors


def pod_os(spec: dict[str, Any], path: str) -> list[FieldError]:
    system = spec.get("os")
    if not isinstance(system, dict):
        return []
    name = system.get("name") or ""
    if not name:
        return [FieldError.required(f"{path}.os.name", "cannot be empty")]
    if name not in _OSES:
        return [FieldError.not_supported(f"{path}.os", name, _OSES)]
    return _linux(spec, path) if name == "linux" else _windows(spec, path)
