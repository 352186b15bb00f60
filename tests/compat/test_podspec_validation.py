"""Pod spec validation as a 1.32 server answers it (``pkg/apis/core/validation``), seen by
kubectl and the official client: exact field paths and wording, for Pods and templates."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _pod(name: str, **container: Any) -> dict[str, Any]:
    spec = {"containers": [{"name": "app", "image": "nginx", **container}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _deployment(name: str, **container: Any) -> dict[str, Any]:
    labels = {"app": name}
    template = {"metadata": {"labels": labels}, "spec": _pod(name, **container)["spec"]}
    spec = {"selector": {"matchLabels": labels}, "template": template}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": spec}


def _create_fails(kubectl: Kubectl, manifest: dict[str, Any]) -> str:
    return kubectl.fails("create", "-f", "-", stdin=json.dumps(manifest))


def test_a_mount_of_a_missing_volume_is_refused_with_its_path(kubectl: Kubectl) -> None:
    pod = _pod("mounts", volumeMounts=[{"name": "nope", "mountPath": "/data"}])
    error = _create_fails(kubectl, pod)
    assert (
        'The Pod "mounts" is invalid: spec.containers[0].volumeMounts[0].name: '
        'Not found: "nope"' in error
    )


def test_a_deployment_template_gets_the_same_rules_under_its_template_path(
    kubectl: Kubectl,
) -> None:
    deployment = _deployment("web", volumeMounts=[{"name": "nope", "mountPath": "/data"}])
    error = _create_fails(kubectl, deployment)
    assert (
        'The Deployment "web" is invalid: '
        'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "nope"' in error
    )


def test_requests_above_limits_are_refused_with_canonical_quantities(kubectl: Kubectl) -> None:
    resources = {"limits": {"memory": "1024Mi"}, "requests": {"memory": "2Gi"}}
    error = _create_fails(kubectl, _pod("greedy", resources=resources))
    assert (
        'spec.containers[0].resources.requests: Invalid value: "2Gi": '
        "must be less than or equal to memory limit of 1Gi" in error
    )


def test_ports_and_probes_are_checked_field_by_field(kubectl: Kubectl) -> None:
    ports = [
        {"containerPort": 70000, "name": "http"},
        {"containerPort": 80, "name": "http", "protocol": "HTTP"},
    ]
    probe = {"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}, "successThreshold": 2}
    error = _create_fails(kubectl, _pod("ports", ports=ports, livenessProbe=probe))
    for expected in (
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: "
        "must be between 1 and 65535, inclusive",
        'spec.containers[0].ports[1].name: Duplicate value: "http"',
        'spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": '
        'supported values: "SCTP", "TCP", "UDP"',
        "spec.containers[0].livenessProbe.tcpSocket: Forbidden: "
        "may not specify more than 1 handler type",
        "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
    ):
        assert expected in error


def test_names_env_and_policies(kubectl: Kubectl) -> None:
    pod = _pod("names", env=[{"name": "A=B", "value": "x"}])
    pod["spec"]["containers"].append({"name": "app", "image": "busybox"})
    # A volume naming no source is an emptyDir (SetDefaults_Volume); two sources are refused.
    two = {"name": "two", "hostPath": {"path": "/srv"}, "emptyDir": {}}
    pod["spec"]["volumes"] = [{"name": "Bad_Name", "emptyDir": {}}, two, {"name": "empty"}]
    pod["spec"]["dnsPolicy"] = "Cluster"
    error = _create_fails(kubectl, pod)
    for expected in (
        'spec.volumes[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label',
        "spec.volumes[1].emptyDir: Forbidden: may not specify more than 1 volume type",
        'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable '
        "name must consist only of printable ASCII characters other than '='",
        'spec.containers[1].name: Duplicate value: "app"',
        'spec.dnsPolicy: Unsupported value: "Cluster": supported values: '
        '"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ):
        assert expected in error
    assert "spec.volumes[2]" not in error


def test_the_official_client_gets_the_causes_of_a_refused_pod_template(
    api_client: Any, kubectl: Kubectl
) -> None:
    template = k8s.V1PodTemplate(
        metadata=k8s.V1ObjectMeta(name="tpl"),
        template=k8s.V1PodTemplateSpec(
            spec=k8s.V1PodSpec(
                containers=[
                    k8s.V1Container(
                        name="app",
                        image="nginx",
                        readiness_probe=k8s.V1Probe(period_seconds=5),
                    )
                ]
            )
        ),
    )
    with pytest.raises(ApiException) as caught:
        k8s.CoreV1Api(api_client).create_namespaced_pod_template(kubectl.namespace, template)
    assert caught.value.status == 422
    body = json.loads(caught.value.body)
    assert body["reason"] == "Invalid"
    assert body["details"]["causes"] == [
        {
            "reason": "FieldValueRequired",
            "message": "Required value: must specify a handler type",
            "field": "template.spec.containers[0].readinessProbe",
        }
    ]


def test_a_valid_pod_is_stored_with_the_probe_defaults(kubectl: Kubectl) -> None:
    probe = {"httpGet": {"port": "http"}}
    pod = _pod("fine", ports=[{"containerPort": 80, "name": "http"}], readinessProbe=probe)
    kubectl.complete("create", "-f", "-", stdin=json.dumps(pod)).check_returncode()
    stored = json.loads(kubectl.complete("get", "pod", "fine", "-o", "json").stdout)
    readiness = stored["spec"]["containers"][0]["readinessProbe"]
    assert readiness == {
        "httpGet": {"port": "http", "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }


def test_a_pod_update_may_change_only_images_and_the_few_mutable_fields(kubectl: Kubectl) -> None:
    kubectl.complete("create", "-f", "-", stdin=json.dumps(_pod("fixed"))).check_returncode()
    patch = json.dumps({"spec": {"containers": [{"name": "app", "image": "nginx:2"}]}})
    kubectl.complete("patch", "pod", "fixed", "-p", patch).check_returncode()
    patch = json.dumps({"spec": {"containers": [{"name": "app", "workingDir": "/tmp"}]}})
    error = kubectl.fails("patch", "pod", "fixed", "-p", patch)
    assert (
        'The Pod "fixed" is invalid: spec: Forbidden: pod updates may not change fields '
        "other than `spec.containers[*].image`,`spec.initContainers[*].image`" in error
    )
