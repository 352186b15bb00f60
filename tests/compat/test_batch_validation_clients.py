"""Batch refusals as the real clients show them: kubectl's one line for a CronJob whose
schedule robfig/cron refuses (and acceptance of one it reads), the official client's
``ApiException`` with the Status of a Job whose spec 1.32 refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def test_kubectl_create_cronjob_with_a_bad_schedule_prints_robfigs_reason(
    kubectl: Kubectl,
) -> None:
    error = kubectl.fails(
        "create", "cronjob", "weekly", "--image=busybox:1.36", "--schedule=0 0 * * 7"
    )
    assert error.strip() == (
        'error: failed to create cronjob: CronJob.batch "weekly" is invalid: spec.schedule: '
        'Invalid value: "0 0 * * 7": end of range (7) above maximum (6): 7'
    )
    kubectl.run("create", "cronjob", "weekly", "--image=busybox:1.36", "--schedule=0 0 * * 0")
    assert kubectl.json("cronjob", "weekly")["spec"]["schedule"] == "0 0 * * 0"


def test_the_official_client_gets_the_status_of_a_refused_job(
    api_client: Any, namespace: str
) -> None:
    batch = k8s.BatchV1Api(api_client)
    body = k8s.V1Job(
        metadata=k8s.V1ObjectMeta(name="flat"),
        spec=k8s.V1JobSpec(
            backoff_limit_per_index=1,
            template=k8s.V1PodTemplateSpec(
                spec=k8s.V1PodSpec(
                    restart_policy="Never",
                    containers=[k8s.V1Container(name="main", image="busybox:1.36")],
                )
            ),
        ),
    )
    with pytest.raises(ApiException) as caught:
        batch.create_namespaced_job(namespace, body)
    assert caught.value.status == 422
    status = json.loads(caught.value.body)
    assert status["message"] == (
        'Job.batch "flat" is invalid: spec.backoffLimitPerIndex: Invalid value: 1: '
        "requires indexed completion mode"
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 1: requires indexed completion mode",
            "field": "spec.backoffLimitPerIndex",
        }
    ]
