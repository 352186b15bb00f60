"""The restricted policy's own checks (k8s.io/pod-security-admission ``policy/check_*.go``,
1.32): volume types, privilege escalation, running as non-root, ``runAsUser=0``, a
seccomp profile everywhere, and capabilities dropped (ALL) and added (NET_BIND_SERVICE at
most). Three of them replace a baseline check at the restricted level (``overrides``);
from policy v1.25, the Linux-only ones leave pods with ``spec.os.name: windows`` alone.

The user-namespace relaxation (feature gate UserNamespacesPodSecurityStandards) is alpha
and off in 1.32, so it is not applied.

Entry point: ``CHECKS``.

>>> run_as_user({}, {"securityContext": {"runAsUser": 0}, "containers": []})
CheckResult(allowed=False, reason='runAsUser=0', detail='pod must not set runAsUser=0')
"""

from __future__ import annotations

from kubeforge.apiserver.admission.plugins.podsecurity.checks_host import (
    CAPABILITIES_BASELINE,
    HOST_PATH_VOLUMES,
)
from kubeforge.apiserver.admission.plugins.podsecurity.checks_profiles import (
    SECCOMP_BASELINE,
    seccomp_baseline_1_19,
)
from kubeforge.apiserver.admission.plugins.podsecurity.levels import RESTRICTED
from kubeforge.apiserver.admission.plugins.podsecurity.spec import (
    ALLOWED,
    Check,
    CheckFn,
    CheckResult,
    Json,
    VersionedCheck,
    containers,
    forbidden,
    join_quote,
    mapping,
    name_of,
    pluralize,
    pod_security_context,
    security_context,
    setters,
)

__all__ = ["CHECKS", "run_as_user"]

# The volume sources the restricted policy allows, and the names of the others in the
# order Go tells them apart (the first one a volume sets names its type).
_ALLOWED_VOLUMES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                    "persistentVolumeClaim", "projected", "secret")  # fmt: skip
_RESTRICTED_VOLUMES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
    "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
    "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
    "scaleIO", "storageos",
)  # fmt: skip


def _containers_noun(names: list[str]) -> str:
    return f"{pluralize('container', 'containers', len(names))} {join_quote(names)}"


def _not_on_windows(check: CheckFn) -> CheckFn:
    """The v1.25 revision of a Linux-only check: a Windows pod passes."""

    def revised(meta: Json, spec: Json) -> CheckResult:
        if mapping(spec.get("os")).get("name") == "windows":
            return ALLOWED
        return check(meta, spec)

    return revised


def allow_privilege_escalation(meta: Json, spec: Json) -> CheckResult:
    bad = [
        name_of(c)
        for c in containers(spec)
        if security_context(c).get("allowPrivilegeEscalation") is not False
    ]
    if not bad:
        return ALLOWED
    return forbidden(
        "allowPrivilegeEscalation != false",
        f"{_containers_noun(bad)} must set securityContext.allowPrivilegeEscalation=false",
    )


def capabilities_restricted(meta: Json, spec: Json) -> CheckResult:
    missing_drop: list[str] = []
    adding: list[str] = []
    added: set[str] = set()
    for container in containers(spec):
        capabilities = security_context(container).get("capabilities")
        if capabilities is None:
            missing_drop.append(name_of(container))
            continue
        drop, add = mapping(capabilities).get("drop"), mapping(capabilities).get("add")
        if "ALL" not in (drop if isinstance(drop, list) else []):
            missing_drop.append(name_of(container))
        extra = [str(c) for c in (add if isinstance(add, list) else []) if c != "NET_BIND_SERVICE"]
        if extra:
            adding.append(name_of(container))
            added.update(extra)
    details = []
    if missing_drop:
        details.append(
            f'{_containers_noun(missing_drop)} must set securityContext.capabilities.drop=["ALL"]'
        )
    if adding:
        details.append(
            f"{_containers_noun(adding)} must not include {join_quote(sorted(added))} "
            "in securityContext.capabilities.add"
        )
    return forbidden("unrestricted capabilities", "; ".join(details)) if details else ALLOWED


def _volume_type(volume: Json) -> str | None:
    """None for an allowed source, else the restricted type's name (``unknown`` if none)."""
    if any(volume.get(key) is not None for key in _ALLOWED_VOLUMES):
        return None
    return next((key for key in _RESTRICTED_VOLUMES if volume.get(key) is not None), "unknown")


def restricted_volumes(meta: Json, spec: Json) -> CheckResult:
    volumes = spec.get("volumes")
    bad: list[str] = []
    kinds: set[str] = set()
    for volume in volumes if isinstance(volumes, list) else []:
        kind = _volume_type(mapping(volume))
        if kind is not None:
            bad.append(str(mapping(volume).get("name") or ""))
            kinds.add(kind)
    if not bad:
        return ALLOWED
    return forbidden(
        "restricted volume types",
        f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)} "
        f"{pluralize('uses', 'use', len(bad))} "
        f"{pluralize('restricted volume type', 'restricted volume types', len(kinds))} "
        + join_quote(sorted(kinds)),
    )


def run_as_non_root(meta: Json, spec: Json) -> CheckResult:
    pod_value = pod_security_context(spec).get("runAsNonRoot")
    pod_bad, pod_non_root = pod_value is False, pod_value is True
    explicit: list[str] = []
    implicit: list[str] = []
    for container in containers(spec):
        value = security_context(container).get("runAsNonRoot")
        if value is False:
            explicit.append(name_of(container))
        elif value is None and not pod_non_root:
            implicit.append(name_of(container))
    if pod_bad or explicit:
        return forbidden(
            "runAsNonRoot != true",
            f"{setters(pod_bad, explicit)} must not set securityContext.runAsNonRoot=false",
        )
    if implicit:
        return forbidden(
            "runAsNonRoot != true",
            f"pod or {_containers_noun(implicit)} must set securityContext.runAsNonRoot=true",
        )
    return ALLOWED


def _root(user: object) -> bool:
    return type(user) is int and user == 0


def run_as_user(meta: Json, spec: Json) -> CheckResult:
    pod_bad = _root(pod_security_context(spec).get("runAsUser"))
    bad = [name_of(c) for c in containers(spec) if _root(security_context(c).get("runAsUser"))]
    if not pod_bad and not bad:
        return ALLOWED
    return forbidden("runAsUser=0", f"{setters(pod_bad, bad)} must not set runAsUser=0")


def seccomp_restricted(meta: Json, spec: Json) -> CheckResult:
    explicit = seccomp_baseline_1_19(meta, spec)  # a type other than the two confined ones
    if not explicit.allowed:
        return explicit
    pod_set = pod_security_context(spec).get("seccompProfile") is not None
    implicit = [
        name_of(c)
        for c in containers(spec)
        if security_context(c).get("seccompProfile") is None and not pod_set
    ]
    if not implicit:
        return ALLOWED
    return forbidden(
        "seccompProfile",
        f"pod or {_containers_noun(implicit)} must set securityContext.seccompProfile.type "
        'to "RuntimeDefault" or "Localhost"',
    )


CHECKS = (
    Check(
        "allowPrivilegeEscalation",
        RESTRICTED,
        (
            VersionedCheck(8, allow_privilege_escalation),
            VersionedCheck(25, _not_on_windows(allow_privilege_escalation)),
        ),
    ),
    Check(
        "capabilities_restricted",
        RESTRICTED,
        (
            VersionedCheck(22, capabilities_restricted, (CAPABILITIES_BASELINE,)),
            VersionedCheck(25, _not_on_windows(capabilities_restricted), (CAPABILITIES_BASELINE,)),
        ),
    ),
    Check(
        "restrictedVolumes",
        RESTRICTED,
        (VersionedCheck(0, restricted_volumes, (HOST_PATH_VOLUMES,)),),
    ),
    Check("runAsNonRoot", RESTRICTED, (VersionedCheck(0, run_as_non_root),)),
    Check("runAsUser", RESTRICTED, (VersionedCheck(23, run_as_user),)),
    Check(
        "seccompProfile_restricted",
        RESTRICTED,
        (
            VersionedCheck(19, seccomp_restricted, (SECCOMP_BASELINE,)),
            VersionedCheck(25, _not_on_windows(seccomp_restricted), (SECCOMP_BASELINE,)),
        ),
    ),
)
