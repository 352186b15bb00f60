"""Several simulated nodes: the scheduler's placement and refusals, the kubelets' statuses.

One server with three nodes from a ``--node-config`` file: ``zone-a`` (labelled),
``gpu`` (tainted ``dedicated=gpu:NoSchedule``) and ``small`` (one CPU). Messages and
reasons are the 1.32 scheduler's and kubelet's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from kf_http import Api, open_api, pod
from kf_plane import condition, events_for, until

from kubeforge.testing import LocalApiServer

NODES = """
nodes:
- name: zone-a
  labels: {topology.kubernetes.io/zone: a}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
- name: gpu
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
- name: small
  capacity: {cpu: "1", memory: 1Gi, pods: "110"}
"""


@pytest.fixture
async def nodes_api(
    kube_apiserver_factory: Callable[..., LocalApiServer], tmp_path: Path
) -> AsyncIterator[Api]:
    config = tmp_path / "nodes.yaml"
    config.write_text(NODES)
    server = kube_apiserver_factory(data_dir=None, extra_args=["--node-config", str(config)])
    session = await open_api(server)
    async with session:
        yield Api(server, session)


def _with(body: dict[str, Any], **spec: Any) -> dict[str, Any]:
    body["spec"].update(spec)
    return body


def _running(obj: dict[str, Any]) -> bool:
    return condition(obj, "Ready").get("status") == "True"


async def test_the_nodes_of_the_file_are_registered_ready_with_their_taints(nodes_api: Api) -> None:
    items = (await nodes_api.get("/api/v1/nodes")).body["items"]
    by_name = {n["metadata"]["name"]: n for n in items}
    assert set(by_name) == {"zone-a", "gpu", "small"}
    assert by_name["zone-a"]["metadata"]["labels"]["topology.kubernetes.io/zone"] == "a"
    assert by_name["gpu"]["spec"]["taints"] == [
        {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    ]
    assert by_name["small"]["status"]["allocatable"]["cpu"] == "1"
    assert len({n["spec"]["podCIDR"] for n in items}) == 3
    for node in items:
        assert condition(node, "Ready")["reason"] == "KubeletReady"
        assert condition(node, "MemoryPressure")["status"] == "False"


async def test_a_pod_goes_where_its_node_selector_points_with_the_real_events(
    nodes_api: Api,
) -> None:
    path = "/api/v1/namespaces/default/pods"
    body = _with(pod("picky"), nodeSelector={"topology.kubernetes.io/zone": "a"})
    assert (await nodes_api.post(path, body)).status == 201
    running = await until(nodes_api, f"{path}/picky", _running)
    assert running["spec"]["nodeName"] == "zone-a"
    assert running["status"]["phase"] == "Running"
    zone_a = (await nodes_api.get("/api/v1/nodes/zone-a")).body
    prefix = zone_a["spec"]["podCIDR"].rsplit(".", 1)[0]
    assert running["status"]["podIP"].startswith(prefix + ".")
    assert running["status"]["hostIP"] == zone_a["status"]["addresses"][0]["address"]
    (container,) = running["status"]["containerStatuses"]
    assert container["ready"] is True and container["started"] is True
    assert container["restartCount"] == 0
    assert container["image"] == "docker.io/library/nginx:1.27"
    assert "running" in container["state"]
    events = await events_for(nodes_api, "default", "picky")
    assert [(e["reason"], e["source"]["component"]) for e in events] == [
        ("Scheduled", "default-scheduler"),
        ("Pulling", "kubelet"),
        ("Pulled", "kubelet"),
        ("Created", "kubelet"),
        ("Started", "kubelet"),
    ]
    assert events[0]["message"] == "Successfully assigned default/picky to zone-a"
    assert events[1]["message"] == 'Pulling image "nginx:1.27"'
    assert events[3]["message"] == "Created container: main"
    assert events[4]["message"] == "Started container main"
    assert events[4]["involvedObject"]["fieldPath"] == "spec.containers{main}"


async def test_a_watch_sees_the_binding_as_one_write_then_the_kubelets_two(
    nodes_api: Api,
) -> None:
    """The binding subresource stores ``spec.nodeName`` and ``PodScheduled=True`` in one
    write; the kubelet then reports ``Pending`` (ContainerCreating) and ``Running``."""
    path = "/api/v1/namespaces/default/pods"
    rv = (await nodes_api.get(path)).body["metadata"]["resourceVersion"]
    events = nodes_api.watch(path, resourceVersion=rv, fieldSelector="metadata.name=watched")
    assert (await nodes_api.post(path, pod("watched"))).status == 201
    seen = []
    async for event in events:
        seen.append(event["object"])
        if event["object"]["status"].get("phase") == "Running":
            break
    steps = [
        (
            bool(obj["spec"].get("nodeName")),
            condition(obj, "PodScheduled").get("status"),
            obj["status"]["phase"],
            [s["state"] for s in obj["status"].get("containerStatuses") or []],
        )
        for obj in seen
    ]
    waiting = {"waiting": {"reason": "ContainerCreating"}}
    assert steps[:3] == [
        (False, None, "Pending", []),
        (True, "True", "Pending", []),
        (True, "True", "Pending", [waiting]),
    ]
    assert steps[3][:3] == (True, "True", "Running") and len(steps) == 4


async def test_no_node_fits_gives_failed_scheduling_with_the_schedulers_message(
    nodes_api: Api,
) -> None:
    path = "/api/v1/namespaces/default/pods"
    body = pod("hungry")
    body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100"}}
    await nodes_api.post(path, body)
    message = (
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
        "2 Insufficient cpu. preemption: 0/3 nodes are available: "
        "1 Preemption is not helpful for scheduling, 2 No preemption victims found for "
        "incoming pod."
    )
    pending = await until(nodes_api, f"{path}/hungry", lambda p: bool(condition(p, "PodScheduled")))
    scheduled = condition(pending, "PodScheduled")
    assert scheduled["status"] == "False"
    assert scheduled["reason"] == "Unschedulable"
    assert scheduled["message"] == message
    assert pending["status"]["phase"] == "Pending"
    assert not pending["spec"].get("nodeName")
    (event,) = await events_for(nodes_api, "default", "hungry")
    assert (event["type"], event["reason"], event["message"]) == (
        "Warning",
        "FailedScheduling",
        message,
    )


async def test_a_toleration_opens_the_tainted_node_and_a_cordon_closes_one(
    nodes_api: Api,
) -> None:
    path = "/api/v1/namespaces/default/pods"
    for name in ("zone-a", "small"):
        patch = {"spec": {"unschedulable": True}}
        reply = await nodes_api.patch(
            f"/api/v1/nodes/{name}", patch, "application/strategic-merge-patch+json"
        )
        assert reply.status == 200
    await nodes_api.post(path, pod("nowhere"))
    pending = await until(
        nodes_api, f"{path}/nowhere", lambda p: bool(condition(p, "PodScheduled"))
    )
    assert condition(pending, "PodScheduled")["message"].startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
        "2 node(s) were unschedulable."
    )
    toleration = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
    await nodes_api.post(path, _with(pod("tolerant"), tolerations=[toleration]))
    tolerant = await until(nodes_api, f"{path}/tolerant", _running)
    assert tolerant["spec"]["nodeName"] == "gpu"
    await nodes_api.patch(
        "/api/v1/nodes/small", {"spec": {"unschedulable": None}}, "application/merge-patch+json"
    )
    placed = await until(nodes_api, f"{path}/nowhere", _running)
    assert placed["spec"]["nodeName"] == "small"  # tried again once a node changed


async def test_required_pod_anti_affinity_spreads_replicas_over_nodes(nodes_api: Api) -> None:
    path = "/api/v1/namespaces/default/pods"
    term = {
        "labelSelector": {"matchLabels": {"app": "spread"}},
        "topologyKey": "kubernetes.io/hostname",
    }
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    for name in ("s0", "s1", "s2"):
        await nodes_api.post(path, _with(pod(name, app="spread"), affinity=affinity))
    first = [
        await until(
            nodes_api,
            f"{path}/{n}",
            lambda p: bool(p["spec"].get("nodeName") or condition(p, "PodScheduled")),
        )
        for n in ("s0", "s1", "s2")
    ]
    nodes = [p["spec"].get("nodeName") for p in first]
    placed = [n for n in nodes if n]
    assert len(placed) == len(set(placed)) == 2  # the gpu node's taint leaves two
    (stuck,) = [p for p in first if not p["spec"].get("nodeName")]
    assert (
        "2 node(s) didn't match pod anti-affinity rules"
        in condition(stuck, "PodScheduled")["message"]
    )
