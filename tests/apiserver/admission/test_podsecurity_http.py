"""PodSecurity over raw HTTP, as kube-apiserver 1.32 answers: 403 Status for a pod the
enforce level forbids, ``Warning: 299`` headers for the warn level and for pod
templates, 422 for a bad label, warnings about existing pods when a namespace's enforce
level gets stricter, and the plugin switched off by ``--disable-admission-plugins``."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import pytest
from kf_http import Api, open_api

from kubeforge.testing import LocalApiServer

pytestmark = pytest.mark.live

P = "pod-security.kubernetes.io/"
MERGE = "application/merge-patch+json"
RESTRICTED_VIOLATIONS = (
    'allowPrivilegeEscalation != false (container "main" must set '
    "securityContext.allowPrivilegeEscalation=false), "
    'unrestricted capabilities (container "main" must set '
    'securityContext.capabilities.drop=["ALL"]), '
    'runAsNonRoot != true (pod or container "main" must set securityContext.runAsNonRoot=true), '
    'seccompProfile (pod or container "main" must set securityContext.seccompProfile.type to '
    '"RuntimeDefault" or "Localhost")'
)
PRIVILEGED_DETAIL = 'privileged (container "main" must not set securityContext.privileged=true)'


def _pod(name: str, **security: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": "nginx:1.27"}
    if security:
        container["securityContext"] = security
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [container]}}  # fmt: skip


async def _namespace(api: Api, **labels: str) -> str:
    name = f"psa-{uuid.uuid4().hex[:10]}"
    body = {
        "metadata": {
            "name": name,
            "labels": {P + k.replace("_", "-"): v for k, v in labels.items()},
        }
    }
    reply = await api.post("/api/v1/namespaces", body)
    assert reply.status == 201, reply.body
    return name


def _warnings(headers: Any) -> list[str]:
    return list(headers.getall("Warning", []))


def _header(text: str) -> str:
    return '299 - "' + text.replace('"', '\\"') + '"'


async def test_the_enforce_level_refuses_a_pod_with_the_go_status(api: Api) -> None:
    ns = await _namespace(api, enforce="restricted")
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod("web"))
    assert reply.status == 403
    assert reply.body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'pods "web" is forbidden: violates PodSecurity "restricted:latest": '
        f"{RESTRICTED_VIOLATIONS}",
        "reason": "Forbidden",
        "details": {"name": "web", "kind": "pods"},
        "code": 403,
    }
    assert _warnings(reply.headers) == []
    hardened = _pod(
        "hardened",
        allowPrivilegeEscalation=False,
        capabilities={"drop": ["ALL"]},
        runAsNonRoot=True,
        seccompProfile={"type": "RuntimeDefault"},
    )
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", hardened)
    assert reply.status == 201, reply.body
    assert _warnings(reply.headers) == []


async def test_the_warn_level_answers_with_a_warning_header(api: Api) -> None:
    ns = await _namespace(api, warn="baseline", warn_version="v1.31")
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod("root", privileged=True))
    assert reply.status == 201, reply.body
    assert _warnings(reply.headers) == [
        _header(f'would violate PodSecurity "baseline:v1.31": {PRIVILEGED_DETAIL}')
    ]
    reply = await api.post(
        f"/api/v1/namespaces/{ns}/pods", _pod("dry", privileged=True), params={"dryRun": "All"}
    )
    assert reply.status == 201 and len(_warnings(reply.headers)) == 1


async def test_pod_controllers_are_warned_and_never_refused(api: Api) -> None:
    ns = await _namespace(api, enforce="restricted")
    template = {"metadata": {"labels": {"app": "web"}}, "spec": _pod("x")["spec"]}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template},
    }
    reply = await api.post(f"/apis/apps/v1/namespaces/{ns}/deployments", deployment)
    assert reply.status == 201, reply.body
    warning = f'would violate PodSecurity "restricted:latest": {RESTRICTED_VIOLATIONS}'
    assert _warnings(reply.headers) == [_header(warning)]
    cronjob = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "tick"},
        "spec": {
            "schedule": "0 0 1 1 *",
            "jobTemplate": {"spec": {"template": {**template, "spec": {
                **template["spec"], "restartPolicy": "Never"}}}},
        },
    }  # fmt: skip
    reply = await api.post(f"/apis/batch/v1/namespaces/{ns}/cronjobs", cronjob)
    assert reply.status == 201, reply.body
    assert _warnings(reply.headers) == [_header(warning)]


async def test_a_bad_label_value_is_422(api: Api) -> None:
    name = f"psa-{uuid.uuid4().hex[:10]}"
    labels = {P + "enforce": "strict", P + "warn-version": "v2.0"}
    reply = await api.post("/api/v1/namespaces", {"metadata": {"name": name, "labels": labels}})
    assert reply.status == 422
    assert reply.body["message"] == (
        f'Namespace "{name}" is invalid: ['
        f'metadata.labels[{P}enforce]: Invalid value: "strict": must be one of privileged, '
        f"baseline, restricted, "
        f'metadata.labels[{P}warn-version]: Invalid value: "v2.0": must be "latest" or "v1.x"]'
    )
    assert reply.body["details"]["causes"][0] == {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "strict": must be one of privileged, baseline, restricted',
        "field": f"metadata.labels[{P}enforce]",
    }
    ns = await _namespace(api)
    patch = {"metadata": {"labels": {P + "audit": "loud"}}}
    reply = await api.patch(f"/api/v1/namespaces/{ns}", patch, MERGE)
    assert reply.status == 422
    assert reply.body["reason"] == "Invalid"


async def test_a_stricter_enforce_label_warns_about_existing_pods(api: Api) -> None:
    ns = await _namespace(api)
    for name in ("b-root", "a-root"):
        reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod(name, privileged=True))
        assert reply.status == 201, reply.body
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod("plain"))
    assert reply.status == 201, reply.body
    patch = {"metadata": {"labels": {P + "enforce": "baseline"}}}
    reply = await api.patch(f"/api/v1/namespaces/{ns}", patch, MERGE)
    assert reply.status == 200, reply.body
    assert _warnings(reply.headers) == [
        _header(
            f'existing pods in namespace "{ns}" violate the new PodSecurity enforce level '
            '"baseline:latest"'
        ),
        _header("a-root (and 1 other pod): privileged"),
    ]
    # Relaxing, or relabelling with the same level, checks nothing.
    for level in ("baseline", "privileged"):
        patch = {"metadata": {"labels": {P + "enforce": level, "touched": level}}}
        reply = await api.patch(f"/api/v1/namespaces/{ns}", patch, MERGE)
        assert reply.status == 200 and _warnings(reply.headers) == []


async def test_updates_are_checked_only_when_an_image_or_a_container_changes(api: Api) -> None:
    ns = await _namespace(api)
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod("old", privileged=True))
    assert reply.status == 201, reply.body
    patch = {"metadata": {"labels": {P + "enforce": "baseline"}}}
    assert (await api.patch(f"/api/v1/namespaces/{ns}", patch, MERGE)).status == 200
    path = f"/api/v1/namespaces/{ns}/pods/old"
    reply = await api.patch(path, {"metadata": {"labels": {"seen": "yes"}}}, MERGE)
    assert reply.status == 200, reply.body
    retag = {"spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]}}
    reply = await api.patch(path, retag, "application/strategic-merge-patch+json")
    assert reply.status == 403
    assert reply.body["message"] == (
        f'pods "old" is forbidden: violates PodSecurity "baseline:latest": {PRIVILEGED_DETAIL}'
    )


async def test_an_ephemeral_container_is_checked(api: Api) -> None:
    ns = await _namespace(api, enforce="baseline")
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod("target"))
    assert reply.status == 201, reply.body
    pod = reply.body
    debug = {"name": "dbg", "image": "busybox", "securityContext": {"privileged": True},
             "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}  # fmt: skip
    pod["spec"]["ephemeralContainers"] = [debug]
    del pod["metadata"]["resourceVersion"]  # unconditional: the kubelet may write in between
    path = f"/api/v1/namespaces/{ns}/pods/target/ephemeralcontainers"
    reply = await api.put(path, pod)
    assert reply.status == 403
    assert reply.body["message"] == (
        'pods "target" is forbidden: violates PodSecurity "baseline:latest": '
        'privileged (container "dbg" must not set securityContext.privileged=true)'
    )


async def test_the_plugin_can_be_disabled() -> None:
    with LocalApiServer(
        simulate_node=False, extra_args=["--disable-admission-plugins=PodSecurity"]
    ) as server:
        session = await open_api(server)
        async with session:
            api = Api(server, session)
            ns = await _namespace(api, enforce="restricted")
            reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod("free", privileged=True))
            assert reply.status == 201, reply.body
            assert _warnings(reply.headers) == []


async def test_the_audit_level_goes_to_the_server_log(api: Api) -> None:
    ns = await _namespace(api, audit="baseline")
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", _pod("audited", privileged=True))
    assert reply.status == 201, reply.body
    assert _warnings(reply.headers) == []
    annotations = {
        P + "audit-violations": f'would violate PodSecurity "baseline:latest": {PRIVILEGED_DETAIL}',
        P + "enforce-policy": "privileged:latest",
    }
    line = f"CREATE pods {ns}/audited annotations={json.dumps(annotations)}"
    deadline = time.monotonic() + 30  # the log is written by another process
    while line not in api.server.log():
        assert time.monotonic() < deadline, api.server.log()[-2000:]
        await asyncio.sleep(0.05)


async def test_a_refused_pod_is_named_as_the_phase_that_refused_it_saw_it(api: Api) -> None:
    # Names are generated between mutating and validating admission (rest.BeforeCreate):
    # a mutating plugin's refusal names the generateName (apiserver's extractResourceName),
    # a validating one's, PodSecurity's, the generated name.
    ns = await _namespace(api, enforce="restricted")
    pod = _pod("")
    pod["metadata"] = {"generateName": "web-"}
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", pod)
    assert reply.status == 403
    name = reply.body["details"]["name"]
    assert name.startswith("web-") and len(name) == len("web-") + 5
    assert reply.body["message"].startswith(f'pods "{name}" is forbidden: violates PodSecurity')
    pod["spec"]["serviceAccountName"] = "nope"
    reply = await api.post(f"/api/v1/namespaces/{ns}/pods", pod)
    assert reply.status == 403
    assert reply.body["message"] == (
        f'pods "web-" is forbidden: error looking up service account {ns}/nope: '
        'serviceaccount "nope" not found'
    )
