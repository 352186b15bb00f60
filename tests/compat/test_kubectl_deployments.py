"""Deployments and ReplicaSets through the real kubectl: what a 1.32 cluster shows.

``create deployment``, ``rollout status/history/undo/pause/resume``, ``set image``,
``scale``; the controllers' status fields, annotations, labels and Events.
"""

from __future__ import annotations

from typing import Any

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _sets(kubectl: Kubectl, app: str) -> list[dict[str, Any]]:
    """The app's ReplicaSets, oldest template first: ordered by their first revision (the
    one before any rollback), since creation times have only seconds."""
    items: list[dict[str, Any]] = kubectl.json("rs", "-l", f"app={app}")["items"]

    def first_revision(rs: dict[str, Any]) -> int:
        notes = rs["metadata"].get("annotations") or {}
        history = notes.get("deployment.kubernetes.io/revision-history", "")
        return int(history.split(",")[0] or notes["deployment.kubernetes.io/revision"])

    return sorted(items, key=first_revision)


def _conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in obj["status"].get("conditions") or []}


def _rollout(kubectl: Kubectl, name: str) -> str:
    return kubectl.run("rollout", "status", f"deployment/{name}", "--timeout=60s")


def test_create_deployment_reaches_three_available_as_a_cluster_shows_it(
    kubectl: Kubectl,
) -> None:
    kubectl.run("create", "deployment", "web", "--image=nginx", "--replicas=3")
    *waiting, done = _rollout(kubectl, "web").splitlines()
    # kubectl prints a line per status it saw before the rollout finished: how many
    # depends on timing, on a real cluster too.
    assert all(line.startswith('Waiting for deployment "web" rollout') for line in waiting)
    assert done == 'deployment "web" successfully rolled out'
    deployment = kubectl.json("deployment", "web")
    status = deployment["status"]
    assert {k: status.get(k) for k in ("replicas", "updatedReplicas", "readyReplicas")} == {
        "replicas": 3,
        "updatedReplicas": 3,
        "readyReplicas": 3,
    }
    assert status["availableReplicas"] == 3
    assert "unavailableReplicas" not in status
    assert status["observedGeneration"] == deployment["metadata"]["generation"]
    (rs,) = _sets(kubectl, "web")
    pod_hash = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{pod_hash}"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": pod_hash}
    assert rs["metadata"]["annotations"] == {
        "deployment.kubernetes.io/desired-replicas": "3",
        "deployment.kubernetes.io/max-replicas": "4",
        "deployment.kubernetes.io/revision": "1",
    }
    assert rs["metadata"]["ownerReferences"][0]["kind"] == "Deployment"
    assert rs["status"] == {
        "replicas": 3,
        "fullyLabeledReplicas": 3,
        "readyReplicas": 3,
        "availableReplicas": 3,
        "observedGeneration": 1,
    }
    assert deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    conditions = _conditions(deployment)
    assert (conditions["Available"]["reason"], conditions["Available"]["message"]) == (
        "MinimumReplicasAvailable",
        "Deployment has minimum availability.",
    )
    assert conditions["Progressing"]["reason"] == "NewReplicaSetAvailable"
    assert conditions["Progressing"]["message"] == (
        f'ReplicaSet "web-{pod_hash}" has successfully progressed.'
    )
    pods = kubectl.json("pods", "-l", f"pod-template-hash={pod_hash}")["items"]
    assert len(pods) == 3
    assert all(p["metadata"]["name"].startswith(f"web-{pod_hash}-") for p in pods)
    (scaled,) = kubectl.events("Deployment", "web")
    assert (scaled["reason"], scaled["message"]) == (
        "ScalingReplicaSet",
        f"Scaled up replica set web-{pod_hash} from 0 to 3",
    )
    created = [e["message"] for e in kubectl.events("ReplicaSet", f"web-{pod_hash}")]
    assert sorted(created) == sorted(f"Created pod: {p['metadata']['name']}" for p in pods)
    table = kubectl.run("get", "deployment", "web")
    assert "3/3" in table.splitlines()[1]


def _sizes_stay_within_bounds(events: list[dict[str, Any]], replicas: int, surge: int) -> None:
    """Replay ``Scaled ... from a to b``: the sets' sizes never pass replicas+surge, and
    (maxUnavailable being 0 here) never drop below the replica count."""
    sizes: dict[str, int] = {}
    for event in events:
        words = event["message"].split()
        name, before, after = words[4], int(words[6]), int(words[8])
        assert sizes.get(name, 0) == before, event["message"]
        sizes[name] = after
        assert sum(sizes.values()) <= replicas + surge, event["message"]
        if len(sizes) > 1:
            assert sum(sizes.values()) >= replicas, event["message"]


def test_set_image_rolls_out_a_new_replica_set_within_surge_and_unavailable(
    kubectl: Kubectl,
) -> None:
    kubectl.run("create", "deployment", "roll", "--image=nginx:1.26", "--replicas=3")
    _rollout(kubectl, "roll")
    kubectl.run("set", "image", "deployment/roll", "nginx=nginx:1.27")
    _rollout(kubectl, "roll")
    old, new = _sets(kubectl, "roll")
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 3)
    assert new["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    assert new["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    _sizes_stay_within_bounds(kubectl.events("Deployment", "roll"), replicas=3, surge=1)
    images = {
        p["spec"]["containers"][0]["image"]
        for p in kubectl.until(
            ("pods", "-l", "app=roll"),
            lambda b: len(b["items"]) == 3,
        )["items"]
    }
    assert images == {"nginx:1.27"}


def test_rollout_history_and_undo_bring_an_old_replica_set_back_as_a_new_revision(
    kubectl: Kubectl,
) -> None:
    kubectl.run("create", "deployment", "undo", "--image=nginx:1.26", "--replicas=2")
    _rollout(kubectl, "undo")
    kubectl.run("set", "image", "deployment/undo", "nginx=nginx:1.27")
    _rollout(kubectl, "undo")
    # As the Kubernetes docs do it: the cause goes on the Deployment after the change,
    # and the controller copies it onto the current revision's ReplicaSet.
    kubectl.run("annotate", "deployment/undo", "kubernetes.io/change-cause=to 1.27")
    kubectl.until(
        ("rs", "-l", "app=undo"),
        lambda b: any(
            (rs["metadata"].get("annotations") or {}).get("kubernetes.io/change-cause")
            for rs in b["items"]
        ),
    )
    history = kubectl.run("rollout", "history", "deployment/undo")
    rows = [line.split(None, 1) for line in history.splitlines()[2:] if line.strip()]
    assert rows == [["1", "<none>"], ["2", "to 1.27"]]
    assert kubectl.run("rollout", "undo", "deployment/undo").strip() == (
        "deployment.apps/undo rolled back"
    )
    _rollout(kubectl, "undo")
    first, second = _sets(kubectl, "undo")
    assert first["spec"]["replicas"] == 2 and second["spec"]["replicas"] == 0
    notes = first["metadata"]["annotations"]
    assert notes["deployment.kubernetes.io/revision"] == "3"
    assert notes["deployment.kubernetes.io/revision-history"] == "1"
    deployment = kubectl.json("deployment", "undo")
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"


def test_pause_holds_a_template_change_until_resume(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "held", "--image=nginx:1.26", "--replicas=2")
    _rollout(kubectl, "held")
    kubectl.run("rollout", "pause", "deployment/held")
    kubectl.run("set", "image", "deployment/held", "nginx=nginx:1.27")
    paused = kubectl.until(
        ("deployment", "held"),
        lambda d: (
            d["status"].get("observedGeneration") == d["metadata"]["generation"]
            and _conditions(d)["Progressing"]["reason"] == "DeploymentPaused"
        ),
    )
    progressing = _conditions(paused)["Progressing"]
    assert (progressing["status"], progressing["message"]) == ("Unknown", "Deployment is paused")
    assert len(_sets(kubectl, "held")) == 1  # seen the change, started nothing
    kubectl.run("rollout", "resume", "deployment/held")
    _rollout(kubectl, "held")
    assert [rs["spec"]["replicas"] for rs in _sets(kubectl, "held")] == [0, 2]


def test_scale_adds_and_removes_pods_with_the_replica_set_events(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "sized", "--image=nginx", "--replicas=1")
    _rollout(kubectl, "sized")
    kubectl.run("scale", "deployment/sized", "--replicas=4")
    _rollout(kubectl, "sized")
    assert kubectl.json("deployment", "sized")["status"]["availableReplicas"] == 4
    kubectl.run("scale", "deployment/sized", "--replicas=2")
    kubectl.until(("pods", "-l", "app=sized"), lambda b: len(b["items"]) == 2)
    (rs,) = _sets(kubectl, "sized")
    reasons = [e["reason"] for e in kubectl.events("ReplicaSet", rs["metadata"]["name"])]
    assert reasons.count("SuccessfulCreate") == 4
    assert reasons.count("SuccessfulDelete") == 2
    messages = [e["message"] for e in kubectl.events("Deployment", "sized")]
    assert messages[-2:] == [
        f"Scaled up replica set {rs['metadata']['name']} from 1 to 4",
        f"Scaled down replica set {rs['metadata']['name']} from 4 to 2",
    ]


RECREATE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: again}
spec:
  replicas: 2
  strategy: {type: Recreate}
  selector: {matchLabels: {app: again}}
  template:
    metadata: {labels: {app: again}}
    spec: {containers: [{name: main, image: "nginx:IMAGE"}]}
"""


def test_recreate_stops_every_old_pod_before_starting_new_ones(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=RECREATE.replace("IMAGE", "1.26"))
    _rollout(kubectl, "again")
    kubectl.run("apply", "-f", "-", stdin=RECREATE.replace("IMAGE", "1.27"))
    _rollout(kubectl, "again")
    old, new = _sets(kubectl, "again")
    messages = [e["message"] for e in kubectl.events("Deployment", "again")]
    assert messages == [
        f"Scaled up replica set {old['metadata']['name']} from 0 to 2",
        f"Scaled down replica set {old['metadata']['name']} from 2 to 0",
        f"Scaled up replica set {new['metadata']['name']} from 0 to 2",
    ]


STUCK = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck}
spec:
  replicas: 1
  progressDeadlineSeconds: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata:
      labels: {app: stuck}
      annotations: {kubeforge.dev/behavior: image-pull-backoff}
    spec: {containers: [{name: main, image: "nginx:no-such-tag"}]}
"""


def test_a_rollout_that_cannot_progress_exceeds_its_deadline(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=STUCK)
    error = kubectl.fails("rollout", "status", "deployment/stuck", "--timeout=60s")
    assert error.strip() == 'error: deployment "stuck" exceeded its progress deadline'
    progressing = _conditions(kubectl.json("deployment", "stuck"))["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert progressing["message"].endswith("has timed out progressing.")
    available = _conditions(kubectl.json("deployment", "stuck"))["Available"]
    assert available["reason"] == "MinimumReplicasUnavailable"
