"""ServiceAccounts, Endpoints, and events.k8s.io/v1 Events stored as core/v1 Events (their
validation is test_event_rules')."""

from __future__ import annotations

import asyncio
from typing import Any

from kf_http import Api

MERGE = "application/merge-patch+json"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def new_event(name: str, namespace: str, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name},
        "eventTime": "2025-01-02T03:04:05.123456Z",
        "reportingController": "example.com/widget-controller",
        "reportingInstance": "widget-controller-0",
        "action": "Reconcile",
        "reason": "Synced",
        "type": "Normal",
        "note": "widget synced",
        "regarding": {"kind": "Widget", "name": "w1", "namespace": namespace, "uid": "u-1"},
        **extra,
    }


def events_path(namespace: str, name: str = "") -> str:
    base = f"/apis/events.k8s.io/v1/namespaces/{namespace}/events"
    return f"{base}/{name}" if name else base


async def test_an_events_v1_event_is_read_back_through_core_v1_with_mapped_fields(
    api: Api, namespace: str
) -> None:
    created = await api.post(events_path(namespace), new_event("e1", namespace))
    assert created.status == 201, created.body
    assert created.body["apiVersion"] == "events.k8s.io/v1"
    assert created.body["note"] == "widget synced"
    core = await api.get(f"/api/v1/namespaces/{namespace}/events/e1")
    assert core.status == 200
    assert core.body["apiVersion"] == "v1"
    assert core.body["message"] == "widget synced"
    assert core.body["involvedObject"]["name"] == "w1"
    assert core.body["reportingComponent"] == "example.com/widget-controller"
    assert core.body["eventTime"] == "2025-01-02T03:04:05.123456Z"
    assert core.body["metadata"]["resourceVersion"] == created.body["metadata"]["resourceVersion"]


async def test_a_core_event_is_read_through_events_v1_with_deprecated_fields(
    api: Api, namespace: str
) -> None:
    core = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "legacy"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": namespace},
        "reason": "Pulled",
        "message": "image pulled",
        "type": "Normal",
        "count": 3,
        "firstTimestamp": "2025-01-01T00:00:00Z",
        "lastTimestamp": "2025-01-01T00:05:00Z",
        "source": {"component": "kubelet"},
    }
    assert (await api.post(f"/api/v1/namespaces/{namespace}/events", core)).status == 201
    reply = await api.get(events_path(namespace, "legacy"))
    assert reply.status == 200
    body = reply.body
    assert body["regarding"] == core["involvedObject"]
    assert body["note"] == "image pulled"
    assert body["deprecatedCount"] == 3
    assert body["deprecatedLastTimestamp"] == "2025-01-01T00:05:00Z"
    assert body["deprecatedSource"] == {"component": "kubelet"}
    assert body["eventTime"] is None  # not omitempty in the Go type


async def test_events_v1_field_selectors_use_their_own_names(api: Api, namespace: str) -> None:
    await api.post(events_path(namespace), new_event("a", namespace))
    other = new_event("b", namespace)
    other["regarding"] = {"kind": "Widget", "name": "w2", "namespace": namespace}
    await api.post(events_path(namespace), other)
    reply = await api.get(events_path(namespace), fieldSelector="regarding.name=w2")
    assert [i["metadata"]["name"] for i in reply.body["items"]] == ["b"]
    by_controller = await api.get(
        events_path(namespace), fieldSelector="reportingController=example.com/widget-controller"
    )
    assert len(by_controller.body["items"]) == 2
    core = await api.get(
        f"/api/v1/namespaces/{namespace}/events", fieldSelector="involvedObject.name=w2"
    )
    assert [i["metadata"]["name"] for i in core.body["items"]] == ["b"]
    refused = await api.get(events_path(namespace), fieldSelector="involvedObject.name=w2")
    assert refused.status == 400


async def test_a_watch_on_events_v1_sees_core_writes_in_its_own_shape(
    api: Api, namespace: str
) -> None:
    listed = await api.get(events_path(namespace))
    core = {
        "metadata": {"name": "from-core"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": namespace},
        "reason": "Started",
        "message": "started",
    }
    await api.post(f"/api/v1/namespaces/{namespace}/events", core)
    # Watching from the list's resourceVersion replays the write made since.
    stream = api.watch(
        events_path(namespace), resourceVersion=listed.body["metadata"]["resourceVersion"]
    )
    event = await asyncio.wait_for(anext(stream), 20)
    await stream.aclose()
    assert event["type"] == "ADDED"
    assert event["object"]["apiVersion"] == "events.k8s.io/v1"
    assert event["object"]["note"] == "started"
    assert event["object"]["regarding"]["name"] == "p"


async def test_service_accounts_are_stored_with_their_fields(api: Api, namespace: str) -> None:
    body = {
        "metadata": {"name": "robot"},
        "automountServiceAccountToken": False,
        "imagePullSecrets": [{"name": "registry"}],
    }
    reply = await api.post(f"/api/v1/namespaces/{namespace}/serviceaccounts", body)
    assert reply.status == 201, reply.body
    assert reply.body["automountServiceAccountToken"] is False
    table = await api.request(
        "GET", f"/api/v1/namespaces/{namespace}/serviceaccounts", headers={"Accept": TABLE}
    )
    assert [c["name"] for c in table.body["columnDefinitions"]] == ["Name", "Secrets", "Age"]


async def test_endpoints_default_protocols_validate_addresses_and_print_pairs(
    api: Api, namespace: str
) -> None:
    body = {
        "metadata": {"name": "web"},
        "subsets": [
            {
                "addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}],
                "ports": [{"port": 80}],
            }
        ],
    }
    path = f"/api/v1/namespaces/{namespace}/endpoints"
    created = await api.post(path, body)
    assert created.status == 201, created.body
    assert created.body["subsets"][0]["ports"][0]["protocol"] == "TCP"
    table = await api.request("GET", path, headers={"Accept": TABLE})
    assert table.body["rows"][0]["cells"][:2] == ["web", "10.0.0.1:80,10.0.0.2:80"]
    bad = {
        "metadata": {"name": "bad"},
        "subsets": [{"addresses": [{"ip": "nope"}], "ports": [{"port": 0}]}],
    }
    refused = await api.post(path, bad)
    assert refused.status == 422
    fields = {c["field"] for c in refused.body["details"]["causes"]}
    assert fields == {"subsets[0].addresses[0].ip", "subsets[0].ports[0].port"}


async def test_a_put_on_a_missing_endpoints_object_creates_it(api: Api, namespace: str) -> None:
    body = {"metadata": {"name": "svc"}, "subsets": []}
    reply = await api.put(f"/api/v1/namespaces/{namespace}/endpoints/svc", body)
    assert reply.status == 201, reply.body


async def test_every_namespace_gets_a_default_service_account_back_after_a_delete(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/serviceaccounts/default"
    found = await _eventually(api, path)
    uid = found["metadata"]["uid"]
    await api.delete(path)
    recreated = await _eventually(api, path, lambda sa: sa["metadata"]["uid"] != uid)
    assert recreated["metadata"]["name"] == "default"


async def _eventually(api: Api, path: str, check: Any = lambda _: True) -> dict[str, Any]:
    """GET ``path`` until it exists and passes ``check`` (the controller runs right after)."""
    for _ in range(200):
        reply = await api.get(path)
        if reply.status == 200 and check(reply.body):
            found: dict[str, Any] = reply.body
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")
