"""DaemonSets through the real kubectl on a three-node server: a pod per eligible node.

What a 1.32 cluster shows: ``rollout status ds/...``, the status counters, each pod
pinned to its node by a ``metadata.name`` node affinity with the daemon tolerations,
nodeSelector and taints narrowing the nodes, cordoned nodes still running their daemons,
and ``set image`` rolling the pods to the new ``controller-revision-hash``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubeforge.testing import LocalApiServer

from .kf_kubectl import Kubectl

_NODES = ["kubeforge-node-0", "kubeforge-node-1", "kubeforge-node-2"]


@pytest.fixture(scope="module")
def three_nodes() -> Iterator[LocalApiServer]:
    with LocalApiServer(nodes=3) as server:
        yield server


@pytest.fixture
def kubectl(three_nodes: LocalApiServer, tmp_path: Path, request: pytest.FixtureRequest) -> Kubectl:
    namespace = f"ds-{request.node.name.removeprefix('test_')[:30].replace('_', '-').rstrip('-')}"
    admin = Kubectl(three_nodes.kubeconfig, tmp_path / "cache", namespace)
    admin.run("create", "namespace", namespace, namespaced=False)
    return admin


def _manifest(name: str, **spec: Any) -> str:
    template_spec = {"containers": [{"name": "main", "image": "fluentd:1"}]}
    template_spec.update(spec.pop("pod", {}))
    return json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": name},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": template_spec},
                **spec,
            },
        }
    )


def _rollout(kubectl: Kubectl, name: str) -> str:
    return kubectl.run("rollout", "status", f"ds/{name}", "--timeout=60s")


def _pods(kubectl: Kubectl, app: str) -> list[dict[str, Any]]:
    items = kubectl.json("pods", "-l", f"app={app}")["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def test_a_daemon_set_runs_one_pod_per_node_and_rolls_out(kubectl: Kubectl) -> None:
    kubectl.run("create", "-f", "-", stdin=_manifest("agent"))
    *waiting, done = _rollout(kubectl, "agent").splitlines()
    # One line per status kubectl saw before the rollout finished: timing decides how many.
    assert all(line.startswith('Waiting for daemon set "agent" rollout') for line in waiting)
    assert done == 'daemon set "agent" successfully rolled out'
    ds = kubectl.json("ds", "agent")
    status = ds["status"]
    assert {
        k: status.get(k)
        for k in (
            "desiredNumberScheduled",
            "currentNumberScheduled",
            "numberReady",
            "numberAvailable",
            "updatedNumberScheduled",
            "numberMisscheduled",
        )
    } == {
        "desiredNumberScheduled": 3,
        "currentNumberScheduled": 3,
        "numberReady": 3,
        "numberAvailable": 3,
        "updatedNumberScheduled": 3,
        "numberMisscheduled": 0,
    }
    assert "numberUnavailable" not in status
    assert status["observedGeneration"] == ds["metadata"]["generation"]
    pods = _pods(kubectl, "agent")
    assert sorted(p["spec"]["nodeName"] for p in pods) == _NODES
    pod = pods[0]
    labels = pod["metadata"]["labels"]
    assert labels["pod-template-generation"] == "1"
    revision = kubectl.json("controllerrevisions", "-l", "app=agent")["items"][0]
    assert revision["metadata"]["name"] == f"agent-{labels['controller-revision-hash']}"
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert terms["nodeSelectorTerms"] == [
        {
            "matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [pod["spec"]["nodeName"]]}
            ]
        }
    ]
    tolerated = {(t["key"], t["effect"]) for t in pod["spec"]["tolerations"]}
    assert {
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    } <= tolerated
    assert "Created pod: " + pod["metadata"]["name"] in [
        e["message"] for e in kubectl.events("DaemonSet", "agent")
    ]

    kubectl.run("set", "image", "ds/agent", "main=fluentd:2")
    _rollout(kubectl, "agent")
    done = kubectl.until(
        ("ds", "agent"),
        lambda d: (
            d["status"].get("updatedNumberScheduled") == 3
            and d["status"].get("numberAvailable") == 3
        ),
    )
    assert done["status"]["observedGeneration"] == 2
    pods = _pods(kubectl, "agent")
    assert sorted(p["spec"]["nodeName"] for p in pods) == _NODES
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"fluentd:2"}
    assert {p["metadata"]["labels"]["pod-template-generation"] for p in pods} == {"2"}


def test_node_selector_and_untolerated_taints_narrow_the_nodes(kubectl: Kubectl) -> None:
    kubectl.run("label", "node", _NODES[0], _NODES[1], "ds-test=narrow", namespaced=False)
    kubectl.run("taint", "node", _NODES[1], "ds-test=narrow:NoSchedule", namespaced=False)
    try:
        manifest = _manifest("picky", pod={"nodeSelector": {"ds-test": "narrow"}})
        kubectl.run("create", "-f", "-", stdin=manifest)
        _rollout(kubectl, "picky")
        ds = kubectl.until(("ds", "picky"), lambda d: d["status"].get("numberAvailable") == 1)
        assert ds["status"]["desiredNumberScheduled"] == 1
        assert [p["spec"]["nodeName"] for p in _pods(kubectl, "picky")] == [_NODES[0]]

        kubectl.run("taint", "node", _NODES[0], "ds-test=narrow:NoExecute", namespaced=False)
        gone = kubectl.until(
            ("ds", "picky"),
            lambda d: (
                d["status"]["desiredNumberScheduled"] == 0
                and d["status"]["currentNumberScheduled"] == 0
            ),
        )
        assert gone["status"]["numberMisscheduled"] == 0
        kubectl.until(("pods", "-l", "app=picky"), lambda b: b["items"] == [])
    finally:
        for node in _NODES[:2]:
            kubectl.complete("taint", "node", node, "ds-test-", namespaced=False)
            kubectl.run("label", "node", node, "ds-test-", namespaced=False)


def test_a_cordoned_node_keeps_and_gets_its_daemon_pod(kubectl: Kubectl) -> None:
    kubectl.run("cordon", _NODES[2], namespaced=False)
    try:
        kubectl.run("create", "-f", "-", stdin=_manifest("logs"))
        _rollout(kubectl, "logs")
        assert sorted(p["spec"]["nodeName"] for p in _pods(kubectl, "logs")) == _NODES
    finally:
        kubectl.run("uncordon", _NODES[2], namespaced=False)


def test_max_surge_starts_the_new_pod_before_the_old_one_goes(kubectl: Kubectl) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    kubectl.run("create", "-f", "-", stdin=_manifest("surge", updateStrategy=strategy))
    _rollout(kubectl, "surge")
    before = len(kubectl.events("DaemonSet", "surge"))
    kubectl.run("set", "image", "ds/surge", "main=fluentd:2")
    _rollout(kubectl, "surge")
    done = kubectl.until(
        ("ds", "surge"),
        lambda d: (
            d["status"].get("updatedNumberScheduled") == 3
            and d["status"].get("numberAvailable") == 3
            and len(_pods(kubectl, "surge")) == 3
        ),
    )
    assert done["status"]["desiredNumberScheduled"] == 3
    assert {p["spec"]["containers"][0]["image"] for p in _pods(kubectl, "surge")} == {"fluentd:2"}
    after = [e["message"] for e in kubectl.events("DaemonSet", "surge")][before:]
    assert after[0].startswith("Created pod: "), after  # maxUnavailable 0: surge first
    assert sum(m.startswith("Deleted pod: ") for m in after) == 3
