"""kubectl explain, create and apply over the real 1.32 schemas of built-in kinds."""

from __future__ import annotations

import json

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def test_explain_shows_the_ports_of_a_pods_containers(kubectl: Kubectl) -> None:
    out = kubectl.run("explain", "pod.spec.containers.ports")
    assert "FIELD: ports <[]ContainerPort>" in out
    assert "List of ports to expose from the container." in out
    assert "containerPort\t<integer> -required-" in out
    assert "protocol\t<string>" in out


def test_explain_follows_a_jobs_pod_template_down_to_its_restart_policy(kubectl: Kubectl) -> None:
    out = kubectl.run("explain", "job.spec.template.spec.restartPolicy")
    assert "GROUP:      batch" in out
    assert "FIELD: restartPolicy <string>" in out
    assert "Restart policy for all containers within the pod." in out


def test_explain_shows_a_rolling_updates_int_or_string_fields(kubectl: Kubectl) -> None:
    out = kubectl.run("explain", "deployment.spec.strategy.rollingUpdate")
    assert "FIELD: rollingUpdate <RollingUpdateDeployment>" in out
    assert "maxSurge\t<IntOrString>" in out
    assert "maxUnavailable\t<IntOrString>" in out
    assert "The maximum number of pods that can be scheduled above" in out


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("cronjob.spec.jobTemplate", ["backoffLimit\t<integer>", "restartPolicy\t<string>"]),
        ("service.spec.ports", ["targetPort\t<IntOrString>", "port\t<integer> -required-"]),
        ("configmap", ["binaryData\t<map[string]string>", "immutable\t<boolean>"]),
        ("apiservice.spec", ["groupPriorityMinimum\t<integer> -required-"]),
    ],
)
def test_explain_recursive_lists_nested_fields(
    kubectl: Kubectl, path: str, expected: list[str]
) -> None:
    out = kubectl.run("explain", path, "--recursive")
    for line in expected:
        assert line in out, (path, line)


def test_a_description_is_kubernetes_own(kubectl: Kubectl) -> None:
    out = kubectl.run("explain", "configmap")
    assert "ConfigMap holds configuration data for pods to consume." in out


def _deployment(name: str, env: str, extra: str = "") -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: web
        image: nginx:1.27{extra}
        env:
{env}
"""


def test_client_side_apply_removes_an_env_entry_by_its_name(kubectl: Kubectl) -> None:
    both = "        - {name: A, value: '1'}\n        - {name: B, value: '2'}"
    kubectl.run("apply", "-f", "-", stdin=_deployment("envs", both))
    kubectl.run("apply", "-f", "-", stdin=_deployment("envs", "        - {name: B, value: '2'}"))
    got = json.loads(kubectl.run("get", "deployment", "envs", "-o", "json"))
    env = got["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "B", "value": "2"}]


def test_strict_create_refuses_an_unknown_field_deep_in_a_built_in(kubectl: Kubectl) -> None:
    manifest = _deployment(
        "typo", "        - {name: A, value: '1'}", "\n        imagePullPolicyy: Always"
    )
    error = kubectl.fails("create", "--validate=strict", "-f", "-", stdin=manifest)
    assert 'unknown field "spec.template.spec.containers[0].imagePullPolicyy"' in error
