"""PodSecurity as kubectl and the official client see it on a 1.32 server: the warnings
kubectl prints (labelling a namespace, creating a Deployment), its denial line for a
pod, and the official client's ApiException 403 and Warning headers."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

P = "pod-security.kubernetes.io/"


def _violations(container: str) -> str:
    return (
        f'allowPrivilegeEscalation != false (container "{container}" must set '
        "securityContext.allowPrivilegeEscalation=false), "
        f'unrestricted capabilities (container "{container}" must set '
        'securityContext.capabilities.drop=["ALL"]), '
        f'runAsNonRoot != true (pod or container "{container}" must set '
        "securityContext.runAsNonRoot=true), "
        f'seccompProfile (pod or container "{container}" must set '
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )


def _label(kubectl: Kubectl, *labels: str) -> Any:
    return kubectl.complete("label", "--overwrite", "namespace", kubectl.namespace, *labels)


def test_kubectl_prints_the_warnings_of_labelling_and_the_denial_of_a_pod(
    kubectl: Kubectl,
) -> None:
    kubectl.run("run", "web", "--image=nginx")
    done = _label(kubectl, f"{P}enforce=restricted")
    done.check_returncode()
    assert done.stdout.strip() == f"namespace/{kubectl.namespace} labeled"
    assert done.stderr.splitlines() == [
        f'Warning: existing pods in namespace "{kubectl.namespace}" violate the new '
        'PodSecurity enforce level "restricted:latest"',
        "Warning: web: allowPrivilegeEscalation != false, unrestricted capabilities, "
        "runAsNonRoot != true, seccompProfile",
    ]
    error = kubectl.fails("run", "api", "--image=nginx")
    assert error.strip() == (
        'Error from server (Forbidden): pods "api" is forbidden: violates PodSecurity '
        f'"restricted:latest": {_violations("api")}'
    )
    # The pod that was there before stays.
    assert kubectl.json("pod", "web")["metadata"]["name"] == "web"


def test_kubectl_warns_of_a_deployment_template_and_creates_it(kubectl: Kubectl) -> None:
    _label(kubectl, f"{P}enforce=baseline", f"{P}warn=restricted").check_returncode()
    done = kubectl.complete("create", "deployment", "web", "--image=nginx")
    done.check_returncode()
    assert done.stdout.strip() == "deployment.apps/web created"
    assert done.stderr.strip() == (
        f'Warning: would violate PodSecurity "restricted:latest": {_violations("nginx")}'
    )
    privileged = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "root"},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                                 "securityContext": {"privileged": True}}]},
    }  # fmt: skip
    error = kubectl.fails("create", "--dry-run=server", "-f", "-", stdin=json.dumps(privileged))
    assert (
        'pods "root" is forbidden: violates PodSecurity "baseline:latest": privileged '
        '(container "c" must not set securityContext.privileged=true)'
    ) in error


def test_kubectl_refuses_a_bad_label_value(kubectl: Kubectl) -> None:
    done = _label(kubectl, f"{P}enforce-version=v1")
    assert done.returncode != 0
    assert (
        f'The Namespace "{kubectl.namespace}" is invalid: metadata.labels[{P}enforce-version]: '
        'Invalid value: "v1": must be "latest" or "v1.x"'
    ) in done.stderr


def test_the_official_client_gets_403_and_the_warning_headers(
    kubectl: Kubectl, core_v1: Any
) -> None:
    _label(kubectl, f"{P}enforce=baseline", f"{P}warn=restricted", f"{P}warn-version=v1.24")
    pod = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="net"),
        spec=k8s.V1PodSpec(
            host_network=True, containers=[k8s.V1Container(name="c", image="nginx")]
        ),
    )
    with pytest.raises(ApiException) as caught:
        core_v1.create_namespaced_pod(kubectl.namespace, pod)
    assert caught.value.status == 403
    assert caught.value.reason == "Forbidden"
    status = json.loads(caught.value.body)
    assert status["reason"] == "Forbidden"
    assert status["message"] == (
        'pods "net" is forbidden: violates PodSecurity "baseline:latest": '
        "host namespaces (hostNetwork=true)"
    )
    pod.spec.host_network = None
    pod.metadata.name = "plain"
    _, code, headers = core_v1.create_namespaced_pod_with_http_info(kubectl.namespace, pod)
    assert code == 201
    assert headers["Warning"] == (
        '299 - "would violate PodSecurity \\"restricted:v1.24\\": '
        + _violations("c").replace('"', '\\"')
        + '"'
    )


def test_kubectl_debug_needs_a_profile_the_level_allows(kubectl: Kubectl) -> None:
    hardened = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "target"},
        "spec": {"containers": [{"name": "app", "image": "nginx", "securityContext": hardened}]},
    }
    _label(kubectl, f"{P}enforce=restricted").check_returncode()
    kubectl.run("create", "-f", "-", stdin=json.dumps(pod))
    error = kubectl.fails("debug", "target", "--image=busybox", "-c", "dbg", "--", "sleep", "1d")
    assert (
        'pods "target" is forbidden: violates PodSecurity "restricted:latest": '
        f"{_violations('dbg')}"
    ) in error
    done = kubectl.complete(
        "debug", "target", "--image=busybox", "-c", "dbg", "--profile=restricted", "--",
        "sleep", "1d",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (debugger,) = kubectl.json("pod", "target")["spec"]["ephemeralContainers"]
    assert debugger["securityContext"]["runAsNonRoot"] is True


def test_a_deployment_whose_pods_are_refused_reports_failed_creates(kubectl: Kubectl) -> None:
    _label(kubectl, f"{P}enforce=restricted").check_returncode()
    kubectl.complete("create", "deployment", "web", "--image=nginx").check_returncode()

    def failure(obj: Any) -> Any:
        found = [c for c in obj["status"].get("conditions", []) if c["type"] == "ReplicaFailure"]
        return found[0] if found else None

    (rs,) = kubectl.until(
        ("rs", "-l", "app=web"), lambda rs: [i for i in rs["items"] if failure(i)]
    )["items"]
    refusal = re.compile(
        r'pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: violates PodSecurity '
        + re.escape(f'"restricted:latest": {_violations("nginx")}')
    )
    condition = failure(rs)
    assert (condition["status"], condition["reason"]) == ("True", "FailedCreate")
    assert refusal.fullmatch(condition["message"]), condition["message"]
    failed = [e for e in kubectl.events("ReplicaSet", rs["metadata"]["name"])
              if e["reason"] == "FailedCreate"]  # fmt: skip
    assert failed and failed[0]["type"] == "Warning"
    assert failed[0]["message"].startswith("Error creating: ")
    assert refusal.fullmatch(failed[0]["message"].removeprefix("Error creating: "))
    assert kubectl.json("pods", "-l", "app=web")["items"] == []
