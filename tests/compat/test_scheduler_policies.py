"""The scheduler's topology spread (ScheduleAnyway scoring, minDomains) and preemption
through kubectl and the official client, with the 1.32 scheduler's words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes import watch as k8s_watch

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

ZONES = """
nodes:
- {name: a-0, labels: {topology.kubernetes.io/zone: a}}
- {name: a-1, labels: {topology.kubernetes.io/zone: a}}
- {name: b-0, labels: {topology.kubernetes.io/zone: b}}
"""
ONE_SMALL_NODE = """
nodes:
- {name: small, capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
"""


def _server(factory: Any, tmp_path: Path, nodes: str) -> Kubectl:
    config = tmp_path / "nodes.yaml"
    config.write_text(nodes)
    server = factory(data_dir=None, extra_args=["--node-config", str(config)])
    return Kubectl(server.kubeconfig, tmp_path / "cache", "default")


def _pod(name: str, app: str, **spec: Any) -> str:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": {"containers": [{"name": "main", "image": "nginx"}], **spec},
    }
    return json.dumps(body)


def _spread(key: str, when: str, **extra: Any) -> list[dict[str, Any]]:
    selector = {"matchLabels": {"app": "spread"}}
    constraint = {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when}
    return [{**constraint, "labelSelector": selector, **extra}]


def _scheduled_message(kubectl: Kubectl, name: str) -> str:
    pod = kubectl.until(
        ("pod", name),
        lambda p: any(c["type"] == "PodScheduled" for c in p["status"].get("conditions") or []),
    )
    (condition,) = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    return str(condition["message"])


def _node_of(kubectl: Kubectl, name: str) -> str:
    return str(
        kubectl.until(("pod", name), lambda p: p["spec"].get("nodeName"))["spec"]["nodeName"]
    )


def test_schedule_anyway_prefers_the_emptier_zone_and_never_blocks(
    kube_apiserver_factory: Any, tmp_path: Path
) -> None:
    kubectl = _server(kube_apiserver_factory, tmp_path, ZONES)
    zone = "topology.kubernetes.io/zone"
    constraints = _spread(zone, "ScheduleAnyway")
    kubectl.run(
        "create", "-f", "-", stdin=_pod("one", "spread", topologySpreadConstraints=constraints)
    )
    first = _node_of(kubectl, "one")
    kubectl.run(
        "create", "-f", "-", stdin=_pod("two", "spread", topologySpreadConstraints=constraints)
    )
    second = _node_of(kubectl, "two")
    # a-0 and a-1 are as empty as b-0, but zone b holds no matching pod yet.
    assert {first[0], second[0]} == {"a", "b"}
    # A key no node has: ScheduleAnyway still places the pod, DoNotSchedule cannot.
    rack = _spread("example.com/rack", "ScheduleAnyway")
    kubectl.run("create", "-f", "-", stdin=_pod("anyway", "spread", topologySpreadConstraints=rack))
    assert _node_of(kubectl, "anyway")
    strict = _spread("example.com/rack", "DoNotSchedule")
    kubectl.run(
        "create", "-f", "-", stdin=_pod("strict", "spread", topologySpreadConstraints=strict)
    )
    assert _scheduled_message(kubectl, "strict") == (
        "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints "
        "(missing required label). preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling."
    )


def test_min_domains_counts_missing_zones_as_empty(
    kube_apiserver_factory: Any, tmp_path: Path
) -> None:
    kubectl = _server(kube_apiserver_factory, tmp_path, ZONES)
    constraints = _spread("topology.kubernetes.io/zone", "DoNotSchedule", minDomains=3)
    for name in ("p1", "p2"):
        kubectl.run(
            "create", "-f", "-", stdin=_pod(name, "spread", topologySpreadConstraints=constraints)
        )
        _node_of(kubectl, name)
    # Two zones of the three asked for: the smallest counts as 0, so each zone holds one.
    kubectl.run(
        "create", "-f", "-", stdin=_pod("p3", "spread", topologySpreadConstraints=constraints)
    )
    assert _scheduled_message(kubectl, "p3") == (
        "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints. "
        "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    )
    assert {_node_of(kubectl, "p1")[0], _node_of(kubectl, "p2")[0]} == {"a", "b"}


def _priority_class(name: str, value: int, policy: str = "PreemptLowerPriority") -> str:
    return json.dumps(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "preemptionPolicy": policy,
        }
    )


def _asking(name: str, cpu: str, priority_class: str) -> str:
    body = json.loads(_pod(name, name, priorityClassName=priority_class))
    body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    return json.dumps(body)


def test_a_higher_priority_pod_preempts_and_a_never_pod_waits(
    kube_apiserver_factory: Any, tmp_path: Path
) -> None:
    kubectl = _server(kube_apiserver_factory, tmp_path, ONE_SMALL_NODE)
    for name, value, policy in (
        ("low", 10, "PreemptLowerPriority"),
        ("high", 1000, "PreemptLowerPriority"),
        ("polite", 1000, "Never"),
    ):
        kubectl.run(
            "create", "-f", "-", stdin=_priority_class(name, value, policy), namespaced=False
        )
    kubectl.run("create", "-f", "-", stdin=_asking("victim", "1500m", "low"))
    kubectl.run("wait", "--for=condition=Ready", "pod/victim", "--timeout=60s")
    kubectl.run("create", "-f", "-", stdin=_asking("waiter", "1500m", "polite"))
    assert _scheduled_message(kubectl, "waiter") == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: not eligible due to preemptionPolicy=Never."
    )
    api = k8s_config.new_client_from_config(config_file=str(kubectl.env["KUBECONFIG"]))
    core = k8s.CoreV1Api(api)
    since = core.read_namespaced_pod("victim", "default").metadata.resource_version
    kubectl.run("create", "-f", "-", stdin=_asking("vip", "1", "high"))
    last = None
    for event in k8s_watch.Watch().stream(
        core.list_namespaced_pod,
        "default",
        field_selector="metadata.name=victim",
        resource_version=since,
        timeout_seconds=60,
    ):
        last = event
        if event["type"] == "DELETED":
            break
    api.close()
    assert last is not None and last["type"] == "DELETED"
    (target,) = [c for c in last["object"].status.conditions if c.type == "DisruptionTarget"]
    assert (target.status, target.reason) == ("True", "PreemptionByScheduler")
    assert target.message == "default-scheduler: preempting to accommodate a higher priority pod"
    vip = kubectl.until(("pod", "vip"), lambda p: p["spec"].get("nodeName"))
    assert vip["spec"]["nodeName"] == "small"
    assert vip["status"]["nominatedNodeName"] == "small"
    preempted = [
        (e["type"], e["reason"], e["message"], e["source"]["component"])
        for e in kubectl.events("Pod", "victim")
        if e["reason"] == "Preempted"
    ]
    assert preempted == [
        (
            "Normal",
            "Preempted",
            f"Preempted by pod {vip['metadata']['uid']} on node small",
            "default-scheduler",
        )
    ]
    failed = [
        e["message"] for e in kubectl.events("Pod", "vip") if e["reason"] == "FailedScheduling"
    ]
    assert failed[0] == "0/1 nodes are available: 1 Insufficient cpu."
    # The room the eviction made is the nominated pod's: the waiter still does not fit.
    assert kubectl.json("pod", "waiter")["spec"].get("nodeName") is None


def test_preemption_spares_the_pod_a_disruption_budget_protects(
    kube_apiserver_factory: Any, tmp_path: Path
) -> None:
    kubectl = _server(kube_apiserver_factory, tmp_path, ONE_SMALL_NODE)
    for name, value in (("low", 10), ("high", 1000)):
        kubectl.run("create", "-f", "-", stdin=_priority_class(name, value), namespaced=False)
    # "free" starts first, so without the budget it would be the one kept (more important).
    for name in ("free", "guarded"):
        kubectl.run("create", "-f", "-", stdin=_asking(name, "1", "low"))
        kubectl.run("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s")
    kubectl.run("create", "pdb", "guard", "--selector=app=guarded", "--min-available=1")
    kubectl.until(
        ("pdb", "guard"),
        lambda b: (
            (b.get("status") or {}).get("currentHealthy") == 1
            and "disruptionsAllowed" in b["status"]
        ),
    )
    kubectl.run("create", "-f", "-", stdin=_asking("vip", "1", "high"))
    kubectl.until(("pod", "vip"), lambda p: p["spec"].get("nodeName") == "small")
    names = {p["metadata"]["name"] for p in kubectl.json("pods")["items"]}
    assert names == {"guarded", "vip"}
    assert [e["reason"] for e in kubectl.events("Pod", "free") if e["reason"] == "Preempted"]
