"""``pods/eviction`` goes through admission as on a 1.32 server: webhooks registered for
``pods/eviction`` get a CREATE whose object is a policy/v1 Eviction (kind
``policy/v1 Eviction``, resource ``v1 pods``, subresource ``eviction``); a validating
webhook can refuse it, and what a mutating webhook changes is what the eviction uses.
Driven by raw HTTP and by the official client's ``create_namespaced_pod_eviction``."""
# ruff: noqa: F811 -- the tests take the fixtures imported from test_webhooks as arguments

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from kf_http import Api, pod
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException
from test_webhooks import (  # the module server and its fixtures, shared
    Review,
    Webhook,
    allow,
    api,  # noqa: F401
    config,
    install,
    server,  # noqa: F401
    webhook,  # noqa: F401
)

from kubeforge.testing import LocalApiServer

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
EVICTIONS = [
    {
        "operations": ["CREATE"],
        "apiGroups": [""],
        "apiVersions": ["v1"],
        "resources": ["pods/eviction"],
    }
]


def _eviction(name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}, **extra}


async def test_a_validating_webhook_sees_the_eviction_and_can_refuse_it(
    api: Api, webhook: Webhook
) -> None:
    namespace = await api.create_namespace("evict")

    async def deny(review: Review) -> dict[str, Any]:
        status = {"code": 403, "message": "no evictions during the freeze"}
        return {"uid": review["request"]["uid"], "allowed": False, "status": status}

    webhook.respond = deny
    await install(api, "Validating", config("Validating", webhook, namespace, rules=EVICTIONS))
    pods = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(pods, pod("web"))).status == 201
    reply = await api.post(f"{pods}/web/eviction", _eviction("web"))
    assert reply.status == 403, reply.body
    assert reply.body["message"] == (
        'admission webhook "check.example.com" denied the request: no evictions during the freeze'
    )
    assert (await api.get(f"{pods}/web")).status == 200
    request = webhook.requests()[-1]
    assert request["kind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "pods"}
    assert request["subResource"] == "eviction"
    assert request["operation"] == "CREATE"
    assert request["name"] == "web"
    assert request["object"]["kind"] == "Eviction"
    assert request["object"]["metadata"]["name"] == "web"
    assert request["options"]["kind"] == "CreateOptions"


async def test_a_mutating_webhooks_delete_options_are_the_ones_used(
    api: Api, webhook: Webhook
) -> None:
    namespace = await api.create_namespace("evict")

    async def wrong_uid(review: Review) -> dict[str, Any]:
        patch = [{"op": "add", "path": "/deleteOptions", "value": {"preconditions": {"uid": "x"}}}]
        encoded = base64.b64encode(json.dumps(patch).encode()).decode()
        return {**await allow(review), "patchType": "JSONPatch", "patch": encoded}

    webhook.respond = wrong_uid
    await install(api, "Mutating", config("Mutating", webhook, namespace, rules=EVICTIONS))
    pods = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(pods, pod("web"))).status == 201
    reply = await api.post(f"{pods}/web/eviction", _eviction("web"))
    assert reply.status == 409, reply.body
    assert "the UID in the precondition (x) does not match" in reply.body["message"]
    assert (await api.get(f"{pods}/web")).status == 200


async def test_the_official_client_gets_the_denial_as_an_api_exception(
    api: Api, webhook: Webhook, server: LocalApiServer
) -> None:
    namespace = await api.create_namespace("evict")

    async def deny(review: Review) -> dict[str, Any]:
        return {"uid": review["request"]["uid"], "allowed": False, "status": {"code": 429}}

    webhook.respond = deny
    await install(api, "Validating", config("Validating", webhook, namespace, rules=EVICTIONS))
    assert (await api.post(f"/api/v1/namespaces/{namespace}/pods", pod("web"))).status == 201
    client = k8s_config.new_client_from_config(config_file=str(server.kubeconfig))
    body = k8s.V1Eviction(metadata=k8s.V1ObjectMeta(name="web", namespace=namespace))
    evict = k8s.CoreV1Api(client).create_namespaced_pod_eviction
    try:
        with pytest.raises(ApiException) as caught:
            # The official client blocks; the webhook answers from this test's event loop.
            await asyncio.to_thread(evict, "web", namespace, body)
    finally:
        client.close()
    assert caught.value.status == 429
    assert json.loads(caught.value.body)["message"] == (
        'admission webhook "check.example.com" denied the request without explanation'
    )
