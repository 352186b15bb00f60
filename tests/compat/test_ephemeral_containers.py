"""``pods/ephemeralcontainers``: ``kubectl debug`` adds a debugging container to a running
pod, and the subresource enforces 1.32's rules for ephemeral containers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _pod(name: str, **spec: Any) -> str:
    body = {"containers": [{"name": "app", "image": "nginx"}], **spec}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body})


def test_kubectl_debug_adds_an_ephemeral_container(kubectl: Kubectl) -> None:
    kubectl.complete("create", "-f", "-", stdin=_pod("target")).check_returncode()
    done = kubectl.complete(
        "debug", "target", "--image=busybox", "-c", "debugger", "--target=app", "--", "sleep", "1d"
    )
    assert done.returncode == 0, done.stderr
    pod = json.loads(kubectl.complete("get", "pod", "target", "-o", "json").stdout)
    (debugger,) = pod["spec"]["ephemeralContainers"]
    assert (debugger["name"], debugger["image"], debugger["targetContainerName"]) == (
        "debugger",
        "busybox",
        "app",
    )
    assert debugger["command"] == ["sleep", "1d"]


def _with_ephemeral(pod: Any, **container: Any) -> dict[str, Any]:
    """A strategic merge patch adding ``container`` to the pod's ephemeral containers."""
    existing = k8s.ApiClient().sanitize_for_serialization(pod.spec.ephemeral_containers or [])
    return {"spec": {"ephemeralContainers": [*existing, container]}}


def test_the_subresource_refuses_what_an_ephemeral_container_may_not_have(
    kubectl: Kubectl, api_client: Any
) -> None:
    core = k8s.CoreV1Api(api_client)
    namespace = kubectl.namespace
    with pytest.raises(ApiException) as caught:
        core.create_namespaced_pod(
            namespace,
            json.loads(_pod("early", ephemeralContainers=[{"name": "e", "image": "busybox"}])),
        )
    assert caught.value.status == 422
    assert (
        "spec.ephemeralContainers: Forbidden: cannot be set on create"
        in json.loads(caught.value.body)["message"]
    )
    kubectl.complete("create", "-f", "-", stdin=_pod("strict")).check_returncode()
    pod = core.read_namespaced_pod("strict", namespace)
    bad = {"name": "dbg", "image": "busybox", "targetContainerName": "nope",
           "ports": [{"containerPort": 80}]}  # fmt: skip
    with pytest.raises(ApiException) as caught:
        core.patch_namespaced_pod_ephemeralcontainers(
            "strict", namespace, _with_ephemeral(pod, **bad)
        )
    assert caught.value.status == 422
    message = json.loads(caught.value.body)["message"]
    assert 'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"' in message
    assert (
        "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container"
        in message
    )
    good = {"name": "dbg", "image": "busybox"}
    core.patch_namespaced_pod_ephemeralcontainers("strict", namespace, _with_ephemeral(pod, **good))
    pod = core.read_namespaced_pod("strict", namespace)
    assert [c.name for c in pod.spec.ephemeral_containers] == ["dbg"]
    # Without a resourceVersion (pods allow unconditional updates): the simulated kubelet
    # writes the pod's status meanwhile, which would make a stale version a 409 first.
    unconditional = api_client.sanitize_for_serialization(pod)
    del unconditional["metadata"]["resourceVersion"]
    with pytest.raises(ApiException) as caught:
        core.replace_namespaced_pod_ephemeralcontainers(
            "strict",
            namespace,
            {
                **unconditional,
                "spec": {
                    **api_client.sanitize_for_serialization(pod.spec),
                    "ephemeralContainers": [],
                },
            },
        )
    assert caught.value.status == 422
    assert 'existing ephemeral containers \\"dbg\\" may not be removed' in caught.value.body
