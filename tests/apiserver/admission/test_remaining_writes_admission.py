"""The control plane's last writes that skipped admission pass it as on a real cluster: the
kubelet's final delete of a stopped pod (as its node, grace 0, the pod's uid as a
precondition), the namespace controller's status writes and ``/finalize``, the token
controller's Secret writes (as ``system:kube-controller-manager``), the ClusterRole
aggregator's updates and the default StorageClass's create (kind's install, as the
admin), and the annotations a mutating webhook gives a pod's Binding land on the pod.
Controllers write as their bound tokens authenticate: the ServiceAccount's uid and a
credential id. Real webhooks over HTTPS, a real server with its control plane."""
# ruff: noqa: F811 -- the tests take the fixtures imported from test_webhooks as arguments

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kf_http import Api, open_api
from kf_plane import until
from test_control_plane_admission import _pod, _running
from test_controller_admission import token_user, without_jti
from test_webhooks import (  # the webhook server and the fixtures around it, shared
    Review,
    Webhook,
    allow,
    api,  # noqa: F401
    config,
    install,
    namespace,  # noqa: F401
    webhook,  # noqa: F401
)

from kubeforge.testing import LocalApiServer

RBAC = "/apis/rbac.authorization.k8s.io/v1"
CONTROLLER_MANAGER = {"username": "system:kube-controller-manager",
                      "groups": ["system:authenticated"]}  # fmt: skip


@pytest.fixture(scope="module")
def server() -> Iterator[LocalApiServer]:
    # A server of the module's own, with its control plane: webhook configurations are
    # cluster-wide.
    with LocalApiServer() as local:
        yield local


def _rules(operation: str, resource: str, group: str = "") -> list[dict[str, Any]]:
    return [{"operations": [operation], "apiGroups": [group], "apiVersions": ["v1"],
             "resources": [resource]}]  # fmt: skip


def _selected(kind: str, hook: Webhook, label: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
    """A webhook configuration for cluster-scoped objects labelled ``admitgaps=<label>``."""
    body = config(kind, hook, "", rules=rules)
    spec = body["webhooks"][0]
    del spec["namespaceSelector"]
    spec["objectSelector"] = {"matchLabels": {"admitgaps": label}}
    return body


def _refusing(
    refuse: Callable[[dict[str, Any]], bool],
) -> Callable[[Review], Awaitable[dict[str, Any]]]:
    """A responder that refuses the requests ``refuse`` picks and allows the rest."""

    async def respond(review: Review) -> dict[str, Any]:
        if not refuse(review["request"]):
            return await allow(review)
        status = {"code": 403, "message": "not now"}
        return {"uid": review["request"]["uid"], "allowed": False, "status": status}

    return respond


async def _gone(api: Api, path: str, name: str) -> None:
    await until(api, path, lambda body: not body["items"], fieldSelector=f"metadata.name={name}")


# --- the kubelet's final delete ------------------------------------------------------------


async def test_the_kubelets_final_delete_is_its_nodes_with_grace_zero_and_the_pods_uid(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    rules = _rules("DELETE", "pods")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    path = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(path, _pod("web"))).status == 201
    running = await until(api, f"{path}/web", _running)
    node, uid = running["spec"]["nodeName"], running["metadata"]["uid"]
    reply = await api.delete(f"{path}/web", {"gracePeriodSeconds": 1})
    assert reply.status == 200, reply.body
    await _gone(api, path, "web")
    client, kubelet = [r for r in webhook.requests() if r["name"] == "web"]
    assert client["options"] == {
        "kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": 1,
    }  # fmt: skip
    assert kubelet["userInfo"] == {
        "username": f"system:node:{node}", "groups": ["system:nodes", "system:authenticated"],
    }  # fmt: skip
    assert kubelet["operation"] == "DELETE"
    assert kubelet["options"] == {
        "kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": 0,
        "preconditions": {"uid": uid},
    }  # fmt: skip
    assert kubelet["oldObject"]["metadata"]["deletionTimestamp"]


async def test_a_refused_final_delete_keeps_the_pod_until_the_kubelet_is_let_through(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    webhook.respond = _refusing(lambda r: r["userInfo"]["username"].startswith("system:node:"))
    rules = _rules("DELETE", "pods")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    path = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(path, _pod("held"))).status == 201
    await until(api, f"{path}/held", _running)
    assert (await api.delete(f"{path}/held", {"gracePeriodSeconds": 1})).status == 200
    await until(api, path, lambda _: len(webhook.requests()) >= 2)
    held = await api.get(f"{path}/held")
    assert held.status == 200  # the kubelet's delete was refused: the pod stays, terminating
    assert held.body["metadata"]["deletionTimestamp"]
    webhook.respond = allow
    await _gone(api, path, "held")  # sent again at the status manager's next sync


# --- the namespace controller --------------------------------------------------------------


def _namespace_hook(hook: Webhook, label: str) -> dict[str, Any]:
    rules = _rules("UPDATE", "namespaces/status") + _rules("UPDATE", "namespaces/finalize")
    return _selected("Validating", hook, label, rules)


async def _terminate(api: Api, label: str) -> str:
    name = f"ending-{label}"
    body = {"metadata": {"name": name, "labels": {"admitgaps": label}}}
    assert (await api.post("/api/v1/namespaces", body)).status == 201
    cm = {"metadata": {"name": "content"}, "data": {"a": "b"}}
    assert (await api.post(f"/api/v1/namespaces/{name}/configmaps", cm)).status == 201
    assert (await api.delete(f"/api/v1/namespaces/{name}")).status == 200
    return name


async def test_the_namespace_controllers_status_and_finalize_are_its_requests(
    api: Api, webhook: Webhook
) -> None:
    label = uuid.uuid4().hex[:10]
    await install(api, "Validating", _namespace_hook(webhook, label))
    name = await _terminate(api, label)
    await _gone(api, "/api/v1/namespaces", name)
    reviewed = [r for r in webhook.requests() if r["name"] == name]
    assert {r["subResource"] for r in reviewed} == {"status", "finalize"}
    assert reviewed[-1]["subResource"] == "finalize"
    user = await token_user(api, "namespace-controller")
    assert all(without_jti(r["userInfo"]) == user for r in reviewed)
    finalize = reviewed[-1]
    assert finalize["operation"] == "UPDATE"
    assert finalize["oldObject"]["spec"]["finalizers"] == ["kubernetes"]
    assert not (finalize["object"].get("spec") or {}).get("finalizers")
    status = [r for r in reviewed if r["subResource"] == "status"]
    conditions = {c["type"] for c in status[-1]["object"]["status"]["conditions"]}
    assert "NamespaceContentRemaining" in conditions


async def test_a_refused_finalize_keeps_the_namespace_terminating_until_allowed(
    api: Api, webhook: Webhook
) -> None:
    label = uuid.uuid4().hex[:10]
    webhook.respond = _refusing(lambda r: r.get("subResource") == "finalize")
    await install(api, "Validating", _namespace_hook(webhook, label))
    name = await _terminate(api, label)
    await until(api, "/api/v1/namespaces", lambda _: any(
        r["name"] == name and r.get("subResource") == "finalize" for r in webhook.requests()
    ))  # fmt: skip
    held = await api.get(f"/api/v1/namespaces/{name}")
    assert held.status == 200
    assert held.body["status"]["phase"] == "Terminating"
    assert held.body["spec"]["finalizers"] == ["kubernetes"]
    webhook.respond = allow
    await _gone(api, "/api/v1/namespaces", name)  # tried again after the queue's back-off


async def test_a_finalize_sent_by_a_client_is_admitted_too(api: Api, webhook: Webhook) -> None:
    label = uuid.uuid4().hex[:10]
    webhook.respond = _refusing(lambda r: r.get("subResource") == "finalize")
    await install(api, "Validating", _namespace_hook(webhook, label))
    name = f"kept-{label}"
    body = {"metadata": {"name": name, "labels": {"admitgaps": label}}}
    created = (await api.post("/api/v1/namespaces", body)).body
    created["spec"]["finalizers"] = []
    reply = await api.put(f"/api/v1/namespaces/{name}/finalize", created)
    assert reply.status == 403, reply.body
    assert "not now" in reply.body["message"]
    kept = (await api.get(f"/api/v1/namespaces/{name}")).body
    assert kept["spec"]["finalizers"] == ["kubernetes"]
    webhook.respond = allow
    params = {"dryRun": "All"}
    reply = await api.put(f"/api/v1/namespaces/{name}/finalize", created, params=params)
    assert reply.status == 200 and not reply.body["spec"].get("finalizers")
    kept = (await api.get(f"/api/v1/namespaces/{name}")).body
    assert kept["spec"]["finalizers"] == ["kubernetes"]  # a dry run stores nothing
    assert (await api.delete(f"/api/v1/namespaces/{name}")).status == 200


# --- the token controller ------------------------------------------------------------------


def _token_secret(account: str) -> dict[str, Any]:
    return {
        "metadata": {"name": f"{account}-token",
                     "annotations": {"kubernetes.io/service-account.name": account}},
        "type": "kubernetes.io/service-account-token",
    }  # fmt: skip


async def test_the_token_controllers_writes_are_the_controller_managers_requests(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    refused: list[str] = []

    def refuse_twice(request: dict[str, Any]) -> bool:
        if request["operation"] == "UPDATE" and len(refused) < 2:
            refused.append(request["uid"])
            return True
        return False

    webhook.respond = _refusing(refuse_twice)
    rules = _rules("UPDATE", "secrets") + _rules("DELETE", "secrets")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    base = f"/api/v1/namespaces/{namespace}"
    robot = {"metadata": {"name": "robot"}}
    assert (await api.post(f"{base}/serviceaccounts", robot)).status == 201
    assert (await api.post(f"{base}/secrets", _token_secret("robot"))).status == 201
    filled = await until(api, f"{base}/secrets/robot-token", lambda s: "token" in s.get("data", {}))
    updates = [r for r in webhook.requests() if r["operation"] == "UPDATE"]
    assert len(updates) == 3  # refused twice, tried again after its queue's back-off
    assert {json.dumps(r["userInfo"]) for r in updates} == {json.dumps(CONTROLLER_MANAGER)}
    assert base64.b64decode(updates[-1]["object"]["data"]["namespace"]).decode() == namespace
    assert (await api.delete(f"{base}/serviceaccounts/robot")).status == 200
    await _gone(api, f"{base}/secrets", "robot-token")
    (deleted,) = [r for r in webhook.requests() if r["operation"] == "DELETE"]
    assert deleted["userInfo"] == CONTROLLER_MANAGER
    assert deleted["options"]["preconditions"] == {"uid": filled["metadata"]["uid"]}


# --- the ClusterRole aggregator ------------------------------------------------------------


async def test_the_aggregators_updates_are_its_service_accounts_requests(
    api: Api, webhook: Webhook
) -> None:
    label = uuid.uuid4().hex[:10]
    webhook.respond = _refusing(lambda _: len(webhook.reviews) == 1)  # the first only
    rules = _rules("UPDATE", "clusterroles", "rbac.authorization.k8s.io")
    await install(api, "Validating", _selected("Validating", webhook, label, rules))
    selector = {"matchLabels": {f"aggregate-to-{label}": "true"}}
    aggregated = {"metadata": {"name": f"all-{label}", "labels": {"admitgaps": label}},
                  "aggregationRule": {"clusterRoleSelectors": [selector]}}  # fmt: skip
    rule = {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}
    part = {"metadata": {"name": f"part-{label}", "labels": {f"aggregate-to-{label}": "true"}},
            "rules": [rule]}  # fmt: skip
    try:
        assert (await api.post(f"{RBAC}/clusterroles", aggregated)).status == 201
        assert (await api.post(f"{RBAC}/clusterroles", part)).status == 201
        filled = await until(
            api, f"{RBAC}/clusterroles/all-{label}", lambda r: r.get("rules") == [rule]
        )
        assert filled["rules"] == [rule]
        reviewed = [r for r in webhook.requests() if r["name"] == f"all-{label}"]
        assert len(reviewed) >= 2  # refused once, then let through after a back-off
        user = await token_user(api, "clusterrole-aggregation-controller")
        assert all(without_jti(r["userInfo"]) == user for r in reviewed)
        assert reviewed[-1]["object"]["rules"] == [rule]
        # A forced server-side apply of the rules, as 1.32's applyClusterRoles sends it.
        assert reviewed[-1]["options"] == {"kind": "UpdateOptions",
            "apiVersion": "meta.k8s.io/v1", "fieldManager": "clusterrole-aggregation-controller",
        }  # fmt: skip
        managers = {(m["manager"], m["operation"]): m for m in filled["metadata"]["managedFields"]}
        applied = managers["clusterrole-aggregation-controller", "Apply"]
        assert applied["fieldsV1"] == {"f:rules": {}}
    finally:
        for name in (f"all-{label}", f"part-{label}"):
            await api.delete(f"{RBAC}/clusterroles/{name}")


# --- a Binding's annotations ---------------------------------------------------------------


async def test_annotations_a_webhook_gives_a_binding_land_on_the_pod(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def annotate(review: Review) -> dict[str, Any]:
        patch = [
            {
                "op": "add",
                "path": "/metadata/annotations",
                "value": {"example.com/placed-by": review["request"]["userInfo"]["username"]},
            }
        ]
        encoded = base64.b64encode(json.dumps(patch).encode()).decode()
        return {**await allow(review), "patchType": "JSONPatch", "patch": encoded}  # fmt: skip

    webhook.respond = annotate
    rules = _rules("CREATE", "pods/binding")
    await install(api, "Mutating", config("Mutating", webhook, namespace, rules=rules))
    path = f"/api/v1/namespaces/{namespace}/pods"
    body = _pod("placed")
    body["metadata"]["annotations"] = {"example.com/own": "kept"}
    assert (await api.post(path, body)).status == 201
    running = await until(api, f"{path}/placed", _running)
    annotations = running["metadata"]["annotations"]
    assert annotations["example.com/own"] == "kept"
    assert annotations["example.com/placed-by"] == "system:kube-scheduler"
    (binding,) = webhook.requests()
    assert binding["object"]["kind"] == "Binding"


# --- the default StorageClass --------------------------------------------------------------


async def _on_restarted_server(data_dir: Path, act: Callable[[Api], Awaitable[None]]) -> None:
    """``act`` against a server on ``data_dir``, started off the loop (the webhook
    server of this test runs on it and may be called while the server starts)."""
    local = LocalApiServer(data_dir=data_dir)
    await asyncio.to_thread(local.start)
    try:
        async with await open_api(local) as session:
            await act(Api(local, session))
    finally:
        await asyncio.to_thread(local.stop)


async def test_the_default_storage_class_is_created_through_admission_as_the_admin(
    tmp_path: Path, webhook: Webhook
) -> None:
    classes = "/apis/storage.k8s.io/v1/storageclasses"
    rules = _rules("CREATE", "storageclasses", "storage.k8s.io")
    hooks = config("Validating", webhook, "", rules=rules)
    del hooks["webhooks"][0]["namespaceSelector"]

    async def configure(api: Api) -> None:
        await install(api, "Validating", hooks)
        assert (await api.delete(f"{classes}/standard")).status == 200

    async def recreated(api: Api) -> None:
        await until(api, f"{classes}/standard", lambda c: c["provisioner"] != "")

    await _on_restarted_server(tmp_path / "data", configure)
    # With no StorageClass left, the next start installs kind's again: kubectl apply as
    # the admin, which the webhook sees as any client's create.
    await _on_restarted_server(tmp_path / "data", recreated)
    (created,) = webhook.requests()
    assert created["name"] == "standard"
    assert created["userInfo"]["username"] == "kubernetes-admin"
    annotations = created["object"]["metadata"]["annotations"]
    assert annotations["storageclass.kubernetes.io/is-default-class"] == "true"
