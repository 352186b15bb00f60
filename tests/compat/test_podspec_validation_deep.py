"""The deeper pod spec rules of a 1.32 server (security contexts, affinity, tolerations,
topology spread, DNS, subpaths, sidecars, updates; ``pkg/apis/core/validation``) as
kubectl and the official client see them: the one-line error kubectl prints, the
exception and causes the client raises."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _pod(name: str, container: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    main = {"name": "app", "image": "nginx", **(container or {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"containers": [main], **spec},
    }


def test_kubectl_prints_a_security_context_error_as_a_real_server_words_it(
    kubectl: Kubectl,
) -> None:
    pod = _pod("uid", {"securityContext": {"runAsUser": -1}})
    error = kubectl.fails("create", "-f", "-", stdin=json.dumps(pod))
    assert (
        'The Pod "uid" is invalid: spec.containers[0].securityContext.runAsUser: '
        "Invalid value: -1: must be between 0 and 2147483647, inclusive" in error
    )


def test_kubectl_apply_of_a_deployment_reports_template_paths(kubectl: Kubectl) -> None:
    template = _pod("web", tolerations=[{"key": "k", "operator": "Exists", "value": "v"}])
    del template["apiVersion"], template["kind"]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template},
    }
    error = kubectl.fails("apply", "-f", "-", stdin=json.dumps(deployment))
    assert (
        'The Deployment "web" is invalid: spec.template.spec.tolerations[0].operator: '
        "Invalid value: \"v\": value must be empty when `operator` is 'Exists'" in error
    )


def test_kubectl_lists_every_problem_of_a_pod_in_order(kubectl: Kubectl) -> None:
    constraints = [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]
    mounts = [{"name": "data", "mountPath": "/d", "subPath": "../up"}]
    pod = _pod(
        "many",
        {"volumeMounts": mounts},
        volumes=[{"name": "data", "emptyDir": {}}],
        dnsPolicy="None",
        topologySpreadConstraints=constraints,
        hostAliases=[{"ip": "not-an-ip", "hostnames": ["db"]}],
    )
    error = kubectl.fails("create", "-f", "-", stdin=json.dumps(pod))
    expected = (
        "spec.containers[0].volumeMounts.subPath: Invalid value: \"../up\": must not contain '..'",
        "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None",
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
        'spec.hostAliases[0].ip: Invalid value: "not-an-ip": must be a valid IP address, '
        "(e.g. 10.9.8.7 or 2001:db8::ffff)",
    )
    positions = [error.index(text) for text in expected]
    assert positions == sorted(positions)


def test_the_official_client_gets_affinity_causes(api_client: Any, kubectl: Kubectl) -> None:
    term = k8s.V1PodAffinityTerm(
        topology_key="",
        label_selector=k8s.V1LabelSelector(match_labels={"app": "db"}),
    )
    affinity = k8s.V1Affinity(
        pod_anti_affinity=k8s.V1PodAntiAffinity(
            preferred_during_scheduling_ignored_during_execution=[
                k8s.V1WeightedPodAffinityTerm(weight=200, pod_affinity_term=term)
            ]
        )
    )
    pod = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="spread"),
        spec=k8s.V1PodSpec(
            containers=[k8s.V1Container(name="app", image="nginx")], affinity=affinity
        ),
    )
    with pytest.raises(ApiException) as caught:
        k8s.CoreV1Api(api_client).create_namespaced_pod(kubectl.namespace, pod)
    assert caught.value.status == 422
    body = json.loads(caught.value.body)
    at = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
    assert [(c["reason"], c["field"]) for c in body["details"]["causes"]] == [
        ("FieldValueInvalid", f"{at}.weight"),
        ("FieldValueRequired", f"{at}.podAffinityTerm.topologyKey"),
        ("FieldValueInvalid", f"{at}.podAffinityTerm.topologyKey"),
        ("FieldValueInvalid", f"{at}.podAffinityTerm.topologyKey"),
    ]
    assert body["details"]["causes"][0]["message"] == (
        "Invalid value: 200: must be in the range 1-100"
    )


def test_a_forbidden_pod_update_prints_the_first_line_then_a_diff(kubectl: Kubectl) -> None:
    kubectl.complete("create", "-f", "-", stdin=json.dumps(_pod("fixed"))).check_returncode()
    patch = json.dumps({"spec": {"nodeSelector": {"disk": "ssd"}}})
    error = kubectl.fails("patch", "pod", "fixed", "-p", patch)
    assert (
        'The Pod "fixed" is invalid: spec: Forbidden: pod updates may not change fields other '
        "than `spec.containers[*].image`,`spec.initContainers[*].image`,"
        "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
        "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
        "previously negative)\n  core.PodSpec{\n" in error
    )
    assert "NodeSelector" in error


def test_the_official_client_adds_a_sidecar_init_container(
    api_client: Any, kubectl: Kubectl
) -> None:
    sidecar = k8s.V1Container(
        name="proxy",
        image="envoy",
        restart_policy="Always",
        readiness_probe=k8s.V1Probe(_exec=k8s.V1ExecAction(command=["true"])),
    )
    pod = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="sidecar"),
        spec=k8s.V1PodSpec(
            containers=[k8s.V1Container(name="app", image="nginx")], init_containers=[sidecar]
        ),
    )
    core = k8s.CoreV1Api(api_client)
    created = core.create_namespaced_pod(kubectl.namespace, pod)
    assert created.spec.init_containers[0].restart_policy == "Always"
    sidecar.restart_policy = "OnFailure"
    pod.metadata.name = "not-sidecar"
    with pytest.raises(ApiException) as caught:
        core.create_namespaced_pod(kubectl.namespace, pod)
    causes = json.loads(caught.value.body)["details"]["causes"]
    assert [(c["field"], c["message"]) for c in causes] == [
        (
            "spec.initContainers[0].restartPolicy",
            'Unsupported value: "OnFailure": supported values: "Always"',
        ),
        (
            "spec.initContainers[0].readinessProbe",
            "Forbidden: may not be set for init containers without restartPolicy=Always",
        ),
    ]
