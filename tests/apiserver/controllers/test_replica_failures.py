"""A pod create the server refuses: the ReplicaSet's FailedCreate event (counted as it
repeats) and ReplicaFailure condition, copied onto its Deployment, both gone once the
creates succeed (1.32's ``replica_set.go`` / ``progress.go``); Jobs and DaemonSets record
and retry the same way; the slow-start batches of ``slowStartBatch``."""

from __future__ import annotations

from typing import Any

import pytest
from kf_http import Api
from kf_plane import condition, events_for, until

from kubeforge.apiserver.controllers.podcontrol import slow_start
from kubeforge.apiserver.failures import StatusError


def _deployment(name: str, account: str) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": account,
                    "containers": [{"name": "main", "image": "nginx"}],
                },
            },
        },
    }


async def test_a_refused_pod_create_is_a_replica_failure_until_it_succeeds(
    api: Api, namespace: str
) -> None:
    deployments = f"/apis/apps/v1/namespaces/{namespace}/deployments"
    await api.post(deployments, _deployment("lonely", "robot"))
    failing = await until(
        api, f"{deployments}/lonely", lambda d: bool(condition(d, "ReplicaFailure"))
    )
    sets = (await api.get(f"/apis/apps/v1/namespaces/{namespace}/replicasets")).body["items"]
    (rs,) = sets
    name = rs["metadata"]["name"]
    rs_failure = condition(rs, "ReplicaFailure")
    refused = rs_failure["message"]  # the ServiceAccount admission plugin's refusal
    assert refused == (  # named by the generateName: the name comes after mutating admission
        f'pods "{name}-" is forbidden: error looking up service account {namespace}/robot: '
        'serviceaccount "robot" not found'
    )
    assert (rs_failure["status"], rs_failure["reason"]) == ("True", "FailedCreate")
    assert set(rs_failure) == {"type", "status", "lastTransitionTime", "reason", "message"}
    copied = condition(failing, "ReplicaFailure")
    assert (copied["reason"], copied["message"]) == ("FailedCreate", refused)
    assert (
        copied["lastUpdateTime"] == copied["lastTransitionTime"] == rs_failure["lastTransitionTime"]
    )
    # each retry refuses again: the same Event is counted, as client-go's correlator does
    await until(
        api,
        f"/api/v1/namespaces/{namespace}/events",
        lambda e: any(i["reason"] == "FailedCreate" and i["count"] > 1 for i in e["items"]),
        fieldSelector=f"involvedObject.name={name}",
    )
    events = [e for e in await events_for(api, namespace, name) if e["reason"] == "FailedCreate"]
    assert len(events) == 1 and events[0]["type"] == "Warning"
    assert events[0]["message"] == f"Error creating: {refused}"
    assert events[0]["source"] == {"component": "replicaset-controller"}
    assert events[0]["lastTimestamp"] >= events[0]["firstTimestamp"]

    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}
    await api.post(f"/api/v1/namespaces/{namespace}/serviceaccounts", account)
    healed = await until(
        api,
        f"{deployments}/lonely",
        lambda d: d["status"].get("availableReplicas") == 3 and not condition(d, "ReplicaFailure"),
    )
    assert condition(healed, "Available")["status"] == "True"
    rs = await until(
        api,
        f"/apis/apps/v1/namespaces/{namespace}/replicasets/{name}",
        lambda r: "conditions" not in r["status"],
    )
    created = [
        e for e in await events_for(api, namespace, name) if e["reason"] == "SuccessfulCreate"
    ]
    assert len(created) == 3


class _Refusing:
    """A create that succeeds ``allowed`` times, then is refused."""

    def __init__(self, allowed: int) -> None:
        self.allowed = allowed
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.calls > self.allowed:
            raise StatusError({"code": 403, "message": "exceeded quota"})


@pytest.mark.parametrize(
    ("count", "allowed", "calls", "successes"),
    [
        (5, 100, 5, 5),  # batches 1, 2, 2
        (10, 0, 1, 0),  # the first batch of one is refused: nothing more is tried
        (10, 2, 3, 2),  # 1 ok; then 1 ok and 1 refused in the batch of two
        (10, 4, 7, 4),  # 1, 2 ok; the batch of four runs whole with one success
    ],
)
async def test_slow_start_stops_after_the_first_batch_with_a_refusal(
    count: int, allowed: int, calls: int, successes: int
) -> None:
    create = _Refusing(allowed)
    done, refusal = await slow_start(count, create)
    assert (create.calls, done) == (calls, successes)
    assert (refusal is None) == (successes == count)


def _template(account: str) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "refused"}},
        "spec": {
            "serviceAccountName": account,
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox:1.36"}],
        },
    }


@pytest.mark.parametrize(
    ("path", "kind", "spec", "done"),
    [
        (
            "/apis/batch/v1/namespaces/{ns}/jobs",
            "Job",
            {},
            lambda o: o["status"].get("succeeded") == 1,
        ),
        (
            "/apis/apps/v1/namespaces/{ns}/daemonsets",
            "DaemonSet",
            {"selector": {"matchLabels": {"app": "refused"}}},
            lambda o: o["status"].get("numberReady") == 1,
        ),
    ],
)
async def test_jobs_and_daemon_sets_record_a_refused_create_and_try_again(
    api: Api, namespace: str, path: str, kind: str, spec: dict[str, Any], done: Any
) -> None:
    collection = path.format(ns=namespace)
    template = _template("later")
    if kind == "DaemonSet":
        template["spec"]["restartPolicy"] = "Always"
    body = {"kind": kind, "metadata": {"name": "refused"}, "spec": {**spec, "template": template}}
    body["apiVersion"] = "batch/v1" if kind == "Job" else "apps/v1"
    await api.post(collection, body)
    await until(
        api,
        f"/api/v1/namespaces/{namespace}/events",
        lambda e: any(i["reason"] == "FailedCreate" for i in e["items"]),
        fieldSelector="involvedObject.name=refused",
    )
    events = await events_for(api, namespace, "refused")
    failed = next(e for e in events if e["reason"] == "FailedCreate")
    assert failed["type"] == "Warning"
    assert failed["message"].startswith("Error creating: pods ")
    assert failed["message"].endswith(f'{namespace}/later: serviceaccount "later" not found')
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "later"}}
    await api.post(f"/api/v1/namespaces/{namespace}/serviceaccounts", account)
    await until(api, f"{collection}/refused", done)
