"""The simulated node binds pods, runs them with unique IPs and removes deleted pods."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kf_http import Api, open_api, pod

from kubeforge.testing import LocalApiServer


async def _until_running(api: Api, path: str, start: str, names: set[str]) -> dict[str, Any]:
    running: dict[str, Any] = {}
    async for event in api.watch(path, resourceVersion=start, timeoutSeconds="20"):
        obj = event["object"]
        if (obj.get("status") or {}).get("phase") == "Running":
            running[obj["metadata"]["name"]] = obj
            if set(running) == names:
                break
    return running


async def test_the_node_object_exists(api: Api) -> None:
    reply = await api.get("/api/v1/nodes/kubeforge-node-0")
    assert reply.status == 200
    ready = {c["type"]: c["status"] for c in reply.body["status"]["conditions"]}
    assert ready["Ready"] == "True"


async def test_new_pods_are_bound_and_run_with_unique_ips_via_modified_events(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    names = {f"p{i}" for i in range(4)}
    for name in sorted(names):
        assert (await api.post(path, pod(name))).status == 201
    running = await _until_running(api, path, start, names)
    ips = {p["status"]["podIP"] for p in running.values()}
    assert len(ips) == 4
    assert all(ip.startswith("10.244.") for ip in ips)
    for p in running.values():
        assert p["spec"]["nodeName"] == "kubeforge-node-0"
        assert p["status"]["podIPs"] == [{"ip": p["status"]["podIP"]}]
        assert p["status"]["hostIP"]
        conditions = {c["type"]: c["status"] for c in p["status"]["conditions"]}
        assert conditions["Ready"] == "True"
    listed = await api.get(path, fieldSelector="status.phase=Running")
    assert {i["metadata"]["name"] for i in listed.body["items"]} == names


async def test_deleting_a_running_pod_is_graceful_then_it_disappears(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    await api.post(path, pod("g"))
    await _until_running(api, path, start, {"g"})
    before_delete = (await api.get(path)).body["metadata"]["resourceVersion"]
    reply = await api.delete(f"{path}/g")
    assert reply.status == 200
    assert reply.body["metadata"]["deletionTimestamp"]
    assert reply.body["metadata"]["deletionGracePeriodSeconds"] == 30
    types = []
    async for event in api.watch(path, resourceVersion=before_delete, timeoutSeconds="20"):
        types.append(event["type"])
        if event["type"] == "DELETED":
            break
    assert types == ["MODIFIED", "DELETED"]


async def test_grace_period_zero_deletes_a_running_pod_at_once(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    await api.post(path, pod("now"))
    await _until_running(api, path, start, {"now"})
    reply = await api.delete(f"{path}/now", {"gracePeriodSeconds": 0})
    assert reply.status == 200
    assert (await api.get(f"{path}/now")).status == 404


async def test_deleting_a_namespace_empties_it_and_removes_it(api: Api) -> None:
    name = await api.create_namespace()
    await api.post(f"/api/v1/namespaces/{name}/pods", pod("inside"))
    reply = await api.delete(f"/api/v1/namespaces/{name}")
    assert reply.status == 200
    assert reply.body["status"]["phase"] == "Terminating"
    events = []
    async for event in api.watch(
        "/api/v1/namespaces",
        fieldSelector=f"metadata.name={name}",
        resourceVersion=reply.body["metadata"]["resourceVersion"],
        timeoutSeconds="20",
    ):
        events.append(event["type"])
        if event["type"] == "DELETED":
            break
    assert events[-1] == "DELETED"
    assert (await api.get(f"/api/v1/namespaces/{name}/pods/inside")).status == 404


async def test_without_the_simulated_node_pods_stay_pending_like_envtest(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(simulate_node=False, data_dir=None)
    async with await open_api(server) as session:
        api = Api(server, session)
        assert (await api.get("/api/v1/nodes/kubeforge-node-0")).status == 404
        created = await api.post("/api/v1/namespaces/default/pods", pod("idle"))
        assert created.body["status"]["phase"] == "Pending"
        assert "nodeName" not in created.body["spec"]
        # An unscheduled pod has nothing to stop: DELETE removes it at once.
        deleted = await api.delete("/api/v1/namespaces/default/pods/idle")
        assert deleted.status == 200
        assert (await api.get("/api/v1/namespaces/default/pods/idle")).status == 404
        ns = await api.create_namespace()
        await api.delete(f"/api/v1/namespaces/{ns}")
        stuck = await api.get(f"/api/v1/namespaces/{ns}")
        assert stuck.body["status"]["phase"] == "Terminating"


def _owned(name: str, owner: dict[str, Any]) -> dict[str, Any]:
    ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    return {"metadata": {"name": name, "ownerReferences": [ref]}, "data": {}}


async def _gone(api: Api, path: str) -> bool:
    start = (await api.get(path.rsplit("/", 1)[0])).body["metadata"]["resourceVersion"]
    if (await api.get(path)).status == 404:
        return True
    name = path.rsplit("/", 1)[1]
    async for event in api.watch(
        path.rsplit("/", 1)[0],
        resourceVersion=start,
        fieldSelector=f"metadata.name={name}",
        timeoutSeconds="20",
    ):
        if event["type"] == "DELETED":
            return True
    return False


async def test_the_garbage_collector_deletes_dependents_of_a_deleted_owner(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    owner = (await api.post(path, {"metadata": {"name": "owner"}})).body
    await api.post(path, _owned("dependent", owner))
    await api.delete(f"{path}/owner")
    assert await _gone(api, f"{path}/dependent")


async def test_foreground_deletion_removes_dependents_then_the_owner(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    owner = (await api.post(path, {"metadata": {"name": "fg-owner"}})).body
    await api.post(path, _owned("fg-dep", owner))
    reply = await api.delete(f"{path}/fg-owner", {"propagationPolicy": "Foreground"})
    assert reply.body["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert await _gone(api, f"{path}/fg-owner")
    assert (await api.get(f"{path}/fg-dep")).status == 404


async def test_orphan_deletion_keeps_dependents_and_drops_their_owner_reference(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    owner = (await api.post(path, {"metadata": {"name": "or-owner"}})).body
    await api.post(path, _owned("or-dep", owner))
    await api.delete(f"{path}/or-owner", {"propagationPolicy": "Orphan"})
    assert await _gone(api, f"{path}/or-owner")
    dependent = await api.get(f"{path}/or-dep")
    assert dependent.status == 200
    assert not dependent.body["metadata"].get("ownerReferences")
