"""The scheduler's bindings and the kubelets' status writes pass admission as on a real
cluster: a webhook on ``pods/binding`` sees ``system:kube-scheduler`` create a Binding,
and its refusal leaves the pod Pending with kube-scheduler's FailedScheduling event; a
webhook on ``pods/status`` sees the kubelet as ``system:node:<name>``. Real webhooks
over HTTPS, a real server with its control plane and simulated node."""
# ruff: noqa: F811 -- the tests take the fixtures imported from test_webhooks as arguments

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kf_http import Api
from kf_plane import condition, events_for, until
from test_webhooks import (  # the webhook server and the fixtures around it, shared
    Review,
    Webhook,
    api,  # noqa: F401
    config,
    install,
    namespace,  # noqa: F401
    webhook,  # noqa: F401
)

from kubeforge.testing import LocalApiServer

SCHEDULER = {"username": "system:kube-scheduler", "groups": ["system:authenticated"]}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalApiServer]:
    # A server of the module's own, with its control plane: webhook configurations are
    # cluster-wide.
    with LocalApiServer() as local:
        yield local


def _rules(operation: str, resource: str) -> list[dict[str, Any]]:
    return [{"operations": [operation], "apiGroups": [""], "apiVersions": ["v1"],
             "resources": [resource]}]  # fmt: skip


def _pod(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name},
            "spec": {"containers": [{"name": "main", "image": "nginx"}]}}  # fmt: skip


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
    async def deny(review: Review) -> dict[str, Any]:
        status = {"code": 403, "message": "no binding today"}
        return {"uid": review["request"]["uid"], "allowed": False, "status": status}

    webhook.respond = deny
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


async def test_with_no_webhook_the_pod_is_scheduled_and_runs(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(path, _pod("plain"))).status == 201
    running = await until(api, f"{path}/plain", _running)
    assert running["spec"]["nodeName"]
    events = await events_for(api, namespace, "plain")
    assert [e["reason"] for e in events if e["source"]["component"] == "default-scheduler"] == [
        "Scheduled"
    ]
