"""``kubeforge.dev/`` annotations choose what a simulated pod does; statuses say it as a kubelet."""

from __future__ import annotations

from typing import Any

from kf_http import Api, pod
from kf_plane import condition, events_for, until


def _annotated(name: str, restart: str = "Always", **annotations: str) -> dict[str, Any]:
    body = pod(name)
    body["metadata"]["annotations"] = {f"kubeforge.dev/{k}": v for k, v in annotations.items()}
    body["spec"]["restartPolicy"] = restart
    return body


def _container(obj: dict[str, Any]) -> dict[str, Any]:
    statuses = (obj.get("status") or {}).get("containerStatuses") or [{}]
    return dict(statuses[0])


async def test_exit_after_with_a_code_fails_a_never_restarting_pod(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, _annotated("quits", "Never", **{"exit-after": "0.1", "exit-code": "3"}))
    done = await until(api, f"{path}/quits", lambda p: p["status"].get("phase") == "Failed")
    terminated = _container(done)["state"]["terminated"]
    assert terminated["exitCode"] == 3
    assert terminated["reason"] == "Error"
    # generateContainersReadyConditionForTerminalPhase: a Failed pod is PodFailed.
    assert condition(done, "Ready")["reason"] == "PodFailed"


async def test_exit_zero_succeeds(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, _annotated("done", "OnFailure", **{"exit-after": "0"}))
    done = await until(api, f"{path}/done", lambda p: p["status"].get("phase") == "Succeeded")
    assert _container(done)["state"]["terminated"]["reason"] == "Completed"


async def test_crash_loop_restarts_with_crash_loop_back_off(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, _annotated("crashy", behavior="crash-loop"))
    backing_off = await until(
        api,
        f"{path}/crashy",
        lambda p: (
            _container(p).get("restartCount", 0) >= 2
            and "waiting" in _container(p).get("state", {})
        ),
    )
    container = _container(backing_off)
    assert container["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert container["state"]["waiting"]["message"].startswith("back-off ")
    assert container["lastState"]["terminated"]["exitCode"] == 1
    assert backing_off["status"]["phase"] == "Running"
    assert condition(backing_off, "Ready")["status"] == "False"
    reasons = [e["reason"] for e in await events_for(api, namespace, "crashy")]
    assert "BackOff" in reasons


async def test_never_ready_runs_without_readiness(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, _annotated("shy", behavior="never-ready"))
    running = await until(api, f"{path}/shy", lambda p: p["status"].get("phase") == "Running")
    assert condition(running, "Ready") == {
        **condition(running, "Ready"),
        "status": "False",
        "reason": "ContainersNotReady",
        "message": "containers with unready status: [main]",
    }
    assert _container(running)["started"] is True


async def test_oom_killed(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, _annotated("greedy", "Never", behavior="oom-killed"))
    done = await until(api, f"{path}/greedy", lambda p: p["status"].get("phase") == "Failed")
    terminated = _container(done)["state"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == ("OOMKilled", 137)


async def test_image_pull_back_off(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, _annotated("nopull", behavior="image-pull-backoff"))
    stuck = await until(
        api,
        f"{path}/nopull",
        lambda p: (
            "waiting" in _container(p).get("state", {})
            and _container(p)["state"]["waiting"]["reason"] != "ContainerCreating"
        ),
    )
    waiting = _container(stuck)["state"]["waiting"]
    assert waiting == {
        "reason": "ImagePullBackOff",
        "message": 'Back-off pulling image "nginx:1.27"',
    }
    assert stuck["status"]["phase"] == "Pending"
    messages = [e["message"] for e in await events_for(api, namespace, "nopull")]
    assert "Error: ErrImagePull" in messages
    assert 'Back-off pulling image "nginx:1.27"' in messages


async def test_a_readiness_probe_delays_ready(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    body = pod("probed")
    body["spec"]["containers"][0]["readinessProbe"] = {
        "exec": {"command": ["true"]},
        "initialDelaySeconds": 1,
    }
    await api.post(path, body)
    seen = []  # every state the pod went through, from the watch
    async for event in api.watch(path, resourceVersion=start, timeoutSeconds="30"):
        obj = event["object"]
        seen.append((obj["status"].get("phase"), _container(obj).get("ready")))
        if condition(obj, "Ready").get("status") == "True":
            break
    assert ("Running", False) in seen  # running, not ready before initialDelaySeconds
    assert seen[-1] == ("Running", True)
