"""StatefulSets through the real kubectl: ordinal pods in order, their claims, partitioned rollouts.

What a 1.32 cluster shows: ``web-0`` before ``web-1``, claims ``data-web-<n>`` with the
set's labels, ``controller-revision-hash`` on the pods and ControllerRevisions behind
``currentRevision``/``updateRevision``, and ``rollout status sts/web``.
"""

from __future__ import annotations

import json
from typing import Any

from .kf_kubectl import Kubectl


def _manifest(name: str, replicas: int, **spec: Any) -> str:
    body = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": "nginx:1.26"}]},
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}},
                    },
                }
            ],
            **spec,
        },
    }
    return json.dumps(body)


def _rollout(kubectl: Kubectl, name: str) -> str:
    return kubectl.run("rollout", "status", f"sts/{name}", "--timeout=60s")


def _pods(kubectl: Kubectl, app: str) -> dict[str, dict[str, Any]]:
    items = kubectl.json("pods", "-l", f"app={app}")["items"]
    return {p["metadata"]["name"]: p for p in items}


def test_a_stateful_set_creates_ordinal_pods_in_order_with_their_claims(kubectl: Kubectl) -> None:
    kubectl.run("create", "-f", "-", stdin=_manifest("web", 3))
    out = _rollout(kubectl, "web")
    assert "partitioned roll out complete: 3 new pods have been updated" in out
    sts = kubectl.json("sts", "web")
    status = sts["status"]
    assert status["replicas"] == status["readyReplicas"] == status["availableReplicas"] == 3
    assert status["currentReplicas"] == status["updatedReplicas"] == 3
    assert status["currentRevision"] == status["updateRevision"]
    assert status["collisionCount"] == 0
    assert status["observedGeneration"] == sts["metadata"]["generation"]

    pods = _pods(kubectl, "web")
    assert sorted(pods) == ["web-0", "web-1", "web-2"]
    for index, name in enumerate(sorted(pods)):
        labels = pods[name]["metadata"]["labels"]
        assert labels["statefulset.kubernetes.io/pod-name"] == name
        assert labels["apps.kubernetes.io/pod-index"] == str(index)
        assert labels["controller-revision-hash"] == status["updateRevision"]
        spec = pods[name]["spec"]
        assert spec["hostname"] == name and spec["subdomain"] == "web"
        volume = {v["name"]: v for v in spec["volumes"]}["data"]
        assert volume["persistentVolumeClaim"] == {"claimName": f"data-{name}"}

    claims = {c["metadata"]["name"]: c for c in kubectl.json("pvc")["items"]}
    assert sorted(claims) == ["data-web-0", "data-web-1", "data-web-2"]
    assert claims["data-web-0"]["metadata"]["labels"] == {"app": "web"}
    assert "ownerReferences" not in claims["data-web-0"]["metadata"]  # Retain by default

    revision = kubectl.json("controllerrevision", status["updateRevision"])
    assert revision["revision"] == 1
    assert revision["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    printed = kubectl.run("get", "controllerrevision", status["updateRevision"])
    assert printed.split("\n")[0].split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert printed.split("\n")[1].split()[1:3] == ["statefulset.apps/web", "1"]

    messages = [e["message"] for e in kubectl.events("StatefulSet", "web")]
    creates = [m for m in messages if m.startswith("create Pod")]
    assert creates == [f"create Pod web-{i} in StatefulSet web successful" for i in range(3)]
    assert "create Claim data-web-0 Pod web-0 in StatefulSet web success" in messages


def test_ordered_scale_down_removes_the_highest_ordinal_and_keeps_claims(kubectl: Kubectl) -> None:
    kubectl.run("create", "-f", "-", stdin=_manifest("db", 3))
    _rollout(kubectl, "db")
    kubectl.run("scale", "sts/db", "--replicas=1")
    kubectl.until(("sts", "db"), lambda s: s["status"]["replicas"] == 1)
    assert sorted(_pods(kubectl, "db")) == ["db-0"]
    messages = [e["message"] for e in kubectl.events("StatefulSet", "db")]
    deletes = [m for m in messages if m.startswith("delete Pod")]
    assert deletes == [
        "delete Pod db-2 in StatefulSet db successful",
        "delete Pod db-1 in StatefulSet db successful",
    ]
    claims = sorted(c["metadata"]["name"] for c in kubectl.json("pvc")["items"])
    assert claims == ["data-db-0", "data-db-1", "data-db-2"]


def test_when_scaled_delete_takes_the_condemned_claims_with_their_pods(kubectl: Kubectl) -> None:
    policy = {"whenDeleted": "Delete", "whenScaled": "Delete"}
    manifest = _manifest("cache", 2, persistentVolumeClaimRetentionPolicy=policy)
    kubectl.run("create", "-f", "-", stdin=manifest)
    _rollout(kubectl, "cache")
    sts = kubectl.json("sts", "cache")
    claim = kubectl.json("pvc", "data-cache-0")
    assert claim["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "name": "cache",
            "uid": sts["metadata"]["uid"],
            # 1.32 makes the owner the claim's controller (kubernetes#122499)
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    kubectl.run("scale", "sts/cache", "--replicas=1")
    kubectl.until(
        ("pvc",), lambda b: [c["metadata"]["name"] for c in b["items"]] == ["data-cache-0"]
    )
    kubectl.run("delete", "sts", "cache", "--wait=true")
    kubectl.until(("pvc",), lambda b: b["items"] == [])


def test_a_partitioned_rolling_update_replaces_only_ordinals_at_or_above_it(
    kubectl: Kubectl,
) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}
    kubectl.run("create", "-f", "-", stdin=_manifest("part", 3, updateStrategy=strategy))
    _rollout(kubectl, "part")
    first = kubectl.json("sts", "part")["status"]["updateRevision"]
    kubectl.run("set", "image", "sts/part", "main=nginx:1.27")
    _rollout(kubectl, "part")
    sts = kubectl.until(
        ("sts", "part"),
        lambda s: s["status"].get("updatedReplicas") == 2 and s["status"].get("readyReplicas") == 3,
    )
    status = sts["status"]
    assert status["currentRevision"] == first != status["updateRevision"]
    assert status["currentReplicas"] == 1
    pods = _pods(kubectl, "part")
    images = {n: p["spec"]["containers"][0]["image"] for n, p in pods.items()}
    assert images == {"part-0": "nginx:1.26", "part-1": "nginx:1.27", "part-2": "nginx:1.27"}
    assert pods["part-0"]["metadata"]["labels"]["controller-revision-hash"] == first

    kubectl.run(
        "patch", "sts/part", "-p", '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}'
    )
    done = kubectl.until(
        ("sts", "part"),
        lambda s: (
            s["status"].get("currentRevision") == s["status"]["updateRevision"]
            and s["status"].get("readyReplicas") == 3
        ),
    )
    assert done["status"]["currentReplicas"] == done["status"]["updatedReplicas"] == 3
    revisions = kubectl.json("controllerrevisions", "-l", "app=part")["items"]
    assert sorted(r["revision"] for r in revisions) == [1, 2]


def test_parallel_pods_do_not_wait_for_the_lower_ordinals_to_be_ready(kubectl: Kubectl) -> None:
    manifest = json.loads(_manifest("par", 3, podManagementPolicy="Parallel"))
    never_ready = {"kubeforge.dev/behavior": "never-ready"}
    manifest["spec"]["template"]["metadata"]["annotations"] = never_ready
    kubectl.run("create", "-f", "-", stdin=json.dumps(manifest))
    # under OrderedReady par-1 would wait forever for par-0 to become ready
    sts = kubectl.until(("sts", "par"), lambda s: s["status"].get("replicas") == 3)
    assert "readyReplicas" not in sts["status"]
    assert sts["status"]["availableReplicas"] == 0
    assert sorted(_pods(kubectl, "par")) == ["par-0", "par-1", "par-2"]
