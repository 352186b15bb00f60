"""The annotations a 1.32 server reads on a pod, checked as ``ValidatePodSpecificAnnotations``
and ``ValidatePodSpecificAnnotationUpdates`` (pkg/apis/core/validation) do, and their
agreement with the seccomp/AppArmor fields (``validateSeccompAnnotationsAndFields``,
``validateAppArmorAnnotationsAndFieldsMatchOnCreate``); each message from the Go source."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes, created, deployment, pod, refused

MIRROR = "kubernetes.io/config.mirror"
TOLERATIONS = "scheduler.alpha.kubernetes.io/tolerations"
COST = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_APP = "container.seccomp.security.alpha.kubernetes.io/app"
APPARMOR_APP = "container.apparmor.security.beta.kubernetes.io/app"


def annotated(name: str, annotations: dict[str, str], **spec: Any) -> dict[str, Any]:
    body = pod(name, spec.pop("container", None), **spec)
    body["metadata"]["annotations"] = annotations
    return body


async def current(api: Api, path: str) -> dict[str, Any]:
    """The stored pod, to PUT back changed (without its resourceVersion, as pods allow, so
    a status write by the simulated kubelet in between does not make it a conflict)."""
    reply = await api.get(path)
    assert reply.status == 200, reply.body
    body: dict[str, Any] = reply.body
    del body["metadata"]["resourceVersion"]
    return body


async def test_mirror_pods_need_a_node(api: Api, namespace: str) -> None:
    found = await refused(api, namespace, annotated("mirror", {MIRROR: "x"}))
    assert found == [
        (
            f"metadata.annotations[{MIRROR}]",
            'Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
        )
    ]
    await created(api, namespace, annotated("mirror", {MIRROR: "x"}, nodeName="node-a"))


async def test_tolerations_annotation_is_decoded_and_validated(api: Api, namespace: str) -> None:
    at = "metadata.annotations"
    for text, problem in (
        ("not json", "invalid character 'o' in literal null (expecting 'u')"),
        ("[{}, ", "unexpected end of JSON input"),
        (
            '[{"key": 1}]',
            "json: cannot unmarshal number into Go struct field Toleration.key of type string",
        ),
        ('{"key": "a"}', "json: cannot unmarshal object into Go value of type []core.Toleration"),
    ):
        found = await refused(api, namespace, annotated("tol", {TOLERATIONS: text}))
        assert found == [(at, f'Invalid value: "{TOLERATIONS}": {problem}')]
    text = '[{"operator": "Equal", "value": "x"}, {"key": "k", "tolerationSeconds": 5}]'
    found = await refused(api, namespace, annotated("tol", {TOLERATIONS: text}))
    assert found == [
        (
            f"{at}.{TOLERATIONS}[0].operator",
            'Invalid value: "Equal": operator must be Exists when `key` is empty, which means '
            '"match all values and all keys"',
        ),
        (
            f"{at}.{TOLERATIONS}[1].effect",
            "Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
    ]
    fine = '[{"Key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]'
    await created(api, namespace, annotated("tol", {TOLERATIONS: fine}))


async def test_deletion_cost_is_a_32_bit_integer(api: Api, namespace: str) -> None:
    for value in ("+10", "007", "2147483648", "1.5", "-", " 1", "abc"):
        found = await refused(api, namespace, annotated("cost", {COST: value}))
        assert found == [
            (f"metadata.annotations[{COST}]", f'Invalid value: "{value}": must be a 32bit integer')
        ]
    for i, value in enumerate(("0", "-2147483648", "2147483647", "-007")):
        await created(api, namespace, annotated(f"cost-{i}", {COST: value}))


async def test_seccomp_annotations_name_a_profile(api: Api, namespace: str) -> None:
    annotations = {SECCOMP_POD: "bogus", SECCOMP_APP: "localhost/../x"}
    found = await refused(api, namespace, annotated("seccomp", annotations))
    assert found == [
        (
            f"metadata.annotations.{SECCOMP_POD}",
            'Invalid value: "bogus": must be a valid seccomp profile',
        ),
        (f"metadata.annotations.{SECCOMP_APP}", "Invalid value: \"../x\": must not contain '..'"),
    ]
    found = await refused(api, namespace, annotated("seccomp", {SECCOMP_APP: "localhost//abs"}))
    assert found == [
        (f"metadata.annotations.{SECCOMP_APP}", 'Invalid value: "/abs": must be a relative path')
    ]
    fine = {SECCOMP_POD: "docker/default", SECCOMP_APP: "localhost/profiles/a.json"}
    await created(api, namespace, annotated("seccomp", fine))


async def test_apparmor_annotations_name_a_container_and_a_profile(
    api: Api, namespace: str
) -> None:
    ghost = "container.apparmor.security.beta.kubernetes.io/ghost"
    annotations = {ghost: "runtime/default", APPARMOR_APP: "docker-default"}
    found = await refused(api, namespace, annotated("apparmor", annotations))
    assert found == [
        (f"metadata.annotations[{ghost}]", 'Invalid value: "ghost": container not found'),
        (
            f"metadata.annotations[{APPARMOR_APP}]",
            'Invalid value: "docker-default": invalid AppArmor profile name: "docker-default"',
        ),
    ]


async def test_annotations_and_fields_must_agree_on_create(api: Api, namespace: str) -> None:
    container = {
        "securityContext": {
            "appArmorProfile": {"type": "Localhost", "localhostProfile": "a"},
            "seccompProfile": {"type": "Localhost", "localhostProfile": "a.json"},
        }
    }
    annotations = {
        APPARMOR_APP: "localhost/b",
        SECCOMP_POD: "unconfined",
        SECCOMP_APP: "localhost/b.json",
    }
    context = {"seccompProfile": {"type": "RuntimeDefault"}}
    body = annotated("agree", annotations, container=container, securityContext=context)
    found = await refused(api, namespace, body)
    at = "spec.containers[0].securityContext"
    assert found == [
        (
            "spec.securityContext.seccompProfile.type",
            "Forbidden: seccomp type in annotation and field must match",
        ),
        (
            f"{at}.seccompProfile.localhostProfile",
            "Forbidden: seccomp profile in annotation and field must match",
        ),
        (
            f"{at}.appArmorProfile.localhostProfile",
            "Forbidden: apparmor profile in annotation and field must match",
        ),
    ]
    container = {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}}
    body = annotated("agree", {APPARMOR_APP: "unconfined"}, container=container)
    assert await refused(api, namespace, body) == [
        (
            f"{at}.appArmorProfile.type",
            "Forbidden: apparmor type in annotation and field must match",
        )
    ]


async def test_templates_get_the_same_rules_under_their_own_path(api: Api, namespace: str) -> None:
    body = deployment("tpl", {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}})
    body["spec"]["template"]["metadata"]["annotations"] = {
        APPARMOR_APP: "unconfined",
        COST: "x",
    }
    found = await refused(api, namespace, body)
    assert found == [
        (f"spec.template.annotations[{COST}]", 'Invalid value: "x": must be a 32bit integer'),
        (
            "spec.template.spec.containers[0].securityContext.appArmorProfile.type",
            "Forbidden: apparmor type in annotation and field must match",
        ),
    ]


async def test_pod_templates_are_checked_under_template(api: Api, namespace: str) -> None:
    template = pod("pt", {"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}})
    del template["apiVersion"], template["kind"]
    template["metadata"]["annotations"] = {SECCOMP_APP: "unconfined", MIRROR: "m"}
    body = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt"}}
    body["template"] = template
    reply = await api.post(f"/api/v1/namespaces/{namespace}/podtemplates", body)
    assert causes(reply) == [
        (
            f"template.annotations[{MIRROR}]",
            'Invalid value: "m": must set spec.nodeName if mirror pod annotation is set',
        ),
        (
            "template.spec.containers[0].securityContext.seccompProfile.type",
            "Forbidden: seccomp type in annotation and field must match",
        ),
    ]


async def test_mirror_and_apparmor_annotations_are_fixed_at_creation(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods/fixed"
    body = annotated("fixed", {APPARMOR_APP: "runtime/default", MIRROR: "m"}, nodeName="node-a")
    await created(api, namespace, body)
    for change in ("unconfined", None):
        body = await current(api, path)
        annotations = body["metadata"]["annotations"]
        del annotations[MIRROR]
        if change is None:
            del annotations[APPARMOR_APP]
        else:
            annotations[APPARMOR_APP] = change
        assert causes(await api.put(path, body)) == [
            (
                f"metadata.annotations[{APPARMOR_APP}]",
                "Forbidden: may not remove or update AppArmor annotations",
            ),
            (
                f"metadata.annotations[{MIRROR}]",
                "Forbidden: may not remove or update mirror pod annotation",
            ),
        ]
    await created(api, namespace, pod("plain", nodeName="node-a"))
    path = f"/api/v1/namespaces/{namespace}/pods/plain"
    plain = await current(api, path)
    plain["metadata"]["annotations"] = {MIRROR: "x", APPARMOR_APP: "unconfined"}
    found = causes(await api.put(path, plain))
    assert found == [
        (f"metadata.annotations[{MIRROR}]", "Forbidden: may not add mirror pod annotation"),
        (f"metadata.annotations[{APPARMOR_APP}]", "Forbidden: may not add AppArmor annotations"),
    ]


async def test_an_update_repeats_the_annotation_errors_in_causes_not_in_the_message(
    api: Api, namespace: str
) -> None:
    await created(api, namespace, annotated("twice", {COST: "1"}, nodeName="node-a"))
    path = f"/api/v1/namespaces/{namespace}/pods/twice"
    body = await current(api, path)
    body["metadata"]["annotations"][COST] = "one"
    reply = await api.put(path, body)
    error = (f"metadata.annotations[{COST}]", 'Invalid value: "one": must be a 32bit integer')
    assert causes(reply) == [error, error]
    assert reply.body["message"] == f'Pod "twice" is invalid: {error[0]}: {error[1]}'
