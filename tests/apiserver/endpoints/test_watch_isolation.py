"""A watch resumed from a resourceVersion replays only its own resource's history."""

from __future__ import annotations

from kf_http import Api, configmap, pod


async def test_a_resumed_watch_replays_only_its_own_resource(api: Api, namespace: str) -> None:
    configmaps = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(configmaps)).body["metadata"]["resourceVersion"]
    await api.post(f"/api/v1/namespaces/{namespace}/pods", pod("not-a-configmap"))
    await api.post(configmaps, configmap("the-configmap"))

    events = []
    async for event in api.watch(configmaps, resourceVersion=start, timeoutSeconds="2"):
        events.append(event)
        if len(events) == 1:
            break

    assert [(e["type"], e["object"]["kind"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "ConfigMap", "the-configmap")
    ]
