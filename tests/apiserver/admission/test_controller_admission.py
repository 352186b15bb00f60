"""The simulated controllers' writes pass admission as on a real cluster: a mutating webhook
sees (and changes) a Deployment's pods, a validating webhook's refusal of a Job's pods is
the Job's FailedCreate event, a ValidatingAdmissionPolicy sees the controller's
ServiceAccount as ``request.userInfo``, and an unreachable webhook fails the controller's
creates or not as its ``failurePolicy`` says. Real webhooks over HTTPS, a real server
with its control plane."""
# ruff: noqa: F811 -- the tests take the fixtures imported from test_webhooks as arguments

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kf_http import Api
from kf_plane import condition, events_for, replica_set, until
from test_webhooks import (  # the webhook server and the fixtures around it, shared
    Review,
    Webhook,
    allow,
    api,  # noqa: F401
    config,
    free_port,
    install,
    namespace,  # noqa: F401
    webhook,  # noqa: F401
)

from kubeforge.testing import LocalApiServer

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
RS_USER = {
    "username": "system:serviceaccount:kube-system:replicaset-controller",
    "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system",
               "system:authenticated"],
}  # fmt: skip
CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"


async def token_user(api: Api, account: str) -> dict[str, Any]:
    """What a bound token of kube-system's ``account`` authenticates as, its jti aside: the
    account's name, groups and uid, and a credential id (kube-controller-manager's
    per-controller tokens; the account exists as its client builder creates it)."""
    sa = await api.get(f"/api/v1/namespaces/kube-system/serviceaccounts/{account}")
    assert sa.status == 200
    return {
        "username": f"system:serviceaccount:kube-system:{account}",
        "uid": sa.body["metadata"]["uid"],
        "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system",
                   "system:authenticated"],
    }  # fmt: skip


def without_jti(user: dict[str, Any]) -> dict[str, Any]:
    """``user`` less its extra, which must be exactly one ``JTI=<uuid>`` credential id."""
    extra = user.get("extra") or {}
    assert list(extra) == [CREDENTIAL_ID]
    (credential,) = extra[CREDENTIAL_ID]
    assert credential.startswith("JTI=") and uuid.UUID(credential[4:])
    return {k: v for k, v in user.items() if k != "extra"}


def _rules(operation: str, resource: str) -> list[dict[str, Any]]:
    return [{"operations": [operation], "apiGroups": [""], "apiVersions": ["v1"],
             "resources": [resource]}]  # fmt: skip


POD_CREATES = _rules("CREATE", "pods")


@pytest.fixture(scope="module")
def server() -> Iterator[LocalApiServer]:
    # A server of the module's own, with its control plane: webhook configurations and
    # policies are cluster-wide.
    with LocalApiServer() as local:
        yield local


def _template(name: str) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": name}},
        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
    }


async def _pods(api: Api, namespace: str, app: str) -> list[dict[str, Any]]:
    reply = await api.get(f"/api/v1/namespaces/{namespace}/pods", labelSelector=f"app={app}")
    return list(reply.body["items"])


async def _failed_creates(api: Api, namespace: str, name: str) -> list[dict[str, Any]]:
    return [e for e in await events_for(api, namespace, name) if e["reason"] == "FailedCreate"]


async def _until_failed_create(api: Api, namespace: str, name: str) -> dict[str, Any]:
    path = f"/api/v1/namespaces/{namespace}/events"
    await until(
        api,
        path,
        lambda body: any(e["reason"] == "FailedCreate" for e in body["items"]),
        fieldSelector=f"involvedObject.name={name}",
    )
    return (await _failed_creates(api, namespace, name))[0]


async def test_a_mutating_webhook_injects_a_sidecar_into_a_deployments_pods(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    sidecar = {"name": "proxy", "image": "envoyproxy/envoy:v1.31"}

    async def inject(review: Review) -> dict[str, Any]:
        patch = [{"op": "add", "path": "/spec/containers/-", "value": sidecar}]
        encoded = base64.b64encode(json.dumps(patch).encode()).decode()
        return {**await allow(review), "patchType": "JSONPatch", "patch": encoded}

    webhook.respond = inject
    await install(api, "Mutating", config("Mutating", webhook, namespace, rules=POD_CREATES))
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": _template("web")},
    }  # fmt: skip
    path = f"/apis/apps/v1/namespaces/{namespace}/deployments"
    assert (await api.post(path, deployment)).status == 201
    available = await until(
        api, f"{path}/web", lambda d: (d.get("status") or {}).get("availableReplicas") == 2
    )
    assert condition(available, "Available")["status"] == "True"
    pods = await _pods(api, namespace, "web")
    assert len(pods) == 2
    for pod in pods:
        assert [c["name"] for c in pod["spec"]["containers"]] == ["main", "proxy"]
        statuses = pod["status"]["containerStatuses"]
        assert sorted(s["name"] for s in statuses) == ["main", "proxy"]
    reviewed = [r for r in webhook.requests() if r["namespace"] == namespace]
    assert len(reviewed) == 2
    rs_user = await token_user(api, "replicaset-controller")
    for request in reviewed:
        assert without_jti(request["userInfo"]) == rs_user
        assert request["operation"] == "CREATE"
        assert request["object"]["metadata"]["generateName"].startswith("web-")
        owner = request["object"]["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["controller"]) == ("ReplicaSet", True)
    assert len({json.dumps(r["userInfo"]) for r in reviewed}) == 1  # one token
    assert sorted(r["name"] for r in reviewed) == sorted(p["metadata"]["name"] for p in pods)


async def test_a_validating_webhook_that_denies_a_jobs_pods_is_its_failed_create(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def deny(review: Review) -> dict[str, Any]:
        status = {"code": 403, "message": "batch pods are not allowed here"}
        return {"uid": review["request"]["uid"], "allowed": False, "status": status}

    webhook.respond = deny
    await install(api, "Validating", config("Validating", webhook, namespace, rules=POD_CREATES))
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "refused"},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "main", "image": "busybox"}]}}},
    }  # fmt: skip
    assert (await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", job)).status == 201
    event = await _until_failed_create(api, namespace, "refused")
    assert event["type"] == "Warning"
    assert event["source"] == {"component": "job-controller"}
    assert event["involvedObject"]["kind"] == "Job"
    assert event["message"] == (
        'Error creating: admission webhook "check.example.com" denied the request: '
        "batch pods are not allowed here"
    )
    assert await _pods(api, namespace, "refused") == []
    user = webhook.requests()[0]["userInfo"]["username"]
    assert user == "system:serviceaccount:kube-system:job-controller"


async def test_a_policy_on_request_user_info_sees_the_controllers_service_account(
    api: Api, namespace: str
) -> None:
    name = f"no-rs-pods-{uuid.uuid4().hex[:6]}"
    rs_user = RS_USER["username"]
    spec = {
        "matchConstraints": {
            "resourceRules": POD_CREATES,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        },
        "validations": [{
            "expression": f"request.userInfo.username != '{rs_user}'",
            "messageExpression": "'pods by ' + request.userInfo.username + ' are not wanted'",
        }],
    }  # fmt: skip
    policy = {"metadata": {"name": name}, "spec": spec}
    assert (await api.post(f"{ADMISSION}/validatingadmissionpolicies", policy)).status == 201
    binding = {"metadata": {"name": f"{name}-binding"},
               "spec": {"policyName": name, "validationActions": ["Deny"]}}  # fmt: skip
    assert (await api.post(f"{ADMISSION}/validatingadmissionpolicybindings", binding)).status == 201
    try:
        sets = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
        assert (await api.post(sets, replica_set("guarded", 2))).status == 201
        event = await _until_failed_create(api, namespace, "guarded")
        refusal = (
            f"ValidatingAdmissionPolicy '{name}' with binding '{name}-binding' denied request: "
            f"pods by {rs_user} are not wanted"
        )
        assert event["message"].startswith('Error creating: pods "guarded-')
        assert event["message"].endswith(f" is forbidden: {refusal}")
        failing = await until(
            api, f"{sets}/guarded", lambda rs: bool(condition(rs, "ReplicaFailure"))
        )
        assert condition(failing, "ReplicaFailure")["reason"] == "FailedCreate"
        assert await _pods(api, namespace, "guarded") == []
        # Another user's pod is let through: the policy looked at who asked.
        mine = {"metadata": {"name": "mine", "labels": {"app": "mine"}},
                "spec": _template("mine")["spec"]}  # fmt: skip
        assert (await api.post(f"/api/v1/namespaces/{namespace}/pods", mine)).status == 201
    finally:
        await api.delete(f"{ADMISSION}/validatingadmissionpolicybindings/{name}-binding")
        await api.delete(f"{ADMISSION}/validatingadmissionpolicies/{name}")


async def test_an_unreachable_webhook_fails_controller_creates_unless_its_policy_is_ignore(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    dead = Webhook(f"https://127.0.0.1:{free_port()}", webhook.ca_bundle)
    await install(api, "Validating", config("Validating", dead, namespace, rules=POD_CREATES))
    sets = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
    assert (await api.post(sets, replica_set("strict", 2))).status == 201
    event = await _until_failed_create(api, namespace, "strict")
    assert event["message"].startswith(
        'Error creating: Internal error occurred: failed calling webhook "check.example.com": '
        f'failed to call webhook: Post "{dead.url}/?timeout=10s"'
    )
    assert await _pods(api, namespace, "strict") == []
    await api.delete(f"{ADMISSION}/validatingwebhookconfigurations")
    lenient = config("Validating", dead, namespace, rules=POD_CREATES, failurePolicy="Ignore")
    await install(api, "Validating", lenient)
    assert (await api.post(sets, replica_set("lenient", 2))).status == 201
    await until(api, f"{sets}/lenient", lambda rs: (rs.get("status") or {}).get("replicas") == 2)
    assert len(await _pods(api, namespace, "lenient")) == 2
    assert await _failed_creates(api, namespace, "lenient") == []


async def test_the_garbage_collectors_deletes_are_seen_as_its_service_account(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    deletes = _rules("DELETE", "configmaps")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=deletes))
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    owner = (await api.post(path, {"metadata": {"name": "owner"}})).body
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
           "uid": owner["metadata"]["uid"]}  # fmt: skip
    dependent = {"metadata": {"name": "dependent", "ownerReferences": [ref]}}
    assert (await api.post(path, dependent)).status == 201
    assert (await api.delete(f"{path}/owner")).status == 200
    await until(api, path, lambda body: not any(
        c["metadata"]["name"] == "dependent" for c in body["items"]))  # fmt: skip
    by_name = {r["name"]: r["userInfo"]["username"] for r in webhook.requests()}
    assert by_name["dependent"] == "system:serviceaccount:kube-system:generic-garbage-collector"
    assert by_name["owner"] != by_name["dependent"]  # the test's own user deleted the owner


async def test_a_controllers_events_are_admitted_as_its_service_account(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    events = _rules("CREATE", "events")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=events))
    sets = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
    assert (await api.post(sets, replica_set("told", 1))).status == 201
    path = f"/api/v1/namespaces/{namespace}/events"
    created = await until(
        api,
        path,
        lambda body: any(e["reason"] == "SuccessfulCreate" for e in body["items"]),
        fieldSelector="involvedObject.name=told",
    )
    (event,) = [e for e in created["items"] if e["reason"] == "SuccessfulCreate"]
    reviewed = [r for r in webhook.requests() if r["name"] == event["metadata"]["name"]]
    assert [without_jti(r["userInfo"]) for r in reviewed] == [
        await token_user(api, "replicaset-controller")
    ]
    assert reviewed[0]["object"]["reason"] == "SuccessfulCreate"


async def test_a_refused_delete_keeps_a_namespace_terminating_until_it_is_allowed(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def keep(review: Review) -> dict[str, Any]:
        status = {"code": 403, "message": "keep it"}
        return {"uid": review["request"]["uid"], "allowed": False, "status": status}

    webhook.respond = keep
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    assert (await api.post(path, {"metadata": {"name": "precious"}})).status == 201
    deletes = _rules("DELETE", "configmaps")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=deletes))
    assert (await api.delete(f"/api/v1/namespaces/{namespace}")).status == 200
    stuck = await until(
        api,
        f"/api/v1/namespaces/{namespace}",
        lambda ns: condition(ns, "NamespaceDeletionContentFailure").get("status") == "True",
    )
    failure = condition(stuck, "NamespaceDeletionContentFailure")
    assert failure["reason"] == "ContentDeletionFailed"
    assert failure["message"] == (
        "Failed to delete all resource types, 1 remaining: "
        'admission webhook "check.example.com" denied the request: keep it'
    )
    users = {r["userInfo"]["username"] for r in webhook.requests() if r["name"] == "precious"}
    assert users == {"system:serviceaccount:kube-system:namespace-controller"}
    await api.delete(f"{ADMISSION}/validatingwebhookconfigurations")
    # No event follows a refusal: the controller's back-off brings it back, and it ends.
    for _ in range(1200):  # a bound on the wait, not a timing check
        if (await api.get(f"/api/v1/namespaces/{namespace}")).status == 404:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"namespace {namespace} was never deleted")


async def test_a_policy_sees_the_controllers_token_uid_and_credential_id(
    api: Api, namespace: str
) -> None:
    name = f"token-pods-{uuid.uuid4().hex[:6]}"
    spec = {
        "matchConstraints": {
            "resourceRules": POD_CREATES,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        },
        "validations": [{
            # Refuse what a bound service-account token sends: a uid and a JTI credential id.
            "expression": "!(has(request.userInfo.uid) && "
                          f"request.userInfo.extra['{CREDENTIAL_ID}'][0].startsWith('JTI='))",
            "messageExpression": "'token of ' + request.userInfo.uid",
        }],
    }  # fmt: skip
    policy = {"metadata": {"name": name}, "spec": spec}
    assert (await api.post(f"{ADMISSION}/validatingadmissionpolicies", policy)).status == 201
    binding = {"metadata": {"name": f"{name}-binding"},
               "spec": {"policyName": name, "validationActions": ["Deny"]}}  # fmt: skip
    assert (await api.post(f"{ADMISSION}/validatingadmissionpolicybindings", binding)).status == 201
    try:
        sets = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
        assert (await api.post(sets, replica_set("tokened", 1))).status == 201
        event = await _until_failed_create(api, namespace, "tokened")
        uid = (await token_user(api, "replicaset-controller"))["uid"]
        assert event["message"].endswith(f"denied request: token of {uid}")
        # The admin's own request (no uid, no extra) is let through.
        mine = {"metadata": {"name": "mine"}, "spec": _template("mine")["spec"]}
        assert (await api.post(f"/api/v1/namespaces/{namespace}/pods", mine)).status == 201
    finally:
        await api.delete(f"{ADMISSION}/validatingadmissionpolicybindings/{name}-binding")
        await api.delete(f"{ADMISSION}/validatingadmissionpolicies/{name}")
