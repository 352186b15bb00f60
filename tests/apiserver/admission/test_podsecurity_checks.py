"""Every check of the 1.32 baseline and restricted policies, in the words of
k8s.io/pod-security-admission's ``policy/check_*.go``: what each refuses, how it names
the pod, containers and values, and which policy versions run which rule."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.admission.plugins.podsecurity.levels import (
    LATEST,
    LevelVersion,
    Version,
)
from kubeforge.apiserver.admission.plugins.podsecurity.registry import (
    MAX_VERSION,
    aggregate,
    evaluate,
)

RESTRICTED_OK = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def _c(name: str, **security: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "image": "nginx"}
    if security:
        container["securityContext"] = security
    return container


def _detail(level: str, spec: dict[str, Any], meta: Any = None, version: int | None = None) -> str:
    lv = LevelVersion(level, LATEST if version is None else Version(version))
    return aggregate(evaluate(lv, meta or {}, spec)).detail()


def _baseline(spec: dict[str, Any], meta: Any = None, version: int | None = None) -> str:
    return _detail("baseline", spec, meta, version)


def test_privileged_runs_no_check_and_a_plain_pod_is_baseline() -> None:
    spec = {"hostNetwork": True, "containers": [_c("a", privileged=True)]}
    assert evaluate(LevelVersion("privileged", LATEST), {}, spec) == []
    assert _baseline({"containers": [_c("a")]}) == ""


def test_host_namespaces_privileged_and_host_process_in_check_id_order() -> None:
    spec = {
        "hostNetwork": True,
        "hostIPC": True,
        "securityContext": {"windowsOptions": {"hostProcess": True}},
        "initContainers": [_c("init", privileged=True)],
        "containers": [_c("a", privileged=True), _c("b", privileged=False)],
        "ephemeralContainers": [_c("dbg", windowsOptions={"hostProcess": True})],
    }
    assert _baseline(spec) == (
        "host namespaces (hostNetwork=true, hostIPC=true), "
        'privileged (containers "init", "a" must not set securityContext.privileged=true), '
        'hostProcess (pod and container "dbg" must not set '
        "securityContext.windowsOptions.hostProcess=true)"
    )


def test_capabilities_beyond_the_default_set() -> None:
    spec = {
        "containers": [
            _c("a", capabilities={"add": ["NET_RAW", "CHOWN", "SYS_ADMIN"]}),
            _c("b", capabilities={"add": ["NET_BIND_SERVICE"]}),
            _c("c", capabilities={"add": ["NET_RAW"]}),
        ]
    }
    assert _baseline(spec) == (
        'non-default capabilities (containers "a", "c" must not include "NET_RAW", '
        '"SYS_ADMIN" in securityContext.capabilities.add)'
    )


def test_host_paths_and_host_ports() -> None:
    spec = {
        "volumes": [
            {"name": "logs", "hostPath": {"path": "/var/log"}},
            {"name": "e", "emptyDir": {}},
        ],
        "containers": [
            {"name": "a", "ports": [{"containerPort": 80, "hostPort": 8080}, {"containerPort": 1}]},
            {"name": "b", "ports": [{"containerPort": 9, "hostPort": 10000}]},
        ],
    }
    assert _baseline(spec) == (
        'hostPath volumes (volume "logs"), hostPort (containers "a", "b" use hostPorts 10000, 8080)'
    )
    one = {"containers": [{"name": "a", "ports": [{"containerPort": 80, "hostPort": 80}]}]}
    assert _baseline(one) == 'hostPort (container "a" uses hostPort 80)'


def test_apparmor_fields_and_annotations() -> None:
    spec = {
        "securityContext": {"appArmorProfile": {"type": "Unconfined"}},
        "containers": [_c("a", appArmorProfile={"type": "Localhost", "localhostProfile": "x"})],
    }
    assert _baseline(spec) == (
        'forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")'
    )
    meta = {
        "annotations": {
            "container.apparmor.security.beta.kubernetes.io/b": "unconfined",
            "container.apparmor.security.beta.kubernetes.io/a": "runtime/default",
            "container.apparmor.security.beta.kubernetes.io/c": "localhost/mine",
        }
    }
    spec = {"containers": [_c("b", appArmorProfile={"type": "Unconfined"})]}
    assert _baseline(spec, meta) == (
        'forbidden AppArmor profiles (container "b" and annotation must not set AppArmor '
        'profile type to "Unconfined", '
        '"container.apparmor.security.beta.kubernetes.io/b="unconfined"")'
    )


def test_selinux_types_users_and_roles_by_version() -> None:
    spec = {
        "securityContext": {"seLinuxOptions": {"type": "spc_t", "user": "root"}},
        "containers": [_c("a", seLinuxOptions={"role": "r"}), _c("b", seLinuxOptions={})],
    }
    assert _baseline(spec) == (
        'seLinuxOptions (pod and container "a" set forbidden securityContext.seLinuxOptions: '
        'type "spc_t"; user may not be set; role may not be set)'
    )
    engine = {"containers": [_c("a", seLinuxOptions={"type": "container_engine_t"})]}
    assert _baseline(engine) == ""
    assert _baseline(engine, version=30) == (
        'seLinuxOptions (container "a" set forbidden securityContext.seLinuxOptions: '
        'type "container_engine_t")'
    )


def test_proc_mount() -> None:
    spec = {"containers": [_c("a", procMount="Unmasked"), _c("b", procMount="Default")]}
    assert _baseline(spec) == (
        'procMount (container "a" must not set securityContext.procMount to "Unmasked")'
    )


def test_seccomp_fields_from_1_19_and_annotations_before() -> None:
    spec = {
        "securityContext": {"seccompProfile": {"type": "Unconfined"}},
        "containers": [_c("a", seccompProfile={"type": "Localhost"}), _c("b")],
    }
    assert _baseline(spec) == (
        'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")'
    )
    meta = {
        "annotations": {
            "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
            "container.seccomp.security.alpha.kubernetes.io/b": "docker/default",
            "container.seccomp.security.alpha.kubernetes.io/a": 'x"y',
        }
    }
    assert _baseline(spec, meta, version=18) == (
        "seccompProfile (forbidden annotations "
        'container.seccomp.security.alpha.kubernetes.io/a="x\\"y", '
        'seccomp.security.alpha.kubernetes.io/pod="unconfined")'
    )


@pytest.mark.parametrize(
    ("name", "first_allowed"),
    [
        ("kernel.shm_rmid_forced", 0),
        ("net.ipv4.ip_local_reserved_ports", 27),
        ("net.ipv4.tcp_keepalive_probes", 29),
        ("net.ipv4.tcp_wmem", 32),
    ],
)
def test_the_safe_sysctls_grow_by_version(name: str, first_allowed: int) -> None:
    spec = {"securityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"},
                                            {"name": name, "value": "1"}]}}  # fmt: skip
    assert _baseline(spec, version=first_allowed) == "forbidden sysctls (kernel.msgmax)"
    if first_allowed:
        before = _baseline(spec, version=first_allowed - 1)
        assert before == f"forbidden sysctls (kernel.msgmax, {name})"


def test_a_bare_pod_breaks_four_restricted_rules_in_check_order() -> None:
    spec = {"containers": [_c("c")]}
    assert _detail("restricted", spec) == (
        'allowPrivilegeEscalation != false (container "c" must set '
        "securityContext.allowPrivilegeEscalation=false), "
        'unrestricted capabilities (container "c" must set '
        'securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to '
        '"RuntimeDefault" or "Localhost")'
    )
    assert _detail("restricted", {"containers": [_c("c", **RESTRICTED_OK)]}) == ""


def test_restricted_checks_follow_the_baseline_ones_and_replace_three() -> None:
    spec = {
        "hostPID": True,
        "volumes": [{"name": "h", "hostPath": {"path": "/"}}, {"name": "n", "nfs": {}}],
        "containers": [
            _c("c", **{**RESTRICTED_OK, "capabilities": {"drop": ["ALL"], "add": ["NET_RAW"]}})
        ],
    }
    assert _detail("restricted", spec) == (
        "host namespaces (hostPID=true), "
        'unrestricted capabilities (container "c" must not include "NET_RAW" in '
        "securityContext.capabilities.add), "
        'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", '
        '"nfs")'
    )
    # Before v1.22 the restricted level ran the baseline capabilities check instead.
    assert _detail("restricted", spec, version=21).startswith(
        'non-default capabilities (container "c" must not include "NET_RAW" in '
        "securityContext.capabilities.add), host namespaces (hostPID=true), "
    )


def test_run_as_non_root_and_run_as_user() -> None:
    spec = {
        "securityContext": {**RESTRICTED_OK, "runAsNonRoot": True, "runAsUser": 0},
        "containers": [
            _c("a", **{**RESTRICTED_OK, "runAsNonRoot": False, "runAsUser": 0}),
            _c("b", **{**RESTRICTED_OK, "runAsUser": 1000}),
        ],
    }
    del spec["securityContext"]["allowPrivilegeEscalation"], spec["securityContext"]["capabilities"]
    assert _detail("restricted", spec) == (
        'runAsNonRoot != true (container "a" must not set securityContext.runAsNonRoot=false), '
        'runAsUser=0 (pod and container "a" must not set runAsUser=0)'
    )
    # runAsUser is checked from v1.23 on.
    assert "runAsUser=0" not in _detail("restricted", spec, version=22)


def test_unknown_volume_sources_and_seccomp_set_at_pod_level() -> None:
    spec = {
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "Localhost"}},
        "volumes": [{"name": "odd"}, {"name": "ok", "projected": {"sources": []}}],
        "containers": [_c("a", allowPrivilegeEscalation=False, capabilities={"drop": ["ALL"]})],
    }
    assert _detail("restricted", spec) == (
        'restricted volume types (volume "odd" uses restricted volume type "unknown")'
    )


def test_windows_pods_skip_the_linux_only_rules_from_1_25() -> None:
    spec = {"os": {"name": "windows"}, "securityContext": {"runAsNonRoot": True},
            "containers": [_c("w")]}  # fmt: skip
    assert _detail("restricted", spec) == ""
    assert _detail("restricted", spec, version=24).startswith("allowPrivilegeEscalation != false")


def test_versions_beyond_the_newest_rule_evaluate_it() -> None:
    spec = {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem", "value": "1"}]},
            "containers": []}  # fmt: skip
    assert MAX_VERSION == 32
    assert _baseline(spec, version=99) == _baseline(spec) == ""
    assert _baseline(spec, version=31) == "forbidden sysctls (net.ipv4.tcp_rmem)"


def test_allow_privilege_escalation_only_appears_in_1_8() -> None:
    spec = {"securityContext": {"runAsNonRoot": True}, "containers": [_c("a")]}
    assert _detail("restricted", spec, version=7) == ""
    assert _detail("restricted", spec, version=8).startswith("allowPrivilegeEscalation")
