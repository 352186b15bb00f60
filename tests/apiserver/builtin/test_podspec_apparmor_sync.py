"""A new pod's AppArmor fields and deprecated annotations made to agree, as 1.32's pod
strategy does (``applyAppArmorVersionSkew``, pkg/registry/core/pod/strategy.go), and the
``Warning`` headers 1.32 answers for annotations it no longer acts on (pkg/api/pod/warnings.go);
each text from the Go source."""

from __future__ import annotations

from typing import Any

from kf_http import Api, Reply
from kf_podspec import pod

PREFIX = "container.apparmor.security.beta.kubernetes.io/"
APPARMOR_DEPRECATED = 'deprecated since v1.30; use the \\"appArmorProfile\\" field instead'
SECCOMP_DEPRECATED = 'non-functional in v1.27+; use the \\"seccompProfile\\" field instead'


async def create(api: Api, namespace: str, body: dict[str, Any]) -> Reply:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", body)
    assert reply.status == 201, reply.body
    return reply


def warnings(reply: Reply) -> list[str]:
    return list(reply.headers.getall("Warning", []))


def annotated(name: str, annotations: dict[str, str], **spec: Any) -> dict[str, Any]:
    body = pod(name, spec.pop("container", None), **spec)
    body["metadata"]["annotations"] = annotations
    return body


def profile(container: dict[str, Any]) -> Any:
    return (container.get("securityContext") or {}).get("appArmorProfile")


async def test_fields_are_copied_to_annotations_without_warning(api: Api, namespace: str) -> None:
    local = {"type": "Localhost", "localhostProfile": "k8s-apparmor-example"}
    body = pod("fields", {"securityContext": {"appArmorProfile": local}})
    body["spec"]["initContainers"] = [{"name": "init", "image": "busybox"}]
    body["spec"]["securityContext"] = {"appArmorProfile": {"type": "RuntimeDefault"}}
    reply = await create(api, namespace, body)
    assert reply.body["metadata"]["annotations"] == {
        f"{PREFIX}init": "runtime/default",
        f"{PREFIX}app": "localhost/k8s-apparmor-example",
    }
    assert warnings(reply) == []


async def test_annotations_become_fields_with_a_deprecation_warning(
    api: Api, namespace: str
) -> None:
    body = annotated("annotations", {f"{PREFIX}app": "localhost/custom"})
    reply = await create(api, namespace, body)
    [app] = reply.body["spec"]["containers"]
    assert profile(app) == {"type": "Localhost", "localhostProfile": "custom"}
    key = f"metadata.annotations[{PREFIX}app]"
    assert warnings(reply) == [f'299 - "{key}: {APPARMOR_DEPRECATED}"']


async def test_an_annotation_like_the_pod_profile_or_unusable_adds_no_field(
    api: Api, namespace: str
) -> None:
    context = {"appArmorProfile": {"type": "Unconfined"}}
    body = annotated("same", {f"{PREFIX}app": "unconfined"}, securityContext=context)
    reply = await create(api, namespace, body)
    assert profile(reply.body["spec"]["containers"][0]) is None
    assert warnings(reply) == []
    # "localhost/" passes the annotation's format check but names no profile.
    reply = await create(api, namespace, annotated("unusable", {f"{PREFIX}app": "localhost/"}))
    assert profile(reply.body["spec"]["containers"][0]) is None
    key = f"metadata.annotations[{PREFIX}app]"
    assert warnings(reply) == [f'299 - "{key}: {APPARMOR_DEPRECATED}"']


async def test_windows_pods_are_not_synced(api: Api, namespace: str) -> None:
    body = annotated("windows", {f"{PREFIX}app": "runtime/default"}, os={"name": "windows"})
    reply = await create(api, namespace, body)
    assert profile(reply.body["spec"]["containers"][0]) is None
    assert warnings(reply) == []


async def test_seccomp_and_retired_annotations_are_warned_of(api: Api, namespace: str) -> None:
    annotations = {
        "seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
        "container.seccomp.security.alpha.kubernetes.io/app": "runtime/default",
        "container.seccomp.security.alpha.kubernetes.io/side": "unconfined",
        "scheduler.alpha.kubernetes.io/critical-pod": "",
        "security.alpha.kubernetes.io/sysctls": "kernel.shm_rmid_forced=1",
    }
    body = annotated("seccomp", annotations)
    side = {"name": "side", "image": "busybox"}
    side["securityContext"] = {"seccompProfile": {"type": "Unconfined"}}
    body["spec"]["containers"].append(side)
    reply = await create(api, namespace, body)
    at = "metadata.annotations"
    assert warnings(reply) == [
        f'299 - "{at}[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; '
        'use the \\"priorityClassName\\" field instead"',
        f'299 - "{at}[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; '
        'use the \\"sysctls\\" field instead"',
        f'299 - "{at}[seccomp.security.alpha.kubernetes.io/pod]: {SECCOMP_DEPRECATED}"',
        f'299 - "{at}[container.seccomp.security.alpha.kubernetes.io/app]: {SECCOMP_DEPRECATED}"',
    ]


async def test_a_pod_update_warns_of_nothing(api: Api, namespace: str) -> None:
    body = annotated("update", {f"{PREFIX}app": "runtime/default"}, nodeName="node-a")
    await create(api, namespace, body)
    path = f"/api/v1/namespaces/{namespace}/pods/update"
    stored = (await api.get(path)).body
    stored["metadata"]["labels"]["touched"] = "yes"
    del stored["metadata"]["resourceVersion"]
    reply = await api.put(path, stored)
    assert reply.status == 200, reply.body
    assert warnings(reply) == []
