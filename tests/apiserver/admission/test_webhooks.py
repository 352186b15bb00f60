"""Admission webhooks called as a real server calls them: AdmissionReview v1 over HTTPS to a
small aiohttp webhook server in this process, TLS from the server's own CA helpers."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from kf_http import Api, open_api

from kubeforge.apiserver.server.tls import Credentials
from kubeforge.testing import LocalApiServer

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
MERGE = "application/merge-patch+json"
Review = dict[str, Any]
Responder = Callable[[Review], Awaitable[dict[str, Any]]]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalApiServer]:
    # A server of the module's own: webhook configurations are cluster-wide.
    with LocalApiServer(simulate_node=False) as local:
        yield local


@pytest.fixture
async def api(server: LocalApiServer) -> AsyncIterator[Api]:
    session = await open_api(server)
    async with session:
        client = Api(server, session)
        yield client
        # Each test's webhooks end with it (webhook configurations are cluster-wide).
        for kind in ("validating", "mutating"):
            await client.delete(f"{ADMISSION}/{kind}webhookconfigurations")


@pytest.fixture
async def namespace(api: Api) -> str:
    return await api.create_namespace("hook")


class Webhook:
    """An HTTPS admission webhook: records every AdmissionReview, answers with ``respond``."""

    def __init__(self, url: str, ca_bundle: str) -> None:
        self.url = url
        self.ca_bundle = ca_bundle
        self.reviews: list[Review] = []
        self.respond: Responder = allow

    async def handle(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.reviews.append({**review, "query": dict(request.query), "path": request.path})
        response = await self.respond(review)
        return web.json_response(
            {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}
        )

    def requests(self, path: str = "") -> list[dict[str, Any]]:
        return [r["request"] for r in self.reviews if not path or r["path"] == path]


async def allow(review: Review) -> dict[str, Any]:
    return {"uid": review["request"]["uid"], "allowed": True}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def webhook(tmp_path: Path) -> AsyncIterator[Webhook]:
    credentials = Credentials.load_or_create(tmp_path / "webhook-tls")
    port = free_port()
    hook = Webhook(f"https://127.0.0.1:{port}", base64.b64encode(credentials.ca_pem).decode())
    app = web.Application()
    app.router.add_post("/{tail:.*}", hook.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, ssl_context=credentials.ssl_context())
    await site.start()
    yield hook
    await runner.cleanup()


def config(
    kind: str, hook: Webhook, namespace: str, *, path: str = "/", **extra: Any
) -> dict[str, Any]:
    rules = extra.pop(
        "rules",
        [
            {
                "operations": ["CREATE", "UPDATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["configmaps"],
            }
        ],
    )
    spec = {
        "name": "check.example.com",
        "clientConfig": {"url": hook.url + path, "caBundle": hook.ca_bundle},
        "rules": rules,
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        # Only this test's namespace: the server is shared by the module.
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        **extra,
    }
    return {"metadata": {"name": f"{kind.lower()}-{uuid.uuid4().hex[:8]}"}, "webhooks": [spec]}


async def install(api: Api, kind: str, body: dict[str, Any]) -> None:
    plural = f"{kind.lower()}webhookconfigurations"
    reply = await api.post(f"{ADMISSION}/{plural}", body)
    assert reply.status == 201, reply.body


def configmap(name: str, **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels}, "data": {"k": "v"}}


async def test_a_validating_webhook_gets_an_admission_review_and_can_deny(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def deny_labelled(review: Review) -> dict[str, Any]:
        labels = review["request"]["object"]["metadata"].get("labels") or {}
        if labels.get("deny") != "yes":
            return await allow(review)
        status = {"code": 403, "reason": "Forbidden", "message": "not this one"}
        return {"uid": review["request"]["uid"], "allowed": False, "status": status}

    webhook.respond = deny_labelled
    await install(api, "Validating", config("Validating", webhook, namespace, path="/validate"))
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    assert (await api.post(path, configmap("fine"))).status == 201
    denied = await api.post(path, configmap("bad", deny="yes"))
    assert denied.status == 403
    assert denied.body["reason"] == "Forbidden"
    assert denied.body["message"] == (
        'admission webhook "check.example.com" denied the request: not this one'
    )
    assert (await api.get(f"{path}/bad")).status == 404
    review = webhook.reviews[0]
    assert review["apiVersion"] == "admission.k8s.io/v1"
    assert review["query"] == {"timeout": "10s"}
    request = review["request"]
    assert request["operation"] == "CREATE"
    assert request["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert request["namespace"] == namespace
    assert request["name"] == "fine"
    assert request["userInfo"]["username"] == "kubernetes-admin"
    assert "system:masters" in request["userInfo"]["groups"]
    assert request["dryRun"] is False
    assert request["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}
    assert request["oldObject"] is None
    assert request["object"]["metadata"]["uid"]


async def test_a_denial_without_a_status_is_400_without_explanation(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def deny(review: Review) -> dict[str, Any]:
        return {"uid": review["request"]["uid"], "allowed": False}

    webhook.respond = deny
    await install(api, "Validating", config("Validating", webhook, namespace))
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("x"))
    assert reply.status == 400
    assert reply.body["message"] == (
        'admission webhook "check.example.com" denied the request without explanation'
    )


async def test_a_mutating_webhook_patches_what_is_stored_and_validators_see_it(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def mutate_or_check(review: Review) -> dict[str, Any]:
        response = await allow(review)
        if review["request"]["object"]["metadata"].get("labels", {}).get("mutated") is None:
            patch = [{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}]
            response["patchType"] = "JSONPatch"
            response["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
        return response

    webhook.respond = mutate_or_check
    await install(api, "Mutating", config("Mutating", webhook, namespace, path="/mutate"))
    await install(api, "Validating", config("Validating", webhook, namespace, path="/validate"))
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("m", a="1"))
    assert reply.status == 201, reply.body
    assert reply.body["metadata"]["labels"] == {"a": "1", "mutated": "yes"}
    stored = await api.get(f"/api/v1/namespaces/{namespace}/configmaps/m")
    assert stored.body["metadata"]["labels"]["mutated"] == "yes"
    validated = webhook.requests("/validate")
    assert validated[0]["object"]["metadata"]["labels"]["mutated"] == "yes"


async def test_updates_and_patches_are_admitted_with_the_old_object(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("u"))
    await install(api, "Validating", config("Validating", webhook, namespace))
    reply = await api.patch(f"{path}/u", {"data": {"k": "new"}}, MERGE)
    assert reply.status == 200, reply.body
    request = webhook.requests()[-1]
    assert request["operation"] == "UPDATE"
    assert request["oldObject"]["data"] == {"k": "v"}
    assert request["object"]["data"] == {"k": "new"}
    assert request["options"]["kind"] == "UpdateOptions"


async def test_a_delete_can_be_denied_and_the_webhook_sees_the_old_object(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def deny_deletes(review: Review) -> dict[str, Any]:
        if review["request"]["operation"] == "DELETE":
            return {
                "uid": review["request"]["uid"],
                "allowed": False,
                "status": {"message": "keep it"},
            }
        return await allow(review)

    webhook.respond = deny_deletes
    rules = [
        {
            "operations": ["DELETE"],
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["configmaps"],
        }
    ]
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("keep"))
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    reply = await api.delete(f"{path}/keep")
    assert reply.status == 400
    assert reply.body["message"].endswith("denied the request: keep it")
    assert (await api.get(f"{path}/keep")).status == 200
    request = webhook.requests()[-1]
    assert request["operation"] == "DELETE"
    assert request["object"] is None
    assert request["oldObject"]["metadata"]["name"] == "keep"
    assert request["options"]["kind"] == "DeleteOptions"
    collection = await api.delete(path)
    assert collection.status == 400


async def test_the_review_shows_the_options_the_request_sent(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    rules = [{"operations": ["CREATE", "UPDATE", "DELETE"], "apiGroups": [""],
              "apiVersions": ["v1"], "resources": ["configmaps"]}]  # fmt: skip
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    sent = {"fieldManager": "kubectl-create", "fieldValidation": "Strict"}
    assert (await api.post(path, configmap("told"), params=sent)).status == 201
    patch = {"data": {"a": "b"}}
    params = {"fieldManager": "editor", "dryRun": "All"}
    assert (await api.patch(f"{path}/told", patch, MERGE, params=params)).status == 200
    apply = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}}
    params = {"fieldManager": "applier", "force": "true"}
    reply = await api.patch(f"{path}/applied", apply, "application/apply-patch+yaml", params=params)
    assert reply.status == 201
    delete = {"gracePeriodSeconds": 3, "preconditions": {"uid": reply.body["metadata"]["uid"]},
              "propagationPolicy": "Foreground"}  # fmt: skip
    assert (await api.delete(f"{path}/applied", delete)).status == 200
    meta = {"apiVersion": "meta.k8s.io/v1"}
    assert [r["options"] for r in webhook.requests()] == [
        {"kind": "CreateOptions", **meta, "fieldManager": "kubectl-create",
         "fieldValidation": "Strict"},
        {"kind": "UpdateOptions", **meta, "dryRun": ["All"], "fieldManager": "editor"},
        # An apply is a patch: its force is not among the options admission is shown.
        {"kind": "CreateOptions", **meta, "fieldManager": "applier"},
        {"kind": "DeleteOptions", **meta, "gracePeriodSeconds": 3,
         "preconditions": {"uid": reply.body["metadata"]["uid"]},
         "propagationPolicy": "Foreground"},
    ]  # fmt: skip


async def test_an_unreachable_webhook_fails_the_request_unless_its_policy_is_ignore(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    dead = Webhook(f"https://127.0.0.1:{free_port()}", webhook.ca_bundle)
    await install(api, "Validating", config("Validating", dead, namespace))
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    failed = await api.post(path, configmap("a"))
    assert failed.status == 500
    assert failed.body["reason"] == "InternalError"
    assert failed.body["message"].startswith(
        'Internal error occurred: failed calling webhook "check.example.com": failed to call '
        f'webhook: Post "{dead.url}/?timeout=10s"'
    )
    ignored = config("Validating", dead, namespace, failurePolicy="Ignore")
    ignored["webhooks"][0]["name"] = "lenient.example.com"
    await api.delete(f"{ADMISSION}/validatingwebhookconfigurations")  # drop the Fail one
    await install(api, "Validating", ignored)
    assert (await api.post(path, configmap("b"))).status == 201


async def test_a_webhook_slower_than_its_timeout_fails_the_request(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def slow(review: Review) -> dict[str, Any]:
        await asyncio.sleep(3)
        return await allow(review)

    webhook.respond = slow
    await install(api, "Validating", config("Validating", webhook, namespace, timeoutSeconds=1))
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("late"))
    assert reply.status == 500
    assert reply.body["message"].endswith("context deadline exceeded")
    assert webhook.reviews[0]["query"] == {"timeout": "1s"}


async def test_a_webhook_whose_certificate_the_ca_bundle_does_not_sign_fails(
    api: Api, namespace: str, webhook: Webhook, tmp_path: Path
) -> None:
    stranger = Credentials.load_or_create(tmp_path / "other-ca")
    wrong = Webhook(webhook.url, base64.b64encode(stranger.ca_pem).decode())
    await install(api, "Validating", config("Validating", wrong, namespace))
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("tls"))
    assert reply.status == 500
    assert "certificate" in reply.body["message"].lower()
    assert webhook.reviews == []


async def test_object_selectors_and_namespace_selectors_pick_what_is_sent(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    other = await api.create_namespace("hook-other")
    selected = config(
        "Validating", webhook, namespace, objectSelector={"matchLabels": {"checked": "true"}}
    )
    await install(api, "Validating", selected)
    await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("plain"))
    await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("c", checked="true"))
    await api.post(f"/api/v1/namespaces/{other}/configmaps", configmap("c", checked="true"))
    assert [(r["namespace"], r["name"]) for r in webhook.requests()] == [(namespace, "c")]


async def test_rules_tell_resources_from_their_subresources(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    rules = [
        {
            "operations": ["UPDATE"],
            "apiGroups": ["apps"],
            "apiVersions": ["v1"],
            "resources": ["deployments/status"],
        }
    ]
    await install(api, "Validating", config("Validating", webhook, namespace, rules=rules))
    deployment = {
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    path = f"/apis/apps/v1/namespaces/{namespace}/deployments"
    await api.post(path, deployment)
    await api.patch(f"{path}/web", {"spec": {"replicas": 2}}, MERGE)
    assert webhook.reviews == []
    await api.patch(f"{path}/web/status", {"status": {"replicas": 2}}, MERGE)
    request = webhook.requests()[0]
    assert request["subResource"] == "status"
    assert request["kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}


async def test_webhook_warnings_come_back_as_warning_headers(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def warn(review: Review) -> dict[str, Any]:
        return {**(await allow(review)), "warnings": ["data looks odd"]}

    webhook.respond = warn
    await install(api, "Validating", config("Validating", webhook, namespace))
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("w"))
    assert reply.status == 201
    assert reply.headers.getall("Warning") == ['299 - "data looks odd"']


async def test_a_response_for_another_request_uid_fails_the_request(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    async def wrong_uid(review: Review) -> dict[str, Any]:
        return {"uid": "not-the-request", "allowed": True}

    webhook.respond = wrong_uid
    await install(api, "Validating", config("Validating", webhook, namespace))
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("u"))
    assert reply.status == 500
    assert 'got "not-the-request"' in reply.body["message"]


async def test_a_dry_run_is_admitted_as_one_and_stores_nothing(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    await install(api, "Validating", config("Validating", webhook, namespace))
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    reply = await api.request("POST", path, configmap("dry"), params={"dryRun": "All"})
    assert reply.status == 201
    assert webhook.requests()[0]["dryRun"] is True
    assert (await api.get(f"{path}/dry")).status == 404


async def test_a_generated_name_is_the_one_admitted_and_stored(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    await install(api, "Validating", config("Validating", webhook, namespace))
    body = {"metadata": {"generateName": "gen-"}, "data": {}}
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 201
    assert webhook.requests()[0]["name"] == reply.body["metadata"]["name"]


async def test_webhook_configurations_are_defaulted_and_validated(
    api: Api, webhook: Webhook
) -> None:
    body = config("Validating", webhook, "any")
    created = await api.post(f"{ADMISSION}/validatingwebhookconfigurations", body)
    hook = created.body["webhooks"][0]
    assert hook["failurePolicy"] == "Fail"
    assert hook["matchPolicy"] == "Equivalent"
    assert hook["timeoutSeconds"] == 10
    assert hook["objectSelector"] == {}
    assert hook["rules"][0]["scope"] == "*"
    await api.delete(f"{ADMISSION}/validatingwebhookconfigurations/{body['metadata']['name']}")
    bad = config("Validating", webhook, "any", timeoutSeconds=31)
    del bad["webhooks"][0]["sideEffects"]
    bad["webhooks"][0]["clientConfig"] = {"url": "http://127.0.0.1/"}
    bad["webhooks"][0]["name"] = "short"
    refused = await api.post(f"{ADMISSION}/validatingwebhookconfigurations", bad)
    assert refused.status == 422
    fields = {c["field"] for c in refused.body["details"]["causes"]}
    assert fields == {
        "webhooks[0].name",
        "webhooks[0].clientConfig.url",
        "webhooks[0].sideEffects",
        "webhooks[0].timeoutSeconds",
    }


async def test_writes_to_webhook_configurations_are_never_sent_to_webhooks(
    api: Api, webhook: Webhook
) -> None:
    rules = [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]
    body = config("Validating", webhook, "any", rules=rules)
    del body["webhooks"][0]["namespaceSelector"]

    async def deny(review: Review) -> dict[str, Any]:
        return {"uid": review["request"]["uid"], "allowed": False}

    webhook.respond = deny
    await install(api, "Validating", body)
    name = body["metadata"]["name"]
    reply = await api.delete(f"{ADMISSION}/validatingwebhookconfigurations/{name}")
    assert reply.status == 200, reply.body
    assert webhook.reviews == []


async def test_match_conditions_decide_which_requests_are_sent(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    conditions = [
        {"name": "only-checked", "expression": "object.metadata.name.startsWith('checked')"},
        {"name": "creates", "expression": "request.operation == 'CREATE'"},
    ]
    await install(
        api, "Validating", config("Validating", webhook, namespace, matchConditions=conditions)
    )
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("plain"))
    await api.post(path, configmap("checked-1"))
    await api.patch(f"{path}/checked-1", {"data": {"k": "2"}}, MERGE)
    assert [(r["operation"], r["name"]) for r in webhook.requests()] == [("CREATE", "checked-1")]


async def test_a_match_condition_that_errors_follows_the_failure_policy(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    # a key the object does not have is an evaluation error
    broken = [{"name": "reads-missing", "expression": "object.data.missing == 'x'"}]
    await install(
        api, "Validating", config("Validating", webhook, namespace, matchConditions=broken)
    )
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    failed = await api.post(path, configmap("a"))
    assert failed.status == 500
    assert 'match condition "reads-missing" failed' in failed.body["message"]
    await api.delete(f"{ADMISSION}/validatingwebhookconfigurations")
    lenient = config(
        "Validating", webhook, namespace, matchConditions=broken, failurePolicy="Ignore"
    )
    await install(api, "Validating", lenient)
    assert (await api.post(path, configmap("b"))).status == 201
    assert webhook.reviews == []


async def test_match_conditions_may_ask_the_authorizer(
    api: Api, namespace: str, webhook: Webhook
) -> None:
    # as on a real server, `authorizer` answers for the requesting user (the admin here)
    pods = f"authorizer.group('').resource('pods').namespace('{namespace}')"
    conditions = [
        {"name": "may-list-pods", "expression": f"{pods}.check('list').allowed()"},
        {
            "name": "may-create-it",
            "expression": "authorizer.requestResource.check('create').allowed()",
        },
    ]
    await install(
        api, "Validating", config("Validating", webhook, namespace, matchConditions=conditions)
    )
    assert (
        await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("a"))
    ).status == 201
    assert [r["name"] for r in webhook.requests()] == ["a"]


async def test_match_conditions_must_compile(api: Api, webhook: Webhook) -> None:
    bad = config(
        "Validating",
        webhook,
        "any",
        matchConditions=[{"name": "x", "expression": "object.("}, {"name": "x"}],
    )
    reply = await api.post(f"{ADMISSION}/validatingwebhookconfigurations", bad)
    assert reply.status == 422
    fields = {c["field"]: c["reason"] for c in reply.body["details"]["causes"]}
    assert fields == {
        "webhooks[0].matchConditions[0].expression": "FieldValueInvalid",
        "webhooks[0].matchConditions[1].name": "FieldValueDuplicate",
        "webhooks[0].matchConditions[1].expression": "FieldValueRequired",
    }
