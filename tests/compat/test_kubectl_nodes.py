"""Nodes through the real kubectl: kubelet heartbeats (Leases, lastHeartbeatTime), a kubelet
that stops posting (Unknown, unreachable taints, pods not ready), and which toleration
decides when a NoExecute taint evicts a pod, as a 1.32 cluster does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

NODE = "kubeforge-node-0"
# Short heartbeats and grace so a silent kubelet is noticed within a test.
QUICK = [
    "--node-heartbeat-interval=0.2",
    "--node-status-report-frequency=0.5",
    "--node-monitor-grace-period=2",
]


def _pod(name: str, tolerations: list[dict[str, Any]]) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {
                "containers": [{"name": "main", "image": "nginx:1.27"}],
                "tolerations": tolerations,
            },
        }
    )


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    found = [c for c in obj["status"].get("conditions") or [] if c["type"] == kind]
    return found[0] if found else {}


def _gone_or_terminating(kubectl: Kubectl, name: str) -> bool:
    done = kubectl.complete("get", "pod", name, "-o", "json")
    return done.returncode != 0 or bool(
        json.loads(done.stdout)["metadata"].get("deletionTimestamp")
    )


@pytest.fixture
def quick(kube_apiserver_factory: Any, tmp_path: Path) -> Kubectl:
    server = kube_apiserver_factory(data_dir=None, extra_args=QUICK)
    return Kubectl(server.kubeconfig, tmp_path / "cache", "default")


def test_the_first_matching_toleration_with_the_least_seconds_decides_the_eviction(
    kube_apiserver_factory: Any, tmp_path: Path
) -> None:
    server = kube_apiserver_factory(data_dir=None)
    kubectl = Kubectl(server.kubeconfig, tmp_path / "cache", "default")
    brief = {
        "key": "dedicated",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 1,
    }
    long = {**brief, "tolerationSeconds": 3600}
    everything = {"operator": "Exists"}
    # getMinTolerationTime: 1 s wins over a toleration without seconds ...
    kubectl.run("create", "-f", "-", stdin=_pod("brief", [brief, everything]))
    # ... only tolerations without seconds tolerate for ever ...
    kubectl.run("create", "-f", "-", stdin=_pod("forever", [everything]))
    # ... and each taint counts its first matching toleration only (3600 s, not 1 s).
    kubectl.run("create", "-f", "-", stdin=_pod("first", [long, brief]))
    for name in ("brief", "forever", "first"):
        kubectl.run("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s")
    kubectl.run("taint", "node", NODE, "dedicated=x:NoExecute", namespaced=False)
    kubectl.until(("pods",), lambda _: _gone_or_terminating(kubectl, "brief"))
    assert ("TaintManagerEviction", "Marking for deletion Pod default/brief") in [
        (e["reason"], e["message"]) for e in kubectl.events("Pod", "brief")
    ]
    for name in ("forever", "first"):
        assert not kubectl.json("pod", name)["metadata"].get("deletionTimestamp")


def test_kubelets_renew_their_lease_and_post_heartbeats(quick: Kubectl) -> None:
    lease = quick.json("lease", "-n", "kube-node-lease", NODE)
    assert lease["spec"]["holderIdentity"] == NODE
    assert lease["spec"]["leaseDurationSeconds"] == 40
    (owner,) = lease["metadata"]["ownerReferences"]
    node = quick.json("node", NODE)
    assert (owner["kind"], owner["name"], owner["uid"]) == ("Node", NODE, node["metadata"]["uid"])
    renewed = lease["spec"]["renewTime"]
    assert renewed.endswith("Z") and "." in renewed  # a MicroTime
    quick.until(
        ("lease", "-n", "kube-node-lease", NODE), lambda b: b["spec"]["renewTime"] != renewed
    )
    ready = _condition(node, "Ready")
    later = quick.until(
        ("node", NODE),
        lambda n: _condition(n, "Ready")["lastHeartbeatTime"] != ready["lastHeartbeatTime"],
    )
    assert _condition(later, "Ready")["lastTransitionTime"] == ready["lastTransitionTime"]
    assert _condition(later, "Ready")["reason"] == "KubeletReady"


def test_a_silent_kubelet_makes_its_node_unknown_and_its_pods_not_ready(quick: Kubectl) -> None:
    unreachable = {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 1,
    }
    quick.run("create", "-f", "-", stdin=_pod("web", []))
    quick.run("create", "-f", "-", stdin=_pod("brief", [unreachable]))
    for name in ("web", "brief"):
        quick.run("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s")
    quick.run("annotate", "node", NODE, "kubeforge.dev/kubelet=stopped", namespaced=False)
    node = quick.until(("node", NODE), lambda n: _condition(n, "Ready")["status"] == "Unknown")
    for kind in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure"):
        condition = _condition(node, kind)
        assert condition["status"] == "Unknown"
        assert condition["reason"] == "NodeStatusUnknown"
        assert condition["message"] == "Kubelet stopped posting node status."
    assert quick.run("get", "node", NODE, "--no-headers", namespaced=False).split()[1] == (
        "NotReady"
    )
    tainted = quick.until(("node", NODE), lambda n: len(n["spec"].get("taints") or []) == 2)[
        "spec"
    ]["taints"]
    assert {(t["key"], t["effect"]) for t in tainted} == {
        ("node.kubernetes.io/unreachable", "NoSchedule"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
    }
    web = quick.until(("pod", "web"), lambda p: _condition(p, "Ready")["status"] == "False")
    assert web["status"]["phase"] == "Running"
    assert ("Warning", "NodeNotReady", "Node is not ready") in [
        (e["type"], e["reason"], e["message"]) for e in quick.events("Pod", "web")
    ]
    assert ("NodeNotReady", f"Node {NODE} status is now: NodeNotReady") in [
        (e["reason"], e["message"]) for e in quick.events("Node", NODE)
    ]
    # The toleration's second runs out: evicted, but with no kubelet to confirm, Terminating.
    brief = quick.until(("pod", "brief"), lambda p: p["metadata"].get("deletionTimestamp"))
    assert _condition(brief, "DisruptionTarget")["reason"] == "DeletionByTaintManager"
    # The kubelet comes back: Ready again, untainted, and the evicted pod goes.
    quick.run("annotate", "node", NODE, "kubeforge.dev/kubelet-", namespaced=False)
    back = quick.until(
        ("node", NODE),
        lambda n: _condition(n, "Ready")["status"] == "True" and not n["spec"].get("taints"),
    )
    assert _condition(back, "Ready")["reason"] == "KubeletReady"
    assert ("NodeReady", f"Node {NODE} status is now: NodeReady") in [
        (e["reason"], e["message"]) for e in quick.events("Node", NODE)
    ]
    quick.until(("pods",), lambda b: "brief" not in {p["metadata"]["name"] for p in b["items"]})


def test_a_node_no_kubelet_ever_posted_for_turns_unknown(
    kube_apiserver_factory: Any, tmp_path: Path
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=["--node-startup-grace-period=1"])
    kubectl = Kubectl(server.kubeconfig, tmp_path / "cache", "default")
    manifest = json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "bare"}})
    kubectl.run("create", "-f", "-", stdin=manifest, namespaced=False)
    node = kubectl.until(
        ("node", "bare"), lambda n: len((n.get("status") or {}).get("conditions") or []) == 4
    )
    created = node["metadata"]["creationTimestamp"]
    for kind in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure"):
        condition = _condition(node, kind)
        assert condition["status"] == "Unknown"
        assert condition["reason"] == "NodeStatusNeverUpdated"
        assert condition["message"] == "Kubelet never posted node status."
        assert condition["lastHeartbeatTime"] == created
    tainted = kubectl.until(("node", "bare"), lambda n: len(n["spec"].get("taints") or []) == 2)
    assert {t["key"] for t in tainted["spec"]["taints"]} == {"node.kubernetes.io/unreachable"}
    # Tainted because it turned Unknown, not before (a node without Ready is left alone).
    (no_execute,) = [t for t in tainted["spec"]["taints"] if t["effect"] == "NoExecute"]
    assert no_execute["timeAdded"] >= _condition(node, "Ready")["lastTransitionTime"]
