"""Workloads through the official ``kubernetes`` package: typed models decode what the
simulated control plane writes, and its answers are what a cluster gives."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s

from .kf_kubectl import until


def _deployment(name: str, replicas: int) -> k8s.V1Deployment:
    labels = {"app": name}
    return k8s.V1Deployment(
        metadata=k8s.V1ObjectMeta(name=name),
        spec=k8s.V1DeploymentSpec(
            replicas=replicas,
            selector=k8s.V1LabelSelector(match_labels=labels),
            template=k8s.V1PodTemplateSpec(
                metadata=k8s.V1ObjectMeta(labels=labels),
                spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="web", image="nginx")]),
            ),
        ),
    )


def test_a_deployment_becomes_available_and_scales_through_the_scale_subresource(
    api_client: Any, namespace: str
) -> None:
    apps = k8s.AppsV1Api(api_client)
    core = k8s.CoreV1Api(api_client)
    apps.create_namespaced_deployment(namespace, _deployment("typed", 2))
    done = until(
        lambda: apps.read_namespaced_deployment_status("typed", namespace),
        lambda d: d.status.available_replicas == 2,
    )
    conditions = {c.type: c for c in done.status.conditions}
    assert conditions["Available"].reason == "MinimumReplicasAvailable"
    assert done.status.updated_replicas == 2
    apps.patch_namespaced_deployment_scale("typed", namespace, {"spec": {"replicas": 3}})
    until(
        lambda: apps.read_namespaced_deployment("typed", namespace),
        lambda d: d.status.available_replicas == 3,
    )
    (rs,) = apps.list_namespaced_replica_set(namespace, label_selector="app=typed").items
    assert rs.status.ready_replicas == 3
    assert rs.metadata.owner_references[0].name == "typed"
    pods = core.list_namespaced_pod(namespace, label_selector="app=typed").items
    assert len(pods) == 3
    for pod in pods:
        assert pod.status.phase == "Running"
        assert pod.status.container_statuses[0].state.running.started_at is not None
        assert pod.spec.node_name == "kubeforge-node-0"


def test_a_job_completes_and_its_status_decodes_into_the_typed_model(
    api_client: Any, namespace: str
) -> None:
    batch = k8s.BatchV1Api(api_client)
    job = k8s.V1Job(
        metadata=k8s.V1ObjectMeta(name="typed-job"),
        spec=k8s.V1JobSpec(
            completions=2,
            template=k8s.V1PodTemplateSpec(
                spec=k8s.V1PodSpec(
                    restart_policy="Never",
                    containers=[k8s.V1Container(name="main", image="busybox:1.36")],
                )
            ),
        ),
    )
    batch.create_namespaced_job(namespace, job)
    done = until(
        lambda: batch.read_namespaced_job_status("typed-job", namespace),
        lambda j: any(c.type == "Complete" for c in j.status.conditions or []),
    )
    assert done.status.succeeded == 2
    assert done.status.ready == 0
    assert done.status.uncounted_terminated_pods.succeeded is None
    assert done.status.completion_time >= done.status.start_time
    (complete,) = [c for c in done.status.conditions if c.type == "Complete"]
    assert complete.reason == "CompletionsReached"
