"""Live watches scoped by namespace or by an exact field (which the fan-out routes by that
value) see exactly what their selectors select, transitions in and out included."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from kf_http import Api, pod, take

STARTED = {"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan"}


async def _live(api: Api, path: str, **params: str) -> AsyncIterator[dict[str, Any]]:
    """A watch that has joined the fan-out: everything after this comes live."""
    stream = api.watch(path, allowWatchBookmarks="true", timeoutSeconds="30", **STARTED, **params)
    async for event in stream:
        if event["type"] == "BOOKMARK":
            break
    return stream


def _summary(events: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [
        (e["type"], e["object"]["metadata"]["namespace"], e["object"]["metadata"]["name"])
        for e in events
    ]


async def _set_phase(api: Api, path: str, phase: str) -> None:
    current = (await api.get(path)).body
    current["status"] = {"phase": phase}
    reply = await api.put(f"{path}/status", current)
    assert reply.status == 200, reply.body


async def test_field_and_namespace_scoped_watches_see_exactly_their_objects(
    storage_api: Api,
) -> None:
    api = storage_api
    ns, other_ns = await api.create_namespace("route"), await api.create_namespace("route")
    pods, other_pods = f"/api/v1/namespaces/{ns}/pods", f"/api/v1/namespaces/{other_ns}/pods"
    label = f"routing-{ns}"
    watches = {
        "node-a": await _live(api, pods, fieldSelector="spec.nodeName=node-a"),
        "running-on-b": await _live(
            api, pods, fieldSelector="status.phase=Running,spec.nodeName=node-b"
        ),
        # Routed by the phase itself: leaving Running is found through the old value.
        "running": await _live(api, pods, fieldSelector="status.phase=Running"),
        "named-p2": await _live(api, pods, fieldSelector="metadata.name=p2"),
        "namespace": await _live(api, pods),
        "labelled-anywhere": await _live(api, "/api/v1/pods", labelSelector=f"app={label}"),
    }
    expected = {
        "node-a": [("ADDED", ns, "p1"), ("DELETED", ns, "p1")],
        "running-on-b": [("ADDED", ns, "p2"), ("DELETED", ns, "p2")],
        "running": [("ADDED", ns, "p2"), ("DELETED", ns, "p2")],
        "named-p2": [("ADDED", ns, "p2"), ("MODIFIED", ns, "p2"), ("MODIFIED", ns, "p2")],
        "namespace": [
            ("ADDED", ns, "p1"),
            ("ADDED", ns, "p2"),
            ("MODIFIED", ns, "p2"),
            ("MODIFIED", ns, "p2"),
            ("DELETED", ns, "p1"),
        ],
        "labelled-anywhere": [("ADDED", other_ns, "p1"), ("ADDED", ns, "p2")],
    }

    # Nodes that do not exist: no scheduler or kubelet touches these pods.
    on_a = {**pod("p1"), "spec": {**pod("p1")["spec"], "nodeName": "node-a"}}
    on_b = {**pod("p2", app=label), "spec": {**pod("p2")["spec"], "nodeName": "node-b"}}
    elsewhere = {**pod("p1", app=label), "spec": {**pod("p1")["spec"], "nodeName": "node-a"}}
    assert (await api.post(other_pods, elsewhere)).status == 201
    assert (await api.post(pods, on_a)).status == 201
    assert (await api.post(pods, on_b)).status == 201
    await _set_phase(api, f"{pods}/p2", "Running")
    await _set_phase(api, f"{pods}/p2", "Succeeded")
    deleted = await api.delete(f"{pods}/p1?gracePeriodSeconds=0")
    assert deleted.status == 200, deleted.body

    async def seen(name: str) -> list[tuple[str, str, str]]:
        # A bound on the wait, not a timing check: the events are due at once.
        return _summary(await asyncio.wait_for(take(watches[name], len(expected[name])), 20))

    assert {name: await seen(name) for name in watches} == expected
    for stream in watches.values():
        await stream.aclose()  # type: ignore[attr-defined]
