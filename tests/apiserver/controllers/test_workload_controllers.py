"""Invariants of the workload controllers, read from every state a watch shows."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from kf_http import Api, open_api
from kf_plane import until

from kubeforge.testing import LocalApiServer

MERGE = "application/merge-patch+json"


def _job(name: str, completions: int, parallelism: int) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "completions": completions,
            "parallelism": parallelism,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox:1.36"}],
                }
            },
        },
    }


async def test_a_job_never_runs_more_pods_than_its_parallelism(api: Api, namespace: str) -> None:
    pods = f"/api/v1/namespaces/{namespace}/pods"
    start = (await api.get(pods)).body["metadata"]["resourceVersion"]
    await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", _job("steady", 5, 2))
    running: set[str] = set()
    most = 0
    finished: set[str] = set()
    async for event in api.watch(pods, resourceVersion=start, timeoutSeconds="60"):
        pod = event["object"]
        name = pod["metadata"]["name"]
        if event["type"] == "DELETED" or pod["status"].get("phase") in ("Succeeded", "Failed"):
            running.discard(name)
            finished.add(name)
        else:
            running.add(name)
        most = max(most, len(running))
        if len(finished) == 5:
            break
    assert most == 2
    job = await until(
        api,
        f"/apis/batch/v1/namespaces/{namespace}/jobs/steady",
        lambda j: j["status"].get("succeeded") == 5,
    )
    assert [c["type"] for c in job["status"]["conditions"]] == ["SuccessCriteriaMet", "Complete"]


@pytest.fixture
async def three_nodes(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> AsyncIterator[Api]:
    server = kube_apiserver_factory(data_dir=None, nodes=3)
    session = await open_api(server)
    async with session:
        yield Api(server, session)


async def test_a_daemon_set_follows_the_nodes_it_may_run_on(three_nodes: Api) -> None:
    api = three_nodes
    taint = {"spec": {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}}
    await api.patch("/api/v1/nodes/kubeforge-node-2", taint, MERGE)
    sets = "/apis/apps/v1/namespaces/default/daemonsets"
    body = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
            },
        },
    }
    await api.post(sets, body)
    ready = await until(api, f"{sets}/agent", lambda d: d["status"].get("numberReady") == 2)
    assert ready["status"]["desiredNumberScheduled"] == 2
    pods = (await api.get("/api/v1/namespaces/default/pods", labelSelector="app=agent")).body
    assert sorted(p["spec"]["nodeName"] for p in pods["items"]) == [
        "kubeforge-node-0",
        "kubeforge-node-1",
    ]
    await api.patch("/api/v1/nodes/kubeforge-node-2", {"spec": {"taints": None}}, MERGE)
    grown = await until(api, f"{sets}/agent", lambda d: d["status"].get("numberReady") == 3)
    assert grown["status"]["desiredNumberScheduled"] == 3
    assert grown["status"]["numberMisscheduled"] == 0
