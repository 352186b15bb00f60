"""Pod and container security contexts (``validatePodSpecSecurityContext``,
``validateSysctls``, ``ValidateHostSysctl`` and ``ValidateSecurityContext`` of kubernetes
1.32), in their order and words.

The internal Go type keeps ``hostPID`` and ``shareProcessNamespace`` inside the pod's
security context, so their error is reported under ``spec.securityContext`` although
the v1 fields sit on the spec. Privileged containers are accepted, as on the clusters
kubeadm, kind and the cloud providers set up (``--allow-privileged=true``). Capability
names are not checked (1.32 checks none). ``procMount``, ``hostUsers``,
``supplementalGroupsPolicy`` and ``seLinuxChangePolicy`` are behind feature gates a 1.32
server has off: ``prepare`` drops them before validation, so nothing here checks them.

Entry points: ``pod_security_context(spec, path)``, ``container_security_context(value,
path)``.

>>> spec = {"securityContext": {"runAsUser": -1}, "containers": []}
>>> [str(e) for e in pod_security_context(spec, "spec")]
['spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive']
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.builtin.podspec.profiles import (
    apparmor_profile,
    seccomp_profile,
    windows_options,
)
from kubeforge.apiserver.failures import FieldError, GoValue

__all__ = ["container_security_context", "pod_security_context"]

_ID_RANGE = "must be between 0 and 2147483647, inclusive"
_INT32_MAX = 2147483647
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_SOURCE = rf"^({_SYSCTL_SEGMENT}[\./])*{_SYSCTL_SEGMENT}$"
_SYSCTL = re.compile(_SYSCTL_SOURCE[1:-1])  # fullmatch: Python's $ also matches before "\n"
_SYSCTL_MAX = 253
_FS_GROUP_POLICIES = ("Always", "OnRootMismatch")
_IPC_EXACT = ("kernel.sem",)
_IPC_PREFIXES = ("kernel.shm", "kernel.msg", "fs.mqueue.")
# The fields of the internal core.SecurityContext in their Go order, with their Go types.
_CONTEXT_FIELDS = (
    ("Capabilities", "capabilities", "*core.Capabilities"),
    ("Privileged", "privileged", "*bool"),
    ("SELinuxOptions", "seLinuxOptions", "*core.SELinuxOptions"),
    ("WindowsOptions", "windowsOptions", "*core.WindowsSecurityContextOptions"),
    ("RunAsUser", "runAsUser", "*int64"),
    ("RunAsGroup", "runAsGroup", "*int64"),
    ("RunAsNonRoot", "runAsNonRoot", "*bool"),
    ("ReadOnlyRootFilesystem", "readOnlyRootFilesystem", "*bool"),
    ("AllowPrivilegeEscalation", "allowPrivilegeEscalation", "*bool"),
    ("ProcMount", "procMount", "*core.ProcMountType"),
    ("SeccompProfile", "seccompProfile", "*core.SeccompProfile"),
    ("AppArmorProfile", "appArmorProfile", "*core.AppArmorProfile"),
)


def _id(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, int) and not 0 <= value <= _INT32_MAX:
        return [FieldError.invalid(path, value, _ID_RANGE)]
    return []


def _normalized_sysctl(name: str) -> str:
    """``NormalizeName``: a name whose first separator is ``/`` uses ``/`` throughout."""
    first = re.search(r"[./]", name)
    if first is None or first.group() == ".":
        return name
    return name.replace(".", "\0").replace("/", ".").replace("\0", "/")


def _host_sysctl(name: str, spec: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidateHostSysctl``: a namespaced sysctl of a namespace shared with the host."""
    normal = _normalized_sysctl(name)
    ipc = normal in _IPC_EXACT or normal.startswith(_IPC_PREFIXES)
    if spec.get("hostNetwork") is True and normal.startswith("net."):
        return [FieldError.invalid(path, name, "may not be specified when 'hostNetwork' is true")]
    if spec.get("hostIPC") is True and ipc:
        return [FieldError.invalid(path, name, "may not be specified when 'hostIPC' is true")]
    return []


def _sysctls(sysctls: list[Any], spec: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, sysctl in enumerate(sysctls):
        if not isinstance(sysctl, dict):
            continue
        at = f"{path}[{i}].name"
        name = str(sysctl.get("name") or "")
        if not name:
            errors.append(FieldError.required(at))
        elif len(name) > _SYSCTL_MAX or not _SYSCTL.fullmatch(name):
            detail = f"must have at most {_SYSCTL_MAX} characters and match regex {_SYSCTL_SOURCE}"
            errors.append(FieldError.invalid(at, name, detail))
        elif name in seen:
            errors.append(FieldError.duplicate(at, name))
        errors += _host_sysctl(name, spec, at)
        seen.add(name)
    return errors


def pod_security_context(spec: dict[str, Any], path: str) -> list[FieldError]:
    """The pod-level context at ``{path}.securityContext`` (with the spec's host flags)."""
    context = spec.get("securityContext")
    if not isinstance(context, dict):
        context = {}
    at = f"{path}.securityContext"
    errors = _id(context.get("fsGroup"), f"{at}.fsGroup")
    errors += _id(context.get("runAsUser"), f"{at}.runAsUser")
    errors += _id(context.get("runAsGroup"), f"{at}.runAsGroup")
    groups = context.get("supplementalGroups")
    for g, gid in enumerate(groups if isinstance(groups, list) else ()):
        errors += _id(gid, f"{at}.supplementalGroups[{g}]")
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        detail = "ShareProcessNamespace and HostPID cannot both be enabled"
        errors.append(FieldError.invalid(f"{at}.shareProcessNamespace", True, detail))
    sysctls = context.get("sysctls")
    if isinstance(sysctls, list) and sysctls:
        errors += _sysctls(sysctls, spec, f"{at}.sysctls")
    policy = context.get("fsGroupChangePolicy")
    if policy is not None and policy not in _FS_GROUP_POLICIES:
        at_policy = f"{at}.fsGroupChangePolicy"
        errors.append(FieldError.not_supported(at_policy, policy, _FS_GROUP_POLICIES))
    errors += seccomp_profile(context.get("seccompProfile"), f"{at}.seccompProfile")
    errors += windows_options(context.get("windowsOptions"), f"{at}.windowsOptions")
    errors += apparmor_profile(context.get("appArmorProfile"), f"{at}.appArmorProfile")
    return errors


def _go_context(context: dict[str, Any]) -> GoValue:
    """``%#v`` of a ``core.SecurityContext``: every field a pointer, nil or an address
    (the addresses are stand-ins: Go's differ from run to run)."""
    parts = []
    for index, (go_name, key, go_type) in enumerate(_CONTEXT_FIELDS):
        address = f"0xc000a1c{index:03x}"
        shown = "nil" if context.get(key) is None else address
        parts.append(f"{go_name}:({go_type})({shown})")
    return GoValue("core.SecurityContext{" + ", ".join(parts) + "}")


def _escalation(context: dict[str, Any], path: str) -> list[FieldError]:
    """``allowPrivilegeEscalation: false`` beside what escalates anyway."""
    if context.get("allowPrivilegeEscalation") is not False:
        return []
    errors = []
    if context.get("privileged") is True:
        detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
        errors.append(FieldError.invalid(path, _go_context(context), detail))
    capabilities = context.get("capabilities")
    added = capabilities.get("add") if isinstance(capabilities, dict) else None
    for capability in added if isinstance(added, list) else ():
        if capability == "CAP_SYS_ADMIN":
            detail = (
                "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` "
                "CAP_SYS_ADMIN"
            )
            errors.append(FieldError.invalid(path, _go_context(context), detail))
    return errors


def container_security_context(context: Any, path: str) -> list[FieldError]:
    """One container's ``securityContext`` found at ``path``."""
    if not isinstance(context, dict):
        return []
    errors = _id(context.get("runAsUser"), f"{path}.runAsUser")
    errors += _id(context.get("runAsGroup"), f"{path}.runAsGroup")
    errors += seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile")
    errors += _escalation(context, path)
    errors += windows_options(context.get("windowsOptions"), f"{path}.windowsOptions")
    errors += apparmor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile")
    return errors
