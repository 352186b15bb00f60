"""``pods/eviction`` with PodDisruptionBudgets, as a 1.32 server answers it
(pkg/registry/core/pod/storage/eviction.go), driven by ``kubectl drain`` and the
official client; the disruption controller keeps the budgets' status."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl, until

pytestmark = pytest.mark.kubectl


def _json(kubectl: Kubectl, *args: str) -> Any:
    done = kubectl.complete("get", *args, "-o", "json")
    return json.loads(done.stdout) if done.returncode == 0 else None


def _apply(kubectl: Kubectl, manifest: dict[str, Any]) -> None:
    kubectl.complete("apply", "-f", "-", stdin=json.dumps(manifest)).check_returncode()


def _deployment(name: str, replicas: int) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }


def _budget(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": name}}, **spec},
    }


def _ready_pods(kubectl: Kubectl, name: str, count: int) -> list[dict[str, Any]]:
    def ready(listing: Any) -> bool:
        pods = [
            p
            for p in (listing or {}).get("items", [])
            if not p["metadata"].get("deletionTimestamp")
        ]
        return len(pods) == count and all(
            any(
                c["type"] == "Ready" and c["status"] == "True"
                for c in p["status"].get("conditions", [])
            )
            for p in pods
        )

    listing = until(lambda: _json(kubectl, "pods", "-l", f"app={name}"), ready)
    return [p for p in listing["items"] if not p["metadata"].get("deletionTimestamp")]


def _budget_status(kubectl: Kubectl, name: str, allowed: int) -> dict[str, Any]:
    def settled(budget: Any) -> bool:
        status = (budget or {}).get("status") or {}
        return status.get("observedGeneration") == budget["metadata"]["generation"] and (
            status.get("disruptionsAllowed") == allowed
        )

    budget: dict[str, Any] = until(lambda: _json(kubectl, "pdb", name), settled)
    return budget["status"]


def test_an_eviction_the_budget_forbids_is_429_with_its_cause(
    kubectl: Kubectl, api_client: Any
) -> None:
    _apply(kubectl, _deployment("guarded", 2))
    pods = _ready_pods(kubectl, "guarded", 2)
    _apply(kubectl, _budget("guarded", minAvailable=2))
    status = _budget_status(kubectl, "guarded", 0)
    assert (status["currentHealthy"], status["desiredHealthy"], status["expectedPods"]) == (2, 2, 2)
    assert status["conditions"][0]["reason"] == "InsufficientPods"
    name = pods[0]["metadata"]["name"]
    eviction = k8s.V1Eviction(metadata=k8s.V1ObjectMeta(name=name, namespace=kubectl.namespace))
    with pytest.raises(ApiException) as caught:
        k8s.CoreV1Api(api_client).create_namespaced_pod_eviction(name, kubectl.namespace, eviction)
    assert caught.value.status == 429
    body = json.loads(caught.value.body)
    assert body["reason"] == "TooManyRequests"
    assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert body["details"]["causes"] == [
        {
            "reason": "DisruptionBudget",
            "message": "The disruption budget guarded needs 2 healthy pods and has 2 currently",
        }
    ]


def test_an_allowed_eviction_marks_the_pod_before_deleting_it(
    kubectl: Kubectl, api_client: Any
) -> None:
    _apply(kubectl, _deployment("spare", 2))
    pods = _ready_pods(kubectl, "spare", 2)
    _apply(kubectl, _budget("spare", minAvailable=1))
    _budget_status(kubectl, "spare", 1)
    name = pods[0]["metadata"]["name"]
    core = k8s.CoreV1Api(api_client)
    patch = {"metadata": {"finalizers": ["example.com/hold"]}}
    core.patch_namespaced_pod(name, kubectl.namespace, patch)
    eviction = k8s.V1Eviction(metadata=k8s.V1ObjectMeta(name=name, namespace=kubectl.namespace))
    core.create_namespaced_pod_eviction(name, kubectl.namespace, eviction)
    held = core.read_namespaced_pod(name, kubectl.namespace)
    assert held.metadata.deletion_timestamp is not None
    (target,) = [c for c in held.status.conditions if c.type == "DisruptionTarget"]
    assert (target.status, target.reason, target.message) == (
        "True",
        "EvictionByEvictionAPI",
        "Eviction API: evicting",
    )
    core.patch_namespaced_pod(name, kubectl.namespace, {"metadata": {"finalizers": None}})


def test_kubectl_drain_evicts_through_the_budget(kubectl: Kubectl) -> None:
    _apply(kubectl, _deployment("drained", 2))
    pods = _ready_pods(kubectl, "drained", 2)
    _apply(kubectl, _budget("drained", maxUnavailable=2))
    _budget_status(kubectl, "drained", 2)
    node = pods[0]["spec"]["nodeName"]
    try:
        done = kubectl.complete(
            "drain",
            node,
            "--pod-selector=app=drained",
            "--ignore-daemonsets",
            "--timeout=60s",
            namespaced=False,
        )
        assert done.returncode == 0, done.stderr
        for pod in pods:
            name = pod["metadata"]["name"]
            assert f"evicting pod {kubectl.namespace}/{name}" in done.stderr + done.stdout
            assert f"pod/{name} evicted" in done.stdout
        assert f"node/{node} drained" in done.stdout
    finally:
        kubectl.complete("uncordon", node, namespaced=False)
