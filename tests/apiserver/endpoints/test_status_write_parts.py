"""Status-like writes take only their part of the body and leave the stored state they
start from as it was: the watch history still shows every earlier state exactly as
answered, and unknown fields in the taken part are dropped, warned about or refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kf_http import Api, pod

STRICT = {"fieldValidation": "Strict"}


@pytest.fixture
def api(envtest_api: Api) -> Api:
    """No controller writes these pods' status: what a test writes stays."""
    return envtest_api


async def _history(api: Api, path: str, after: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` events after ``after`` (the watch ends after a second)."""
    events = []
    async for event in api.watch(path, resourceVersion=after, timeoutSeconds="1"):
        events.append(event)
        if len(events) == count:
            break
    return events


async def test_a_status_write_leaves_earlier_states_as_they_were(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    created = (await api.post(path, pod("kept", app="a"))).body
    first = {**created, "spec": {**created["spec"], "nodeName": "elsewhere"}}
    first["metadata"] = {**created["metadata"], "labels": {"ignored": "yes"}}
    first["status"] = {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False"}]}
    written = await api.put(f"{path}/kept/status", first)
    assert written.status == 200, written.body
    second = copy.deepcopy(written.body)
    second["status"]["phase"] = "Running"
    second["status"]["conditions"][0]["status"] = "True"
    rewritten = (await api.put(f"{path}/kept/status", second)).body

    events = await _history(api, path, start, 3)
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "MODIFIED"]
    assert [e["object"] for e in events] == [created, written.body, rewritten]
    # Only the status was taken: the spec and metadata the body changed are the stored ones.
    assert written.body["spec"] == created["spec"]
    assert written.body["metadata"]["labels"] == {"app": "a"}
    assert written.body["status"]["conditions"] == [{"type": "Ready", "status": "False"}]


async def test_unknown_fields_of_a_status_write_are_dropped_warned_or_refused(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    created = (await api.post(path, pod("odd"))).body
    status = {"phase": "Pending", "bogus": 1, "conditions": [{"type": "Ready", "extra": "x"}]}
    body = {**created, "status": status, "spec": {**created["spec"], "notInSpec": True}}

    refused = await api.put(f"{path}/odd/status", body, params=STRICT)
    assert refused.status == 400
    assert 'unknown field "status.bogus"' in refused.body["message"]
    assert 'unknown field "status.conditions[0].extra"' in refused.body["message"]
    assert "notInSpec" not in refused.body["message"]  # not taken, so not decoded as unknown

    warned = await api.put(f"{path}/odd/status", body)
    assert warned.status == 200, warned.body
    assert warned.headers.getall("Warning") == [
        '299 - "unknown field \\"status.bogus\\""',
        '299 - "unknown field \\"status.conditions[0].extra\\""',
    ]
    assert warned.body["status"] == {"phase": "Pending", "conditions": [{"type": "Ready"}]}
    assert (await api.get(f"{path}/odd")).body == warned.body


async def test_ephemeral_containers_are_taken_alone_and_copied(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    created = (await api.post(path, pod("debugged"))).body
    debugger = {"name": "debugger", "image": "busybox", "unknownHere": 1}
    body = copy.deepcopy(created)
    body["spec"]["ephemeralContainers"] = [debugger]
    body["spec"]["containers"][0]["image"] = "changed"
    reply = await api.put(f"{path}/debugged/ephemeralcontainers", body)
    assert reply.status == 200, reply.body
    assert reply.headers.getall("Warning") == [
        '299 - "unknown field \\"spec.ephemeralContainers[0].unknownHere\\""'
    ]
    ephemeral = reply.body["spec"]["ephemeralContainers"]
    assert [(c["name"], c["image"]) for c in ephemeral] == [("debugger", "busybox")]
    assert reply.body["spec"]["containers"] == created["spec"]["containers"]
    assert (await api.get(f"{path}/debugged")).body == reply.body
