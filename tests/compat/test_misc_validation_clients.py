"""Lease, Event, webhook configuration and HorizontalPodAutoscaler validation as real
clients meet it: the official ``kubernetes`` package raises ``ApiException`` carrying the
1.32 Status, and kubectl prints the server's one line as it would from a 1.32 cluster."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl


def test_the_python_client_meets_the_lease_rules(api_client: Any, namespace: str) -> None:
    leases = k8s.CoordinationV1Api(api_client)
    bad = k8s.V1Lease(
        metadata=k8s.V1ObjectMeta(name="leader"),
        spec=k8s.V1LeaseSpec(holder_identity="me", lease_duration_seconds=0),
    )
    with pytest.raises(ApiException) as refused:
        leases.create_namespaced_lease(namespace, bad)
    assert refused.value.status == 422
    status = json.loads(refused.value.body)
    assert status["message"] == (
        'Lease.coordination.k8s.io "leader" is invalid: spec.leaseDurationSeconds: Invalid '
        "value: 0: must be greater than 0"
    )
    bad.spec.lease_duration_seconds = 15
    created = leases.create_namespaced_lease(namespace, bad)
    created.spec.lease_transitions = 1
    renewed = leases.replace_namespaced_lease("leader", namespace, created)
    assert renewed.spec.lease_transitions == 1


def test_the_python_client_meets_the_events_v1_rules(api_client: Any, namespace: str) -> None:
    events = k8s.EventsV1Api(api_client)
    event = k8s.EventsV1Event(
        metadata=k8s.V1ObjectMeta(name="synced"),
        event_time="2025-01-02T03:04:05.000001Z",
        reporting_controller="example.com/widgets",
        reporting_instance="widgets-0",
        action="Reconcile",
        reason="Synced",
        type="Sideways",
        regarding=k8s.V1ObjectReference(kind="Widget", name="w1", namespace=namespace),
    )
    with pytest.raises(ApiException) as refused:
        events.create_namespaced_event(namespace, event)
    causes = json.loads(refused.value.body)["details"]["causes"]
    assert causes == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "": has invalid value: Sideways',
            "field": "type",
        }
    ]


def test_kubectl_prints_a_webhook_configurations_refusal(kubectl: Kubectl) -> None:
    config = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "kubectl-refused"},
        "webhooks": [
            {
                "name": "check.example.com",
                "clientConfig": {"url": "http://hooks.example.com/check"},
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ],
    }
    stderr = kubectl.fails("create", "-f", "-", stdin=json.dumps(config))
    assert stderr.strip() == (
        'The ValidatingWebhookConfiguration "kubectl-refused" is invalid: '
        "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed "
        "URL scheme; desired format: https://host[/path]"
    )


def test_kubectl_prints_an_autoscalers_refusal(kubectl: Kubectl) -> None:
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 3,
            "maxReplicas": 2,
        },
    }
    stderr = kubectl.fails("create", "-f", "-", stdin=json.dumps(hpa))
    assert stderr.strip() == (
        'The HorizontalPodAutoscaler "web" is invalid: spec.maxReplicas: Invalid value: 2: '
        "must be greater than or equal to `minReplicas`"
    )
