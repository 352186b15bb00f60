"""The scheduler's bindings and the kubelets' status writes pass admission as on a real
cluster: a webhook on ``pods/binding`` sees ``system:kube-scheduler`` create a Binding,
and its refusal leaves the pod Pending with kube-scheduler's FailedScheduling event; a
webhook on ``pods/status`` sees the kubelet as ``system:node:<name>``. Real webhooks
over HTTPS, a real server with its control plane and simulated node."""
# ruff: noqa: F811 -- the tests take the fixtures imported from test_webhooks as arguments

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from kf_http import Api
from kf_plane import condition, events_for, until
from test_validating_policies import _policy as install_policy
from test_validating_policies import _remove as remove_policy
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

SCHEDULER = {"username": "system:kube-scheduler", "groups": ["system:authenticated"]}


# One node with room for one pod asking for 600m of CPU.
NODES = """
nodes:
- name: solo
  capacity: {cpu: "1", memory: 4Gi, pods: "110"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalApiServer]:
    # A server of the module's own, with its control plane: webhook configurations are
    # cluster-wide.
    config = tmp_path_factory.mktemp("nodes") / "nodes.yaml"
    config.write_text(NODES)
    with LocalApiServer(extra_args=["--node-config", str(config)]) as local:
        yield local


def _rules(operation: str, resource: str) -> list[dict[str, Any]]:
    return [{"operations": [operation], "apiGroups": [""], "apiVersions": ["v1"],
             "resources": [resource]}]  # fmt: skip


def _pod(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name},
            "spec": {"containers": [{"name": "main", "image": "nginx"}]}}  # fmt: skip


def _denying(message: str) -> Callable[[Review], Awaitable[dict[str, Any]]]:
    async def deny(review: Review) -> dict[str, Any]:
        status = {"code": 403, "message": message}
        return {"uid": review["request"]["uid"], "allowed": False, "status": status}

    return deny


def _running(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running"


async def test_a_webhook_on_pods_binding_sees_the_scheduler_create_a_binding(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    await install(
        api,
        "Validating",
        config("Validating", webhook, namespace, rules=_rules("CREATE", "pods/binding")),
    )
    path = f"/api/v1/namespaces/{namespace}/pods"
    created = (await api.post(path, _pod("placed"))).body
    running = await until(api, f"{path}/placed", _running)
    node = running["spec"]["nodeName"]
    (request,) = webhook.requests()
    assert request["userInfo"] == SCHEDULER
    assert request["operation"] == "CREATE"
    assert request["kind"] == {"group": "", "version": "v1", "kind": "Binding"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "pods"}
    assert request["subResource"] == "binding"
    assert (request["namespace"], request["name"]) == (namespace, "placed")
    binding = request["object"]
    assert (binding["apiVersion"], binding["kind"]) == ("v1", "Binding")
    assert binding["metadata"]["uid"] == created["metadata"]["uid"]
    assert binding["target"] == {"kind": "Node", "name": node}
    assert request["oldObject"] is None
    scheduled = [
        e for e in await events_for(api, namespace, "placed") if e["reason"] == "Scheduled"
    ]
    assert scheduled[0]["message"] == f"Successfully assigned {namespace}/placed to {node}"


async def test_a_refused_binding_leaves_the_pod_pending_with_failed_scheduling(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    webhook.respond = _denying("no binding today")
    await install(
        api,
        "Validating",
        config("Validating", webhook, namespace, rules=_rules("CREATE", "pods/binding")),
    )
    path = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(path, _pod("refused"))).status == 201
    pending = await until(
        api, f"{path}/refused", lambda p: condition(p, "PodScheduled").get("status") == "False"
    )
    message = (
        'running Bind plugin "DefaultBinder": admission webhook "check.example.com" '
        "denied the request: no binding today"
    )
    scheduled = condition(pending, "PodScheduled")
    assert (scheduled["reason"], scheduled["message"]) == ("SchedulerError", message)
    assert pending["status"]["phase"] == "Pending"
    assert not pending["spec"].get("nodeName")
    events = await events_for(api, namespace, "refused")
    failed = [e for e in events if e["reason"] == "FailedScheduling"]
    assert [(e["type"], e["message"]) for e in failed[:1]] == [("Warning", message)]
    assert failed[0]["source"] == {"component": "default-scheduler"}
    assert not any(e["reason"] == "Scheduled" for e in events)
    # Once the webhook lets bindings through, the scheduler's next attempt binds it.
    await api.delete("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations")
    running = await until(api, f"{path}/refused", _running)
    assert condition(running, "PodScheduled")["status"] == "True"


async def test_a_binding_waiting_for_its_webhook_holds_the_room_it_takes(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def slow(review: Review) -> dict[str, Any]:
        await asyncio.sleep(1.0)  # long enough for the other pod's attempt to come meanwhile
        return await allow(review)

    webhook.respond = slow
    rules = _rules("CREATE", "pods/binding")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    path = f"/api/v1/namespaces/{namespace}/pods"
    for name in ("first", "second"):
        body = _pod(name)
        body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "600m"}}
        assert (await api.post(path, body)).status == 201

    def settled(body: dict[str, Any]) -> bool:
        pods = body["items"]
        unschedulable = [p for p in pods if condition(p, "PodScheduled").get("reason")]
        return len(pods) == 2 and any(_running(p) for p in pods) and bool(unschedulable)

    pods = (await until(api, path, settled))["items"]
    assert len([p for p in pods if p["spec"].get("nodeName")]) == 1
    (waiting,) = [p for p in pods if not p["spec"].get("nodeName")]
    refused = condition(waiting, "PodScheduled")
    assert refused["reason"] == "Unschedulable"
    assert refused["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")


async def test_with_no_webhook_the_pod_is_scheduled_and_runs(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(path, _pod("plain"))).status == 201
    running = await until(api, f"{path}/plain", _running)
    assert running["spec"]["nodeName"]
    events = await events_for(api, namespace, "plain")
    assert [e["reason"] for e in events if e["source"]["component"] == "default-scheduler"] == [
        "Scheduled"
    ]


def _node_user(node: str) -> dict[str, Any]:
    return {"username": f"system:node:{node}", "groups": ["system:nodes", "system:authenticated"]}


async def test_a_webhook_on_pods_status_sees_the_kubelet_as_its_node(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    rules = _rules("UPDATE", "pods/status")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    path = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(path, _pod("watched"))).status == 201
    running = await until(api, f"{path}/watched", _running)
    node = running["spec"]["nodeName"]
    reviewed = [r for r in webhook.requests() if r["name"] == "watched"]
    users = {r["userInfo"]["username"] for r in reviewed}
    # The scheduler's status writes (none for a pod that fits) and the kubelet's.
    assert f"system:node:{node}" in users
    kubelet = [r for r in reviewed if r["userInfo"] == _node_user(node)]
    assert {r["subResource"] for r in kubelet} == {"status"}
    assert {r["operation"] for r in kubelet} == {"UPDATE"}
    assert kubelet[-1]["object"]["status"]["phase"] == "Running"
    assert kubelet[-1]["oldObject"]["metadata"]["uid"] == running["metadata"]["uid"]


async def test_a_refused_pod_status_is_sent_again_until_it_is_let_through(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    webhook.respond = _denying("not yet")
    rules = _rules("UPDATE", "pods/status")
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    path = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(path, _pod("held"))).status == 201
    await until(api, path, lambda _: any(r["name"] == "held" for r in webhook.requests()))
    held = (await api.get(f"{path}/held")).body
    assert held["spec"]["nodeName"]  # bound, but the kubelet's word never got through
    assert "hostIP" not in held["status"]
    assert held["status"]["phase"] == "Pending"
    await api.delete("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations")
    running = await until(api, f"{path}/held", _running)
    assert running["status"]["podIP"]


async def test_a_webhook_sees_the_kubelets_lease_and_node_status_as_its_node(
    api: Api, webhook: Webhook
) -> None:
    rules = [
        {"operations": ["UPDATE"], "apiGroups": ["coordination.k8s.io"], "apiVersions": ["v1"],
         "resources": ["leases"]},
        {"operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
         "resources": ["nodes/status"]},
    ]  # fmt: skip
    hooks = config("Validating", webhook, "", rules=rules)
    del hooks["webhooks"][0]["namespaceSelector"]
    await install(api, "Validating", hooks)
    node = (await api.get("/api/v1/nodes")).body["items"][0]
    name = node["metadata"]["name"]
    # A Ready condition the kubelet did not write: its next status post mends it.
    unknown = {"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
               "message": "Kubelet stopped posting node status."}  # fmt: skip
    patch = {"status": {"conditions": [unknown]}}
    reply = await api.patch(
        f"/api/v1/nodes/{name}/status", patch, "application/strategic-merge-patch+json"
    )
    assert reply.status == 200, reply.body
    await until(api, f"/api/v1/nodes/{name}", lambda n: condition(n, "Ready")["status"] == "True")
    await until(api, "/api/v1/nodes", lambda _: any(
        r["resource"]["resource"] == "leases" and r["name"] == name for r in webhook.requests()
    ))  # fmt: skip
    by_kind = {}
    for request in webhook.requests():
        if request["name"] == name:
            by_kind.setdefault(request["resource"]["resource"], []).append(request)
    status = [r for r in by_kind["nodes"] if r["userInfo"] == _node_user(name)]
    assert status and status[-1]["subResource"] == "status"
    assert condition(status[-1]["object"], "Ready")["status"] == "True"
    lease = by_kind["leases"][-1]
    assert lease["userInfo"] == _node_user(name)
    assert (lease["namespace"], lease["operation"]) == ("kube-node-lease", "UPDATE")
    assert lease["object"]["spec"]["holderIdentity"] == name


async def test_a_policy_on_pods_binding_sees_the_binding_and_the_scheduler(
    api: Api, namespace: str
) -> None:
    name = "no-binding-to-solo"
    spec = {
        "matchConstraints": {
            "resourceRules": _rules("CREATE", "pods/binding"),
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        },
        "validations": [{
            "expression": "object.target.name != 'solo'",
            "messageExpression":
                "request.userInfo.username + ' may not bind to ' + object.target.name",
        }],
    }  # fmt: skip
    await install_policy(api, name, spec, validationActions=["Deny"])
    try:
        path = f"/api/v1/namespaces/{namespace}/pods"
        assert (await api.post(path, _pod("kept"))).status == 201
        pending = await until(
            api, f"{path}/kept", lambda p: condition(p, "PodScheduled").get("status") == "False"
        )
        assert condition(pending, "PodScheduled")["message"] == (
            'running Bind plugin "DefaultBinder": pods "kept" is forbidden: '
            f"ValidatingAdmissionPolicy '{name}' with binding '{name}-binding' denied request: "
            "system:kube-scheduler may not bind to solo"
        )
    finally:
        await remove_policy(api, name)
