"""A pod's life on a simulated kubelet through kubectl and the official client: init
containers in order (``Init:0/2`` ... ``PodInitializing``), sidecars that keep running,
startup probes, and a liveness probe that fails, kills and restarts the container, as
a 1.32 kubelet reports them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch

from .kf_kubectl import Kubectl, until

pytestmark = pytest.mark.kubectl


def _pod(name: str, spec: dict[str, Any], **annotations: str) -> str:
    meta: dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = {f"kubeforge.dev/{k}": v for k, v in annotations.items()}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def _c(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "busybox:1.36", **extra}


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    return next((c for c in obj["status"].get("conditions") or [] if c["type"] == kind), {})


def _created_and_watched(kubectl: Kubectl, name: str, manifest: str) -> list[str]:
    """Create the pod while ``kubectl get -w`` watches: the STATUS column of every state
    it went through until it ran."""
    kubectl.run("create", "-f", "-", stdin=_pod("marker", {"containers": [_c("main")]}))
    stream = kubectl.stream("get", "pods", "-w", "--no-headers")
    seen: list[str] = []
    try:
        while "marker" not in stream.next_line():
            pass  # the watch is listed and running before the pod exists
        kubectl.run("create", "-f", "-", stdin=manifest)
        while not seen or seen[-1] != "Running":
            row = stream.next_line().split()
            if row and row[0] == name:
                seen.append(row[2])
    finally:
        stream.close()
    return seen


def test_init_containers_run_one_by_one_before_the_app(kubectl: Kubectl) -> None:
    spec = {"initContainers": [_c("first"), _c("second")], "containers": [_c("main")]}
    seen = _created_and_watched(kubectl, "staged", _pod("staged", spec))
    assert [s for s in dict.fromkeys(seen) if s != "Pending"] == [
        "Init:0/2",
        "Init:1/2",
        "PodInitializing",
        "Running",
    ]
    pod = kubectl.until(("pod", "staged"), lambda p: _condition(p, "Ready").get("status") == "True")
    for status in pod["status"]["initContainerStatuses"]:
        assert status["ready"] is True and status["started"] is False
        terminated = status["state"]["terminated"]
        assert (terminated["reason"], terminated["exitCode"]) == ("Completed", 0)
        assert status["containerID"].startswith("containerd://")
    assert _condition(pod, "Initialized")["status"] == "True"
    started = [
        e["involvedObject"]["fieldPath"]
        for e in kubectl.events("Pod", "staged")
        if e["reason"] == "Started"
    ]
    assert started == [
        "spec.initContainers{first}",
        "spec.initContainers{second}",
        "spec.containers{main}",
    ]


def test_an_unfinished_init_container_says_why_in_initialized(kubectl: Kubectl) -> None:
    spec = {"initContainers": [_c("fetch")], "containers": [_c("main")]}
    kubectl.run("create", "-f", "-", stdin=_pod("stuck", spec, behavior="image-pull-backoff"))
    pod = kubectl.until(
        ("pod", "stuck"),
        lambda p: "ImagePullBackOff" in json.dumps(p["status"].get("initContainerStatuses") or []),
    )
    assert _condition(pod, "Initialized") | {"lastTransitionTime": ""} == {
        "type": "Initialized",
        "status": "False",
        "reason": "ContainersNotInitialized",
        "message": "containers with incomplete status: [fetch]",
        "lastProbeTime": None,
        "lastTransitionTime": "",
    }
    (main,) = pod["status"]["containerStatuses"]
    assert main["state"] == {"waiting": {"reason": "PodInitializing"}}
    row = kubectl.run("get", "pod", "stuck", "--no-headers").split()
    assert row[1:3] == ["0/1", "Init:ImagePullBackOff"]


def test_a_sidecar_keeps_running_beside_the_app(kubectl: Kubectl) -> None:
    sidecar = _c("proxy", restartPolicy="Always")
    spec = {"initContainers": [sidecar, _c("setup")], "containers": [_c("main")]}
    kubectl.run("create", "-f", "-", stdin=_pod("meshed", spec))
    pod = kubectl.until(("pod", "meshed"), lambda p: _condition(p, "Ready").get("status") == "True")
    proxy, setup = pod["status"]["initContainerStatuses"]
    assert proxy["name"] == "proxy" and "running" in proxy["state"]
    assert proxy["started"] is True and proxy["ready"] is True
    assert setup["state"]["terminated"]["reason"] == "Completed"
    row = kubectl.run("get", "pod", "meshed", "--no-headers").split()
    assert row[1:3] == ["2/2", "Running"]
    started = [
        e["involvedObject"]["fieldPath"]
        for e in kubectl.events("Pod", "meshed")
        if e["reason"] == "Started"
    ]
    assert started.index("spec.initContainers{proxy}") < started.index("spec.initContainers{setup}")


def test_a_startup_probe_holds_started_and_ready(api_client: Any, namespace: str) -> None:
    core = k8s.CoreV1Api(api_client)
    probe = k8s.V1Probe(_exec=k8s.V1ExecAction(command=["true"]), initial_delay_seconds=1)
    body = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="slow"),
        spec=k8s.V1PodSpec(
            containers=[k8s.V1Container(name="main", image="nginx", startup_probe=probe)]
        ),
    )
    core.create_namespaced_pod(namespace, body)
    seen = []
    stream = k8s_watch.Watch().stream(
        core.list_namespaced_pod,
        namespace,
        field_selector="metadata.name=slow",
        timeout_seconds=60,
    )
    for event in stream:
        (status,) = event["object"].status.container_statuses or [None]
        if status is None:
            continue
        seen.append((status.state.running is not None, status.started, status.ready))
        if status.ready:
            break
    assert (True, False, False) in seen  # running, not started before the startup probe
    assert seen[-1] == (True, True, True)


def test_a_failing_liveness_probe_kills_and_restarts_the_container(
    kubectl: Kubectl, core_v1: Any, namespace: str
) -> None:
    probe = {"httpGet": {"path": "/healthz", "port": 8080}, "failureThreshold": 2}
    spec = {"containers": [_c("main", livenessProbe=probe), _c("helper")]}
    kubectl.run("create", "-f", "-", stdin=_pod("sick", spec, **{"liveness-fails-after": "0.2"}))
    pod = until(
        lambda: core_v1.read_namespaced_pod("sick", namespace),
        lambda p: (
            bool(p.status.container_statuses) and p.status.container_statuses[0].restart_count >= 2
        ),
    )
    main, helper = pod.status.container_statuses
    assert main.last_state.terminated.exit_code == 137
    assert main.last_state.terminated.reason == "Error"
    assert helper.restart_count == 0  # only the container whose probe failed restarts
    recorded = kubectl.events("Pod", "sick")
    events = [(e["type"], e["reason"], e["message"]) for e in recorded]
    # failureThreshold failures a kill, folded into one Event's count as the recorder does
    (counted,) = [e["count"] for e in recorded if e["reason"] == "Unhealthy"]
    assert counted >= 2 * 2
    unhealthy = (
        "Warning",
        "Unhealthy",
        "Liveness probe failed: HTTP probe failed with statuscode: 500",
    )
    killing = (
        "Normal",
        "Killing",
        "Container main failed liveness probe, will be restarted",
    )
    assert unhealthy in events and killing in events
    assert events.index(unhealthy) < events.index(killing)
    restarted = kubectl.until(
        ("pod", "sick"),
        lambda p: "waiting" in p["status"]["containerStatuses"][0]["state"],
    )
    waiting = restarted["status"]["containerStatuses"][0]["state"]["waiting"]
    assert waiting["reason"] == "CrashLoopBackOff"


def test_a_failing_init_container_fails_or_crash_loops_the_pod(kubectl: Kubectl) -> None:
    spec = {"initContainers": [_c("migrate")], "containers": [_c("main")]}
    never = {**spec, "restartPolicy": "Never"}
    kubectl.run("create", "-f", "-", stdin=_pod("once", never, **{"init-exit-code": "2"}))
    failed = kubectl.until(("pod", "once"), lambda p: p["status"].get("phase") == "Failed")
    (migrate,) = failed["status"]["initContainerStatuses"]
    assert (migrate["state"]["terminated"]["exitCode"], migrate["ready"]) == (2, False)
    assert _condition(failed, "Initialized")["reason"] == "ContainersNotInitialized"
    assert _condition(failed, "Ready")["reason"] == "PodFailed"
    assert kubectl.run("get", "pod", "once", "--no-headers").split()[2] == "Init:Error"
    kubectl.run("create", "-f", "-", stdin=_pod("again", spec, **{"init-exit-code": "1"}))
    looping = kubectl.until(
        ("pod", "again"),
        lambda p: "CrashLoopBackOff" in json.dumps(p["status"].get("initContainerStatuses") or []),
    )
    (migrate,) = looping["status"]["initContainerStatuses"]
    assert migrate["restartCount"] >= 1
    assert migrate["lastState"]["terminated"]["exitCode"] == 1
    assert looping["status"]["phase"] == "Pending"
    (main,) = looping["status"]["containerStatuses"]
    assert main["state"] == {"waiting": {"reason": "PodInitializing"}}
    until(
        lambda: kubectl.run("get", "pod", "again", "--no-headers").split()[2],
        lambda status: status == "Init:CrashLoopBackOff",
    )
