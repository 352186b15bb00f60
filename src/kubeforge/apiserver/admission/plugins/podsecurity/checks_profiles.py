"""The baseline checks of the kernel's confinement (k8s.io/pod-security-admission
``policy/check_*.go``, 1.32): AppArmor, SELinux, the /proc mount, seccomp (its
annotations before policy v1.19, its fields from then on) and sysctls (the safe set as
it grew in v1.27, v1.29 and v1.32).

The user-namespace relaxation of procMount (feature gate
UserNamespacesPodSecurityStandards) is alpha and off in 1.32, so it is not applied.

Entry point: ``CHECKS``.

>>> sysctls_1_32({}, {"securityContext": {"sysctls": [{"name": "kernel.msgmax"}]}})
CheckResult(allowed=False, reason='forbidden sysctls', detail='kernel.msgmax')
"""

from __future__ import annotations

from kubeforge.apiserver.admission.plugins.podsecurity.levels import BASELINE
from kubeforge.apiserver.admission.plugins.podsecurity.spec import (
    ALLOWED,
    Check,
    CheckFn,
    CheckResult,
    Json,
    VersionedCheck,
    containers,
    forbidden,
    go_quote,
    join_quote,
    mapping,
    name_of,
    pluralize,
    pod_security_context,
    security_context,
    setters,
    since_v1_0,
)

__all__ = ["CHECKS", "SECCOMP_BASELINE", "valid_seccomp"]

SECCOMP_BASELINE = "seccompProfile_baseline"
_APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"
_CONFINED = ("RuntimeDefault", "Localhost")


def _annotations(meta: Json) -> dict[str, str]:
    return {str(k): str(v) for k, v in mapping(meta.get("annotations")).items()}


def _type_of(profile: object) -> str | None:
    """The ``type`` of a set profile (``""`` when left out), None when unset."""
    if profile is None:
        return None
    return str(mapping(profile).get("type") or "")


def _allowed_apparmor_annotation(value: str) -> bool:
    return not value or value == "runtime/default" or value.startswith("localhost/")


def app_armor_profile(meta: Json, spec: Json) -> CheckResult:
    who: list[str] = []
    bad_types: set[str] = set()
    pod_type = _type_of(pod_security_context(spec).get("appArmorProfile"))
    if pod_type is not None and pod_type not in _CONFINED:
        who.append("pod")
        bad_types.add(pod_type)
    bad: list[str] = []
    for container in containers(spec):
        kind = _type_of(security_context(container).get("appArmorProfile"))
        if kind is not None and kind not in _CONFINED:
            bad.append(name_of(container))
            bad_types.add(kind)
    if bad:
        who.append(f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)}")
    values = sorted(bad_types)
    annotations = sorted(
        f"{key}={go_quote(value)}"
        for key, value in _annotations(meta).items()
        if key.startswith(_APPARMOR_ANNOTATION) and not _allowed_apparmor_annotation(value)
    )
    if annotations:
        values += annotations
        who.append(pluralize("annotation", "annotations", len(annotations)))
    if not who:
        return ALLOWED
    return forbidden(
        pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(values)),
        f"{' and '.join(who)} must not set AppArmor profile type to {join_quote(values)}",
    )


_SELINUX_TYPES_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_TYPES_1_31 = _SELINUX_TYPES_1_0 | {"container_engine_t"}


def _selinux(allowed_types: frozenset[str]) -> CheckFn:
    def check(meta: Json, spec: Json) -> CheckResult:
        bad_types: set[str] = set()
        set_user = set_role = False

        def valid(options: Json) -> bool:
            nonlocal set_user, set_role
            kind = str(options.get("type") or "")
            if kind not in allowed_types:
                bad_types.add(kind)
            set_user = set_user or bool(options.get("user"))
            set_role = set_role or bool(options.get("role"))
            return kind in allowed_types and not options.get("user") and not options.get("role")

        pod_options = pod_security_context(spec).get("seLinuxOptions")
        pod_bad = pod_options is not None and not valid(mapping(pod_options))
        bad = [
            name_of(c)
            for c in containers(spec)
            if security_context(c).get("seLinuxOptions") is not None
            and not valid(mapping(security_context(c)["seLinuxOptions"]))
        ]
        if not pod_bad and not bad:
            return ALLOWED
        found = []
        if bad_types:
            noun = pluralize("type", "types", len(bad_types))
            found.append(f"{noun} {join_quote(sorted(bad_types))}")
        found += ["user may not be set"] if set_user else []
        found += ["role may not be set"] if set_role else []
        return forbidden(
            "seLinuxOptions",
            f"{setters(pod_bad, bad)} set forbidden securityContext.seLinuxOptions: "
            + "; ".join(found),
        )

    return check


def proc_mount(meta: Json, spec: Json) -> CheckResult:
    bad: list[str] = []
    kinds: set[str] = set()
    for container in containers(spec):
        mount = security_context(container).get("procMount")
        if mount is not None and mount != "Default":
            bad.append(name_of(container))
            kinds.add(str(mount))
    if not bad:
        return ALLOWED
    noun = pluralize("container", "containers", len(bad))
    return forbidden(
        "procMount",
        f"{noun} {join_quote(bad)} must not set securityContext.procMount to "
        + join_quote(sorted(kinds)),
    )


def valid_seccomp(kind: str) -> bool:
    return kind in _CONFINED


def _valid_seccomp_annotation(value: str) -> bool:
    return value in ("runtime/default", "docker/default") or value.startswith("localhost/")


def seccomp_baseline_1_0(meta: Json, spec: Json) -> CheckResult:
    annotations = _annotations(meta)
    keys = [_SECCOMP_POD_ANNOTATION]
    keys += [_SECCOMP_CONTAINER_ANNOTATION + name_of(c) for c in containers(spec)]
    bad = {
        f"{key}={go_quote(annotations[key])}"
        for key in keys
        if key in annotations and not _valid_seccomp_annotation(annotations[key])
    }
    if not bad:
        return ALLOWED
    noun = pluralize("annotation", "annotations", len(bad))
    return forbidden("seccompProfile", f"forbidden {noun} {', '.join(sorted(bad))}")


def seccomp_baseline_1_19(meta: Json, spec: Json) -> CheckResult:
    bad_types: set[str] = set()
    pod_type = _type_of(pod_security_context(spec).get("seccompProfile"))
    pod_bad = pod_type is not None and not valid_seccomp(pod_type)
    if pod_bad and pod_type is not None:
        bad_types.add(pod_type)
    bad: list[str] = []
    for container in containers(spec):
        kind = _type_of(security_context(container).get("seccompProfile"))
        if kind is not None and not valid_seccomp(kind):
            bad.append(name_of(container))
            bad_types.add(kind)
    if not pod_bad and not bad:
        return ALLOWED
    return forbidden(
        "seccompProfile",
        f"{setters(pod_bad, bad)} must not set securityContext.seccompProfile.type to "
        + join_quote(sorted(bad_types)),
    )


_SYSCTLS_1_0 = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _sysctls(allowed: frozenset[str]) -> CheckFn:
    def check(meta: Json, spec: Json) -> CheckResult:
        listed = pod_security_context(spec).get("sysctls")
        names = [
            str(s.get("name") or "")
            for s in (listed if isinstance(listed, list) else [])
            if isinstance(s, dict)
        ]
        bad = [name for name in names if name not in allowed]
        return forbidden("forbidden sysctls", ", ".join(bad)) if bad else ALLOWED

    return check


sysctls_1_32 = _sysctls(_SYSCTLS_1_32)

CHECKS = (
    since_v1_0("appArmorProfile", BASELINE, app_armor_profile),
    Check(
        "seLinuxOptions",
        BASELINE,
        (
            VersionedCheck(0, _selinux(_SELINUX_TYPES_1_0)),
            VersionedCheck(31, _selinux(_SELINUX_TYPES_1_31)),
        ),
    ),
    since_v1_0("procMount", BASELINE, proc_mount),
    Check(
        SECCOMP_BASELINE,
        BASELINE,
        (VersionedCheck(0, seccomp_baseline_1_0), VersionedCheck(19, seccomp_baseline_1_19)),
    ),
    Check(
        "sysctls",
        BASELINE,
        (
            VersionedCheck(0, _sysctls(_SYSCTLS_1_0)),
            VersionedCheck(27, _sysctls(_SYSCTLS_1_27)),
            VersionedCheck(29, _sysctls(_SYSCTLS_1_29)),
            VersionedCheck(32, sysctls_1_32),
        ),
    ),
)
