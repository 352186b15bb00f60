"""Security contexts, sysctls and the feature-gated fields of a pod spec, as kubernetes
1.32's ``validatePodSpecSecurityContext``, ``ValidateSecurityContext`` and the pod
strategy's ``dropDisabledFields`` treat them (pkg/apis/core/validation, pkg/api/pod)."""

from __future__ import annotations

from kf_http import Api
from kf_podspec import created, deployment, pod, refused

RANGE = "Invalid value: -1: must be between 0 and 2147483647, inclusive"
SYSCTL_REGEX = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"


async def test_ids_out_of_range_are_refused_in_pod_and_container_contexts(
    api: Api, namespace: str
) -> None:
    container = {"securityContext": {"runAsUser": -1, "runAsGroup": 2147483648}}
    context = {"fsGroup": -1, "runAsUser": -1, "supplementalGroups": [1, -1]}
    found = await refused(api, namespace, pod("ids", container, securityContext=context))
    assert found == [
        ("spec.containers[0].securityContext.runAsUser", RANGE),
        (
            "spec.containers[0].securityContext.runAsGroup",
            "Invalid value: 2147483648: must be between 0 and 2147483647, inclusive",
        ),
        ("spec.securityContext.fsGroup", RANGE),
        ("spec.securityContext.runAsUser", RANGE),
        ("spec.securityContext.supplementalGroups[1]", RANGE),
    ]


async def test_profiles_and_policies_are_checked_with_their_words(api: Api, namespace: str) -> None:
    context = {
        "seccompProfile": {"type": "Localhost"},
        "appArmorProfile": {"type": "Localhost", "localhostProfile": " padded "},
        "fsGroupChangePolicy": "Sometimes",
    }
    container = {
        "securityContext": {
            "seccompProfile": {"type": "Custom"},
            "appArmorProfile": {"type": "RuntimeDefault", "localhostProfile": "p"},
            "windowsOptions": {"runAsUserName": "a\\b\\c"},
        }
    }
    found = await refused(api, namespace, pod("profiles", container, securityContext=context))
    at = "spec.containers[0].securityContext"
    assert found == [
        (
            f"{at}.seccompProfile.type",
            'Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", '
            '"Unconfined"',
        ),
        (
            f"{at}.windowsOptions.runAsUserName",
            'Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash',
        ),
        (
            f"{at}.appArmorProfile.localhostProfile",
            'Invalid value: "p": can only be set when AppArmor type is Localhost',
        ),
        (
            "spec.securityContext.fsGroupChangePolicy",
            'Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"',
        ),
        (
            "spec.securityContext.seccompProfile.localhostProfile",
            "Required value: must be set when seccomp type is Localhost",
        ),
        (
            "spec.securityContext.appArmorProfile.localhostProfile",
            'Invalid value: " padded ": must not be padded with whitespace',
        ),
    ]


async def test_no_privilege_escalation_beside_privileged_or_sys_admin(
    api: Api, namespace: str
) -> None:
    context = {
        "allowPrivilegeEscalation": False,
        "privileged": True,
        "capabilities": {"add": ["CAP_SYS_ADMIN"]},
    }
    found = await refused(api, namespace, pod("escalate", {"securityContext": context}))
    assert [field for field, _ in found] == ["spec.containers[0].securityContext"] * 2
    assert found[0][1].startswith("Invalid value: core.SecurityContext{Capabilities:")
    assert found[0][1].endswith(
        ": cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
    )
    assert found[1][1].endswith(
        ": cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
    )
    # Privileged alone is allowed, as on kubeadm and kind clusters (--allow-privileged).
    await created(api, namespace, pod("privileged", {"securityContext": {"privileged": True}}))


async def test_sysctls_need_valid_unique_names_and_no_shared_host_namespace(
    api: Api, namespace: str
) -> None:
    sysctls = [
        {"name": "net.core.somaxconn", "value": "1024"},
        {"name": "kernel.shm_rmid_forced", "value": "1"},
        {"name": "net.core.somaxconn", "value": "1"},
        {"name": "Net.Bad!", "value": "1"},
        {"value": "1"},
    ]
    spec = {"hostNetwork": True, "hostIPC": True, "securityContext": {"sysctls": sysctls}}
    found = await refused(api, namespace, pod("sysctls", **spec))
    at = "spec.securityContext.sysctls"
    host_net = "may not be specified when 'hostNetwork' is true"
    assert found == [
        (f"{at}[0].name", f'Invalid value: "net.core.somaxconn": {host_net}'),
        (
            f"{at}[1].name",
            "Invalid value: \"kernel.shm_rmid_forced\": may not be specified when 'hostIPC' is "
            "true",
        ),
        (f"{at}[2].name", 'Duplicate value: "net.core.somaxconn"'),
        (f"{at}[2].name", f'Invalid value: "net.core.somaxconn": {host_net}'),
        (
            f"{at}[3].name",
            f'Invalid value: "Net.Bad!": must have at most 253 characters and match regex '
            f"{SYSCTL_REGEX}",
        ),
        (f"{at}[4].name", "Required value"),
    ]


async def test_share_process_namespace_with_host_pid_is_reported_in_the_security_context(
    api: Api, namespace: str
) -> None:
    found = await refused(api, namespace, pod("pid", hostPID=True, shareProcessNamespace=True))
    assert found == [
        (
            "spec.securityContext.shareProcessNamespace",
            "Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled",
        )
    ]


async def test_fields_of_gates_off_in_1_32_are_dropped_and_proc_mount_reset(
    api: Api, namespace: str
) -> None:
    container = {"securityContext": {"procMount": "Unmasked"}}
    context = {"supplementalGroupsPolicy": "Strict", "seLinuxChangePolicy": "Recursive"}
    body = pod("gated", container, hostUsers=False, securityContext=context)
    stored = await created(api, namespace, body)
    assert "hostUsers" not in stored["spec"]
    assert stored["spec"]["securityContext"] == {}
    assert stored["spec"]["containers"][0]["securityContext"] == {"procMount": "Default"}


async def test_windows_pods_may_not_set_linux_fields(api: Api, namespace: str) -> None:
    container = {"securityContext": {"runAsUser": 1, "windowsOptions": {"hostProcess": True}}}
    spec = {"os": {"name": "windows"}, "securityContext": {"fsGroup": 1}}
    found = await refused(api, namespace, pod("windows", container, **spec))
    assert found == [
        ("spec.hostNetwork", "Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers"),  # noqa: E501
        ("spec.securityContext.fsGroup", "Forbidden: cannot be set for a windows pod"),
        ("spec.containers[0].securityContext.runAsUser", "Forbidden: cannot be set for a windows pod"),  # noqa: E501
    ]  # fmt: skip
    found = await refused(api, namespace, pod("beos", os={"name": "beos"}))
    assert found == [("spec.os", 'Unsupported value: "beos": supported values: "linux", "windows"')]


async def test_a_deployment_template_gets_the_same_security_rules(api: Api, namespace: str) -> None:
    body = deployment("web", {"securityContext": {"runAsUser": -1}})
    found = await refused(api, namespace, body)
    assert found == [("spec.template.spec.containers[0].securityContext.runAsUser", RANGE)]
