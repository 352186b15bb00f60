"""apps/v1 refusals as the real clients show them: kubectl's one line for a Deployment
whose rolling update may never progress (Go's ``IntOrString`` struct in it), and the
official client's ``ApiException`` with the Status of a DaemonSet status write 1.32 refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

_STUCK = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck}
spec:
  selector: {matchLabels: {app: stuck}}
  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: stuck}}
    spec: {containers: [{name: main, image: nginx:1.27}]}
"""


def test_kubectl_apply_of_a_deployment_that_cannot_roll_prints_go_s_value(
    kubectl: Kubectl,
) -> None:
    error = kubectl.fails("apply", "-f", "-", stdin=_STUCK)
    assert error.strip() == (
        'The Deployment "stuck" is invalid: spec.strategy.rollingUpdate.maxUnavailable: '
        'Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: '
        "may not be 0 when `maxSurge` is 0"
    )
    kubectl.run("apply", "-f", "-", stdin=_STUCK.replace("maxSurge: 0", "maxSurge: 1"))
    rolling = kubectl.json("deployment", "stuck")["spec"]["strategy"]["rollingUpdate"]
    assert rolling == {"maxSurge": 1, "maxUnavailable": 0}


def test_the_official_client_gets_the_status_of_a_refused_daemonset_status_write(
    api_client: Any, namespace: str
) -> None:
    apps = k8s.AppsV1Api(api_client)
    labels = {"app": "agent"}
    body = k8s.V1DaemonSet(
        metadata=k8s.V1ObjectMeta(name="agent"),
        spec=k8s.V1DaemonSetSpec(
            selector=k8s.V1LabelSelector(match_labels=labels),
            template=k8s.V1PodTemplateSpec(
                metadata=k8s.V1ObjectMeta(labels=labels),
                spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="main", image="busybox")]),
            ),
        ),
    )
    created = apps.create_namespaced_daemon_set(namespace, body)
    assert created.metadata.annotations == {"deprecated.daemonset.template.generation": "1"}
    status = {
        "status": {
            "numberReady": -1,
            "currentNumberScheduled": 0,
            "desiredNumberScheduled": 0,
            "numberMisscheduled": 0,
        }
    }
    with pytest.raises(ApiException) as caught:
        apps.patch_namespaced_daemon_set_status("agent", namespace, status)
    assert caught.value.status == 422
    refused = json.loads(caught.value.body)
    assert refused["message"] == (
        'DaemonSet.apps "agent" is invalid: status.numberReady: Invalid value: -1: '
        "must be greater than or equal to 0"
    )
