"""The baseline checks that keep a pod off the host (k8s.io/pod-security-admission
``policy/check_*.go``, 1.32): Windows HostProcess, host namespaces, privileged
containers, capabilities beyond the default set, hostPath volumes and host ports.

Entry point: ``CHECKS``.

>>> host_namespaces({}, {"hostNetwork": True, "hostPID": True})
CheckResult(allowed=False, reason='host namespaces', detail='hostNetwork=true, hostPID=true')
"""

from __future__ import annotations

from kubeforge.apiserver.admission.plugins.podsecurity.levels import BASELINE
from kubeforge.apiserver.admission.plugins.podsecurity.spec import (
    ALLOWED,
    CheckResult,
    Json,
    containers,
    forbidden,
    join_quote,
    mapping,
    name_of,
    pluralize,
    pod_security_context,
    security_context,
    setters,
    since_v1_0,
)

__all__ = ["CAPABILITIES_BASELINE", "CHECKS", "HOST_PATH_VOLUMES", "host_namespaces"]

CAPABILITIES_BASELINE = "capabilities_baseline"
HOST_PATH_VOLUMES = "hostPathVolumes"

# The container runtimes' default set (baseline policy 1.0).
_DEFAULT_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
        "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
    }
)  # fmt: skip


def _host_process(options: object) -> bool:
    return mapping(options).get("hostProcess") is True


def windows_host_process(meta: Json, spec: Json) -> CheckResult:
    bad = [
        name_of(c)
        for c in containers(spec)
        if _host_process(security_context(c).get("windowsOptions"))
    ]
    pod_bad = _host_process(pod_security_context(spec).get("windowsOptions"))
    if not bad and not pod_bad:
        return ALLOWED
    return forbidden(
        "hostProcess",
        f"{setters(pod_bad, bad)} must not set securityContext.windowsOptions.hostProcess=true",
    )


def host_namespaces(meta: Json, spec: Json) -> CheckResult:
    shared = [
        f"{key}=true" for key in ("hostNetwork", "hostPID", "hostIPC") if spec.get(key) is True
    ]
    return forbidden("host namespaces", ", ".join(shared)) if shared else ALLOWED


def privileged(meta: Json, spec: Json) -> CheckResult:
    bad = [name_of(c) for c in containers(spec) if security_context(c).get("privileged") is True]
    if not bad:
        return ALLOWED
    noun = pluralize("container", "containers", len(bad))
    return forbidden(
        "privileged", f"{noun} {join_quote(bad)} must not set securityContext.privileged=true"
    )


def _added(container: Json) -> list[str]:
    added = mapping(security_context(container).get("capabilities")).get("add")
    return [str(c) for c in added] if isinstance(added, list) else []


def capabilities_baseline(meta: Json, spec: Json) -> CheckResult:
    bad: list[str] = []
    extra: set[str] = set()
    for container in containers(spec):
        beyond = [c for c in _added(container) if c not in _DEFAULT_CAPABILITIES]
        if beyond:
            bad.append(name_of(container))
            extra.update(beyond)
    if not bad:
        return ALLOWED
    noun = pluralize("container", "containers", len(bad))
    return forbidden(
        "non-default capabilities",
        f"{noun} {join_quote(bad)} must not include {join_quote(sorted(extra))} "
        "in securityContext.capabilities.add",
    )


def host_path_volumes(meta: Json, spec: Json) -> CheckResult:
    volumes = spec.get("volumes")
    bad = [
        str(v.get("name") or "")
        for v in (volumes if isinstance(volumes, list) else [])
        if isinstance(v, dict) and v.get("hostPath") is not None
    ]
    if not bad:
        return ALLOWED
    return forbidden(
        "hostPath volumes", f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)}"
    )


def _host_ports(container: Json) -> list[str]:
    ports = container.get("ports")
    return [
        str(port["hostPort"])
        for port in (ports if isinstance(ports, list) else [])
        if isinstance(port, dict) and port.get("hostPort")
    ]


def host_ports(meta: Json, spec: Json) -> CheckResult:
    bad: list[str] = []
    used: set[str] = set()
    for container in containers(spec):
        ports = _host_ports(container)
        if ports:
            bad.append(name_of(container))
            used.update(ports)
    if not bad:
        return ALLOWED
    # Go keeps the ports in a string set: listed in string order ("10000" before "8080").
    return forbidden(
        "hostPort",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
        f"{pluralize('uses', 'use', len(bad))} {pluralize('hostPort', 'hostPorts', len(used))} "
        + ", ".join(sorted(used)),
    )


CHECKS = (
    since_v1_0("windowsHostProcess", BASELINE, windows_host_process),
    since_v1_0("hostNamespaces", BASELINE, host_namespaces),
    since_v1_0("privileged", BASELINE, privileged),
    since_v1_0(CAPABILITIES_BASELINE, BASELINE, capabilities_baseline),
    since_v1_0(HOST_PATH_VOLUMES, BASELINE, host_path_volumes),
    since_v1_0("hostPorts", BASELINE, host_ports),
)
