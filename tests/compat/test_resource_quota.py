"""ResourceQuota as kubectl and the official client see it on a 1.32 cluster:
``kubectl create quota`` / ``describe quota`` / ``get quota`` show what the
resourcequota controller counted, and creates over a quota are refused with the
ResourceQuota admission plugin's 403 (a typed ``ApiException`` from the client, one line
from kubectl, a ``FailedCreate`` event from a ReplicaSet)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = [pytest.mark.kubectl, pytest.mark.live]


def _pod(name: str, requests: dict[str, str] | None = None) -> str:
    container: dict[str, Any] = {"name": "app", "image": "nginx"}
    if requests is not None:
        container["resources"] = {"requests": requests}
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}}
    return json.dumps({**body, "spec": {"containers": [container]}})


def _counted(kubectl: Kubectl, name: str) -> dict[str, Any]:
    counted: dict[str, Any] = kubectl.until(
        ("quota", name), lambda q: "used" in (q.get("status") or {})
    )
    return counted


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_create_describe_and_get_quota(kubectl: Kubectl) -> None:
    hard = "--hard=pods=2,requests.cpu=1,requests.memory=1Gi,count/secrets=5"
    assert kubectl.run("create", "quota", "compute", hard).strip() == (
        "resourcequota/compute created"
    )
    kubectl.run("create", "-f", "-", stdin=_pod("web", {"cpu": "250m", "memory": "256Mi"}))
    kubectl.until(("quota", "compute"), lambda q: q["status"]["used"].get("pods") == "1")
    described = _rows(kubectl.run("describe", "quota", "compute"))
    assert ["Name:", "compute"] in described
    assert ["Namespace:", kubectl.namespace] in described
    table = described[described.index(["Resource", "Used", "Hard"]) :]
    assert table[1:] == [
        ["--------", "----", "----"],
        ["count/secrets", "0", "5"],
        ["pods", "1", "2"],
        ["requests.cpu", "250m", "1"],
        ["requests.memory", "256Mi", "1Gi"],
    ]
    listed = _rows(kubectl.run("get", "quota"))
    assert listed[0] == ["NAME", "REQUEST", "LIMIT", "AGE"]
    assert listed[1][:9] == [
        "compute",
        "count/secrets:",
        "0/5,",
        "pods:",
        "1/2,",
        "requests.cpu:",
        "250m/1,",
        "requests.memory:",
        "256Mi/1Gi",
    ]


def test_kubectl_reports_the_refusal_in_the_plugins_words(kubectl: Kubectl) -> None:
    kubectl.run("create", "quota", "small", "--hard=pods=1,requests.cpu=500m")
    _counted(kubectl, "small")
    error = kubectl.fails("run", "bare", "--image=nginx")
    assert error.strip() == (
        'Error from server (Forbidden): pods "bare" is forbidden: failed quota: small: '
        "must specify requests.cpu for: bare"
    )
    kubectl.run("create", "-f", "-", stdin=_pod("first", {"cpu": "400m"}))
    error = kubectl.fails("create", "-f", "-", stdin=_pod("second", {"cpu": "200m"}))
    assert error.strip() == (
        'Error from server (Forbidden): error when creating "STDIN": pods "second" is '
        "forbidden: exceeded quota: small, requested: pods=1,requests.cpu=200m, "
        "used: pods=1,requests.cpu=400m, limited: pods=1,requests.cpu=500m"
    )


def test_the_official_client_raises_a_typed_403(kubectl: Kubectl, core_v1: Any) -> None:
    quota = k8s.V1ResourceQuota(
        metadata=k8s.V1ObjectMeta(name="claims"),
        spec=k8s.V1ResourceQuotaSpec(hard={"requests.storage": "1Gi"}),
    )
    core_v1.create_namespaced_resource_quota(kubectl.namespace, quota)
    _counted(kubectl, "claims")
    claim = k8s.V1PersistentVolumeClaim(
        metadata=k8s.V1ObjectMeta(name="data"),
        spec=k8s.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteOnce"],
            resources=k8s.V1VolumeResourceRequirements(requests={"storage": "2Gi"}),
        ),
    )
    with pytest.raises(ApiException) as caught:
        core_v1.create_namespaced_persistent_volume_claim(kubectl.namespace, claim)
    assert caught.value.status == 403
    body = json.loads(caught.value.body)
    assert body["reason"] == "Forbidden"
    assert body["message"] == (
        'persistentvolumeclaims "data" is forbidden: exceeded quota: claims, requested: '
        "requests.storage=2Gi, used: requests.storage=0, limited: requests.storage=1Gi"
    )
    read = core_v1.read_namespaced_resource_quota("claims", kubectl.namespace)
    assert read.status.hard == {"requests.storage": "1Gi"}
    assert read.status.used == {"requests.storage": "0"}


def test_a_replica_set_past_its_quota_reports_failed_creates(kubectl: Kubectl) -> None:
    kubectl.run("create", "quota", "two", "--hard=pods=2")
    _counted(kubectl, "two")
    kubectl.run("create", "deployment", "web", "--image=nginx", "--replicas=3")
    replica_sets = kubectl.until(
        ("rs", "-l", "app=web"),
        lambda rs: rs["items"] and (rs["items"][0].get("status") or {}).get("conditions"),
    )
    (replica_set,) = replica_sets["items"]
    (failure,) = replica_set["status"]["conditions"]
    assert (failure["type"], failure["status"], failure["reason"]) == (
        "ReplicaFailure",
        "True",
        "FailedCreate",
    )
    assert (
        "is forbidden: exceeded quota: two, requested: pods=1, used: pods=2" in (failure["message"])
    )
    events = kubectl.events("ReplicaSet", replica_set["metadata"]["name"])
    refused = [e for e in events if e["reason"] == "FailedCreate"]
    assert refused[0]["type"] == "Warning"
    assert refused[0]["message"].startswith('Error creating: pods "web-')
    assert refused[0]["message"].endswith(
        "is forbidden: exceeded quota: two, requested: pods=1, used: pods=2, limited: pods=2"
    )
    kubectl.run("patch", "quota", "two", "-p", '{"spec":{"hard":{"pods":"3"}}}')
    kubectl.until(
        ("rs", replica_set["metadata"]["name"]),
        lambda rs: rs["status"].get("replicas") == 3 and "conditions" not in rs["status"],
    )


def test_a_scoped_quota_counts_only_the_pods_in_its_scope(kubectl: Kubectl) -> None:
    kubectl.run("create", "quota", "besteffort", "--hard=pods=1", "--scopes=BestEffort")
    _counted(kubectl, "besteffort")
    kubectl.run("run", "free", "--image=nginx")
    kubectl.run("create", "-f", "-", stdin=_pod("sized", {"cpu": "100m"}))
    error = kubectl.fails("run", "another", "--image=nginx")
    assert error.strip() == (
        'Error from server (Forbidden): pods "another" is forbidden: exceeded quota: '
        "besteffort, requested: pods=1, used: pods=1, limited: pods=1"
    )
    described = _rows(kubectl.run("describe", "quota", "besteffort"))
    assert ["Scopes:", "BestEffort"] in described
    assert described[-1] == ["pods", "1", "1"]


def test_kubectl_create_quota_with_a_scope_that_does_not_fit(kubectl: Kubectl) -> None:
    error = kubectl.fails("create", "quota", "bad", "--hard=cpu=1", "--scopes=BestEffort")
    assert error.strip() == (
        'error: failed to create quota: ResourceQuota "bad" is invalid: spec.scopes: Invalid '
        'value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource'
    )


def test_pods_get_the_qos_class_quota_scopes_go_by(kubectl: Kubectl) -> None:
    capped = json.loads(_pod("capped"))
    capped["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1", "memory": "64Mi"}}
    kubectl.run("create", "-f", "-", stdin=json.dumps(capped))
    kubectl.run("create", "-f", "-", stdin=_pod("asking", {"cpu": "100m"}))
    kubectl.run("create", "-f", "-", stdin=_pod("bare"))
    classes = {
        pod["metadata"]["name"]: pod["status"]["qosClass"] for pod in kubectl.json("pods")["items"]
    }
    assert classes == {"asking": "Burstable", "bare": "BestEffort", "capped": "Guaranteed"}
    requests = kubectl.json("pod", "capped")["spec"]["containers"][0]["resources"]["requests"]
    assert requests == {"cpu": "1", "memory": "64Mi"}  # defaulted from the limits
