"""ReplicaSets and ReplicationControllers: pods from the template, adoption, release, order."""

from __future__ import annotations

from typing import Any

from kf_http import Api, pod
from kf_plane import replica_set, until

MERGE = "application/merge-patch+json"


def _owner(obj: dict[str, Any]) -> str | None:
    for ref in obj["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref["uid"])
    return None


async def _pods(api: Api, namespace: str, selector: str) -> list[dict[str, Any]]:
    items = (await api.get(f"/api/v1/namespaces/{namespace}/pods", labelSelector=selector)).body
    return [p for p in items["items"] if not p["metadata"].get("deletionTimestamp")]


async def test_a_replica_set_adopts_a_matching_orphan_and_creates_only_the_rest(
    api: Api, namespace: str
) -> None:
    pods = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(pods, pod("orphan", app="adopt"))
    sets = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
    rs = (await api.post(sets, replica_set("adopt", 3))).body
    ready = await until(api, f"{sets}/adopt", lambda r: r["status"].get("readyReplicas") == 3)
    assert ready["status"]["replicas"] == 3
    owned = await _pods(api, namespace, "app=adopt")
    assert len(owned) == 3
    assert {_owner(p) for p in owned} == {rs["metadata"]["uid"]}
    assert "orphan" in {p["metadata"]["name"] for p in owned}
    created = [p for p in owned if p["metadata"]["name"] != "orphan"]
    assert all(p["metadata"]["generateName"] == "adopt-" for p in created)


async def test_a_pod_whose_labels_stop_matching_is_released_and_replaced(
    api: Api, namespace: str
) -> None:
    sets = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
    await api.post(sets, replica_set("keep", 2))
    await until(api, f"{sets}/keep", lambda r: r["status"].get("readyReplicas") == 2)
    leaving = (await _pods(api, namespace, "app=keep"))[0]["metadata"]["name"]
    path = f"/api/v1/namespaces/{namespace}/pods/{leaving}"
    await api.patch(path, {"metadata": {"labels": {"app": "elsewhere"}}}, MERGE)
    released = await until(api, path, lambda p: _owner(p) is None)
    assert released["metadata"]["labels"] == {"app": "elsewhere"}
    await until(api, f"{sets}/keep", lambda r: r["status"].get("readyReplicas") == 2)
    assert leaving not in {p["metadata"]["name"] for p in await _pods(api, namespace, "app=keep")}


async def test_scaling_down_deletes_the_not_ready_pods_first(api: Api, namespace: str) -> None:
    # A pod that never becomes ready, adopted as one of three replicas.
    shy = pod("shy", app="order")
    shy["metadata"]["annotations"] = {"kubeforge.dev/behavior": "never-ready"}
    await api.post(f"/api/v1/namespaces/{namespace}/pods", shy)
    sets = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
    await api.post(sets, replica_set("order", 3))
    await until(api, f"{sets}/order", lambda r: r["status"].get("readyReplicas") == 2)
    ready_ones = {p["metadata"]["name"] for p in await _pods(api, namespace, "app=order")} - {"shy"}
    assert len(ready_ones) == 2
    await api.patch(f"{sets}/order", {"spec": {"replicas": 2}}, MERGE)
    await until(
        api,
        f"{sets}/order",
        lambda r: r["status"]["replicas"] == 2 and r["status"].get("observedGeneration") == 2,
    )
    left = {p["metadata"]["name"] for p in await _pods(api, namespace, "app=order")}
    assert left == ready_ones


async def test_a_replication_controller_keeps_its_pods(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/replicationcontrollers"
    body = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "legacy"},
        "spec": {
            "replicas": 2,
            "selector": {"app": "legacy"},
            "template": {
                "metadata": {"labels": {"app": "legacy"}},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]},
            },
        },
    }
    rc = (await api.post(path, body)).body
    done = await until(api, f"{path}/legacy", lambda r: r["status"].get("availableReplicas") == 2)
    assert done["status"]["readyReplicas"] == 2
    assert {_owner(p) for p in await _pods(api, namespace, "app=legacy")} == {rc["metadata"]["uid"]}
    events = await api.get(
        f"/api/v1/namespaces/{namespace}/events", fieldSelector="involvedObject.name=legacy"
    )
    sources = {e["source"]["component"] for e in events.body["items"]}
    assert sources == {"replication-controller"}
