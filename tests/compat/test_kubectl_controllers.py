"""Services, DaemonSets, CronJobs, cordons and NotReady nodes through the real kubectl."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _events(kubectl: Kubectl, kind: str, name: str) -> list[tuple[str, str]]:
    return [(e["reason"], e["message"]) for e in kubectl.events(kind, name)]


def test_expose_gives_endpoint_slices_and_endpoints_of_the_ready_pods(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=80")
    kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")
    exposed = kubectl.run("expose", "deployment/web", "--port=8080", "--target-port=80")
    assert exposed.strip() == "service/web exposed"
    service = kubectl.json("service", "web")
    assert service["spec"]["clusterIP"].startswith("10.96.")
    pods = {p["status"]["podIP"]: p for p in kubectl.json("pods", "-l", "app=web")["items"]}
    slices = kubectl.until(
        ("endpointslices", "-l", "kubernetes.io/service-name=web"),
        lambda b: b["items"] and len(b["items"][0].get("endpoints") or []) == 2,
    )["items"]
    (endpoint_slice,) = slices
    labels = endpoint_slice["metadata"]["labels"]
    assert labels["endpointslice.kubernetes.io/managed-by"] == "endpointslice-controller.k8s.io"
    assert endpoint_slice["addressType"] == "IPv4"
    assert endpoint_slice["ports"] == [{"name": "", "port": 80, "protocol": "TCP"}]
    assert endpoint_slice["metadata"]["ownerReferences"][0]["kind"] == "Service"
    for endpoint in endpoint_slice["endpoints"]:
        pod = pods[endpoint["addresses"][0]]
        assert endpoint["conditions"] == {"ready": True, "serving": True, "terminating": False}
        assert endpoint["nodeName"] == pod["spec"]["nodeName"]
        assert endpoint["targetRef"]["name"] == pod["metadata"]["name"]
    table = kubectl.run("get", "endpointslices").splitlines()
    assert table[0].split()[:4] == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS"]
    assert sorted(table[1].split()[3].split(",")) == sorted(pods)
    endpoints = kubectl.json("endpoints", "web")
    (subset,) = endpoints["subsets"]
    assert sorted(a["ip"] for a in subset["addresses"]) == sorted(pods)
    assert subset["ports"] == [{"port": 80, "protocol": "TCP"}]
    # A pod that stops being ready leaves the ready endpoints.
    kubectl.run("scale", "deployment/web", "--replicas=1")
    kubectl.until(
        ("endpoints", "web"),
        lambda e: len((e.get("subsets") or [{}])[0].get("addresses") or []) == 1,
    )


DAEMON = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: main, image: "busybox:1.36"}]}
"""


def test_a_daemon_set_runs_a_pod_per_node_tolerating_a_cordon(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=DAEMON)
    kubectl.run("rollout", "status", "daemonset/agent", "--timeout=60s")
    status = kubectl.json("daemonset", "agent")["status"]
    assert status["desiredNumberScheduled"] == status["numberReady"] == 1
    (pod,) = kubectl.json("pods", "-l", "app=agent")["items"]
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["kubeforge-node-0"]
    keys = {t["key"] for t in pod["spec"]["tolerations"]}
    assert "node.kubernetes.io/unschedulable" in keys


def test_a_cron_job_creates_jobs_on_its_schedule(kubectl: Kubectl) -> None:
    created = kubectl.run(
        "create", "cronjob", "tick", "--image=busybox:1.36", "--schedule=@every 1s", "--", "true"
    )
    assert created.strip() == "cronjob.batch/tick created"
    cronjob = kubectl.until(
        ("cronjob", "tick"), lambda c: c.get("status", {}).get("lastSuccessfulTime")
    )
    (job,) = kubectl.json("jobs")["items"]
    assert job["metadata"]["ownerReferences"][0]["name"] == "tick"
    assert "batch.kubernetes.io/cronjob-scheduled-timestamp" in job["metadata"]["annotations"]
    minutes = job["metadata"]["name"].removeprefix("tick-")
    assert minutes.isdigit()
    assert cronjob["status"]["lastScheduleTime"]
    reasons = [r for r, _ in _events(kubectl, "CronJob", "tick")]
    assert reasons[:2] == ["SuccessfulCreate", "SawCompletedJob"]
    kubectl.run("patch", "cronjob/tick", "--type=merge", "-p", '{"spec":{"suspend":true}}')
    row = kubectl.run("get", "cronjob", "tick").splitlines()[1].split()
    assert row[:2] == ["tick", "@every"] and "True" in row


def test_cordon_keeps_new_pods_off_and_a_not_ready_node_loses_its_pods(
    kube_apiserver_factory: Any, tmp_path: Any
) -> None:
    # Without DefaultTolerationSeconds' 300 s not-ready toleration, as a pod that sets
    # none: the node lifecycle controller evicts it at once instead of five minutes later.
    server = kube_apiserver_factory(
        data_dir=None, nodes=2, extra_args=["--disable-admission-plugins=DefaultTolerationSeconds"]
    )
    kubectl = Kubectl(server.kubeconfig, tmp_path / "cache", "default")
    assert kubectl.run("cordon", "kubeforge-node-1").strip() == "node/kubeforge-node-1 cordoned"
    cordoned = kubectl.until(("node", "kubeforge-node-1"), lambda n: n["spec"].get("taints"))
    assert cordoned["spec"]["taints"] == [
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    ]
    kubectl.run("create", "deployment", "web", "--image=nginx", "--replicas=2")
    kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")
    nodes = {p["spec"]["nodeName"] for p in kubectl.json("pods", "-l", "app=web")["items"]}
    assert nodes == {"kubeforge-node-0"}
    kubectl.run("uncordon", "kubeforge-node-1")
    kubectl.run("cordon", "kubeforge-node-0")
    kubectl.run("scale", "deployment/web", "--replicas=3")
    kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")
    kubectl.run("uncordon", "kubeforge-node-0")
    (moved,) = [
        p
        for p in kubectl.json("pods", "-l", "app=web")["items"]
        if p["spec"]["nodeName"] == "kubeforge-node-1"
    ]
    not_ready = {
        "status": {
            "conditions": [
                {"type": "Ready", "status": "False", "reason": "KubeletNotReady", "message": "x"}
            ]
        }
    }
    kubectl.run(
        "patch",
        "node",
        "kubeforge-node-1",
        "--subresource=status",
        "--type=strategic",
        "-p",
        json.dumps(not_ready),
        namespaced=False,
    )
    node = kubectl.until(
        ("node", "kubeforge-node-1"),
        lambda n: any(t["effect"] == "NoExecute" for t in n["spec"].get("taints") or []),
    )
    taints = {(t["key"], t["effect"]) for t in node["spec"]["taints"]}
    assert taints == {
        ("node.kubernetes.io/not-ready", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "NoExecute"),
    }
    kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")
    pods = kubectl.until(
        ("pods", "-l", "app=web"),
        lambda b: (
            len(b["items"]) == 3
            and all(p["spec"].get("nodeName") == "kubeforge-node-0" for p in b["items"])
        ),
    )["items"]
    assert moved["metadata"]["name"] not in {p["metadata"]["name"] for p in pods}
    assert (
        "TaintManagerEviction",
        f"Marking for deletion Pod default/{moved['metadata']['name']}",
    ) in _events(kubectl, "Pod", moved["metadata"]["name"])
