"""API Priority and Fairness objects over HTTP: the bootstrap configuration a fresh 1.32
server has and keeps (mandatory objects restored, suggested ones updated only while
their autoupdate annotation says so, unwanted ones removed), and FlowSchema /
PriorityLevelConfiguration defaults and validation in 1.32's words."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from kf_http import Api, open_api
from kf_plane import condition, until

from kubeforge.testing import LocalApiServer

BASE = "/apis/flowcontrol.apiserver.k8s.io/v1"
SCHEMAS = f"{BASE}/flowschemas"
LEVELS = f"{BASE}/prioritylevelconfigurations"
AUTO = "apf.kubernetes.io/autoupdate-spec"


@pytest.fixture
async def fast(kube_apiserver_factory: Callable[..., LocalApiServer]) -> AsyncIterator[Api]:
    """A server whose config producer passes every 0.2 s (1.32: every minute)."""
    server = kube_apiserver_factory(extra_args=["--post-start-interval", "0.2"])
    session = await open_api(server)
    async with session:
        yield Api(server, session)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def schema(name: str, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"priorityLevelConfiguration": {"name": "workload-low"}, **spec}
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": body,
    }


def level(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name},
        "spec": spec,
    }


def causes(reply: Any) -> list[tuple[str, str]]:
    return [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]


async def test_a_fresh_server_has_1_32s_bootstrap_configuration(api: Api) -> None:
    schemas = {s["metadata"]["name"]: s for s in (await api.get(SCHEMAS)).body["items"]}
    assert set(schemas) >= {
        "exempt", "catch-all", "probes", "system-leader-election", "workload-leader-election",
        "endpoint-controller", "system-node-high", "system-nodes", "kube-controller-manager",
        "kube-scheduler", "kube-system-service-accounts", "service-accounts", "global-default",
    }  # fmt: skip
    levels = {p["metadata"]["name"]: p for p in (await api.get(LEVELS)).body["items"]}
    assert set(levels) >= {
        "exempt", "catch-all", "system", "node-high", "leader-election", "workload-high",
        "workload-low", "global-default",
    }  # fmt: skip
    assert all(
        o["metadata"]["annotations"][AUTO] == "true" for o in (*schemas.values(), *levels.values())
    )
    probes = schemas["probes"]["spec"]
    assert probes == {
        "priorityLevelConfiguration": {"name": "exempt"},
        "matchingPrecedence": 2,
        "rules": [
            {
                "subjects": [
                    {"kind": "Group", "group": {"name": "system:unauthenticated"}},
                    {"kind": "Group", "group": {"name": "system:authenticated"}},
                ],
                "nonResourceRules": [
                    {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}
                ],
            }
        ],
    }
    assert levels["exempt"]["spec"] == {
        "type": "Exempt",
        "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0},
    }
    assert levels["workload-low"]["spec"]["limited"] == {
        "nominalConcurrencyShares": 100,
        "lendablePercent": 90,
        "limitResponse": {
            "type": "Queue",
            "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50},
        },
    }


async def test_defaults_of_v1(api: Api) -> None:
    name = unique("fs")
    made = await api.post(SCHEMAS, schema(name))
    assert made.status == 201, made.body
    assert made.body["spec"]["matchingPrecedence"] == 1000
    assert made.body["status"] == {} and made.body["metadata"]["generation"] == 1
    queued = {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {}}}}
    made = await api.post(LEVELS, level(unique("pl"), queued))
    assert made.status == 201, made.body
    assert made.body["spec"]["limited"] == {
        "nominalConcurrencyShares": 30,
        "lendablePercent": 0,
        "limitResponse": {
            "type": "Queue",
            "queuing": {"handSize": 8, "queues": 64, "queueLengthLimit": 50},
        },
    }


async def test_flow_schema_validation_in_1_32s_words(api: Api) -> None:
    name = unique("fs")
    bad = schema(
        name,
        matchingPrecedence=1,
        distinguisherMethod={"type": "ByGroup"},
        rules=[
            {
                "subjects": [{"kind": "User", "user": {"name": "u"}, "group": {"name": "g"}}],
                "resourceRules": [
                    {"verbs": ["get", "fly"], "apiGroups": ["*", "apps"], "resources": ["pods"]}
                ],
                "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["healthz", "/a/*/b"]}],
            },
            {"subjects": []},
        ],
    )
    reply = await api.post(SCHEMAS, bad)
    assert reply.status == 422 and reply.reason == "Invalid"
    verbs = (
        '"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"'
    )
    assert causes(reply) == [
        ("spec.matchingPrecedence", "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"),  # noqa: E501
        ("spec.distinguisherMethod.type", 'Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByGroup"}: supported values: "ByNamespace", "ByUser"'),  # noqa: E501
        ("spec.rules[0].subjects[0].group", "Forbidden: group is forbidden when subject kind is not 'Group'"),  # noqa: E501
        ("spec.rules[0].resourceRules[0].verbs", f'Unsupported value: []string{{"get", "fly"}}: supported values: {verbs}'),  # noqa: E501
        ("spec.rules[0].resourceRules[0].apiGroups", """Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other api groups"""),  # noqa: E501
        ("spec.rules[0].resourceRules[0].namespaces", "Required value: resource rules that are not cluster scoped must supply at least one namespace"),  # noqa: E501
        ("spec.rules[0].nonResourceRules[0].nonResourceURLs[0]", 'Invalid value: "healthz": must start with slash'),  # noqa: E501
        ("spec.rules[0].nonResourceRules[0].nonResourceURLs[1]", 'Invalid value: "/a/*/b": wildcard can only do suffix matching'),  # noqa: E501
        ("spec.rules[1].subjects", "Required value: subjects must contain at least one value"),
        ("spec.rules[1]", "Required value: at least one of resourceRules and nonResourceRules has to be non-empty"),  # noqa: E501
    ]  # fmt: skip
    reply = await api.post(SCHEMAS, schema(name, priorityLevelConfiguration={}))
    assert causes(reply) == [
        ("spec.priorityLevelConfiguration.name", "Required value: must reference a priority level")
    ]


async def test_priority_level_validation_in_1_32s_words(api: Api) -> None:
    spec = {
        "type": "Limited",
        "exempt": {},
        "limited": {
            "nominalConcurrencyShares": 0,
            "lendablePercent": 101,
            "borrowingLimitPercent": -1,
            "limitResponse": {"type": "Queue", "queuing": {"queues": 4, "handSize": 5}},
        },
    }
    reply = await api.post(LEVELS, level(unique("pl"), spec))
    assert reply.status == 422
    assert causes(reply) == [
        ("spec.exempt", "Forbidden: must be nil if the type is Limited"),
        ("spec.limited.nominalConcurrencyShares", "Invalid value: 0: must be positive"),
        ("spec.limited.limitResponse.queuing.handSize", "Invalid value: 5: should not be greater than queues (4)"),  # noqa: E501
        ("spec.limited.lendablePercent", "Invalid value: 101: must be between 0 and 100, inclusive"),  # noqa: E501
        ("spec.limited.borrowingLimitPercent", "Invalid value: -1: if specified, must be a non-negative integer"),  # noqa: E501
    ]  # fmt: skip
    reply = await api.post(LEVELS, level(unique("pl"), {"type": "Exempt"}))
    assert causes(reply) == [
        (
            "spec.type",
            "Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'",
        )
    ]


async def test_mandatory_objects_keep_their_fixed_spec(api: Api) -> None:
    exempt = (await api.get(f"{LEVELS}/exempt")).body
    exempt["spec"]["exempt"] = {"nominalConcurrencyShares": 5, "lendablePercent": 10}
    assert (await api.put(f"{LEVELS}/exempt", exempt)).status == 200  # the operator's part
    catch_all = (await api.get(f"{SCHEMAS}/catch-all")).body
    catch_all["spec"]["matchingPrecedence"] = 9999
    reply = await api.put(f"{SCHEMAS}/catch-all", catch_all)
    assert reply.status == 422
    [(field, message)] = causes(reply)
    assert field == "spec"
    assert message.startswith("Invalid value: flowcontrol.FlowSchemaSpec{")
    assert message.endswith("}: spec of 'catch-all' must equal the fixed value")


async def test_the_producer_keeps_mandatory_and_suggested_objects(fast: Api) -> None:
    for path in (f"{SCHEMAS}/exempt", f"{LEVELS}/catch-all", f"{SCHEMAS}/global-default"):
        old = (await fast.get(path)).body
        assert (await fast.delete(path)).status == 200

        gone = old["metadata"]["uid"]
        await until(fast, path, lambda body, gone=gone: body["metadata"]["uid"] != gone)
    # a mandatory object's annotation is put back to "true"
    catch_all = (await fast.get(f"{SCHEMAS}/catch-all")).body
    catch_all["metadata"]["annotations"][AUTO] = "false"
    assert (await fast.put(f"{SCHEMAS}/catch-all", catch_all)).status == 200

    await until(
        fast, f"{SCHEMAS}/catch-all", lambda body: body["metadata"]["annotations"][AUTO] == "true"
    )


async def test_suggested_objects_follow_the_autoupdate_annotation(fast: Api) -> None:
    path = f"{SCHEMAS}/service-accounts"
    edited = (await fast.get(path)).body
    edited["spec"]["matchingPrecedence"] = 8000
    assert (await fast.put(path, edited)).status == 200

    # the annotation still said "true"
    await until(fast, path, lambda body: body["spec"]["matchingPrecedence"] == 9000)
    kept = (await fast.get(path)).body
    kept["spec"]["matchingPrecedence"] = 8000
    kept["metadata"]["annotations"][AUTO] = "false"
    assert (await fast.put(path, kept)).status == 200
    level_path = f"{LEVELS}/workload-low"
    plain = (await fast.get(level_path)).body
    plain["spec"]["limited"]["nominalConcurrencyShares"] = 7
    del plain["metadata"]["annotations"][AUTO]  # edited (generation 2) and unannotated
    assert (await fast.put(level_path, plain)).status == 200

    body = await until(
        fast, level_path, lambda b: b["metadata"].get("annotations", {}).get(AUTO) == "false"
    )
    assert body["spec"]["limited"]["nominalConcurrencyShares"] == 7
    assert (await fast.get(path)).body["spec"]["matchingPrecedence"] == 8000


async def test_unwanted_annotated_objects_are_removed(fast: Api) -> None:
    mine, stale = unique("mine"), unique("stale")
    assert (await fast.post(SCHEMAS, schema(mine))).status == 201
    annotated = schema(stale)
    annotated["metadata"]["annotations"] = {AUTO: "true"}
    assert (await fast.post(SCHEMAS, annotated)).status == 201

    while (await fast.get(f"{SCHEMAS}/{stale}")).status != 404:
        await asyncio.sleep(0.05)  # the test's own timeout bounds this
    assert (await fast.get(f"{SCHEMAS}/{mine}")).status == 200


async def test_dangling_conditions_follow_the_referenced_level(api: Api) -> None:
    name, missing = unique("fs"), unique("pl")
    reply = await api.post(SCHEMAS, schema(name, priorityLevelConfiguration={"name": missing}))
    assert reply.status == 201

    path = f"{SCHEMAS}/{name}"
    body = await until(api, path, lambda b: condition(b, "Dangling").get("status") == "True")
    dangling = condition(body, "Dangling")
    assert dangling["reason"] == "NotFound"
    assert dangling["message"] == (
        f'This FlowSchema references the PriorityLevelConfiguration object named "{missing}" '
        "but there is no such object"
    )
    assert dangling["lastTransitionTime"].endswith("Z")
    made = level(missing, {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}})
    assert (await api.post(LEVELS, made)).status == 201
    body = await until(api, path, lambda b: condition(b, "Dangling").get("status") == "False")
    found = condition(body, "Dangling")
    assert found["reason"] == "Found"
    assert found["message"].endswith(f'named "{missing}" and it exists')
    exempt = (await api.get(f"{SCHEMAS}/exempt")).body
    assert [c["status"] for c in exempt["status"]["conditions"]] == ["False"]
