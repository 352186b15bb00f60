"""StatefulSets through the official ``kubernetes`` package: typed models decode what the
simulated controller writes, and it writes what 1.32 does — claims owned as the retention
policy says (controller references, kubernetes#122499), ``OnDelete`` leaving
``currentRevision`` alone, and ``FailedCreate`` when a pod is refused."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s

from .kf_kubectl import until


def _stateful_set(name: str, replicas: int, **spec: Any) -> k8s.V1StatefulSet:
    labels = {"app": name}
    template_spec = spec.pop("template_spec", {})
    claim = k8s.V1PersistentVolumeClaim(
        metadata=k8s.V1ObjectMeta(name="data"),
        spec=k8s.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteOnce"],
            resources=k8s.V1VolumeResourceRequirements(requests={"storage": "1Gi"}),
        ),
    )
    return k8s.V1StatefulSet(
        metadata=k8s.V1ObjectMeta(name=name),
        spec=k8s.V1StatefulSetSpec(
            replicas=replicas,
            service_name=name,
            selector=k8s.V1LabelSelector(match_labels=labels),
            template=k8s.V1PodTemplateSpec(
                metadata=k8s.V1ObjectMeta(labels=labels),
                spec=k8s.V1PodSpec(
                    containers=[k8s.V1Container(name="main", image="nginx:1.26")], **template_spec
                ),
            ),
            volume_claim_templates=[claim],
            **spec,
        ),
    )


def _owners(core: Any, namespace: str, claim: str) -> list[tuple[str, str, bool]]:
    refs = core.read_namespaced_persistent_volume_claim(claim, namespace).metadata.owner_references
    return [(r.kind, r.name, bool(r.controller)) for r in refs or []]


def _ready(apps: Any, name: str, namespace: str, replicas: int) -> Any:
    return until(
        lambda: apps.read_namespaced_stateful_set_status(name, namespace),
        lambda s: s.status.ready_replicas == replicas and s.status.replicas == replicas,
    )


def test_claims_are_owned_as_the_retention_policy_says(api_client: Any, namespace: str) -> None:
    apps, core = k8s.AppsV1Api(api_client), k8s.CoreV1Api(api_client)
    policy = k8s.V1StatefulSetPersistentVolumeClaimRetentionPolicy(
        when_deleted="Retain", when_scaled="Delete"
    )
    body = _stateful_set("kept", 2, persistent_volume_claim_retention_policy=policy)
    apps.create_namespaced_stateful_set(namespace, body)
    done = _ready(apps, "kept", namespace, 2)
    assert done.status.current_revision == done.status.update_revision
    assert done.status.available_replicas == 2
    assert _owners(core, namespace, "data-kept-0") == []
    apps.patch_namespaced_stateful_set_scale("kept", namespace, {"spec": {"replicas": 1}})
    until(
        lambda: core.list_namespaced_persistent_volume_claim(namespace).items,
        lambda claims: [c.metadata.name for c in claims] == ["data-kept-0"],
    )
    retain_on_delete = {"whenDeleted": "Delete", "whenScaled": "Delete"}
    apps.patch_namespaced_stateful_set(
        "kept", namespace, {"spec": {"persistentVolumeClaimRetentionPolicy": retain_on_delete}}
    )
    until(
        lambda: _owners(core, namespace, "data-kept-0"),
        lambda owners: owners == [("StatefulSet", "kept", True)],
    )
    apps.delete_namespaced_stateful_set("kept", namespace, propagation_policy="Foreground")
    until(lambda: core.list_namespaced_persistent_volume_claim(namespace).items, lambda c: not c)


def test_on_delete_replaces_only_deleted_pods_and_keeps_the_current_revision(
    api_client: Any, namespace: str
) -> None:
    apps, core = k8s.AppsV1Api(api_client), k8s.CoreV1Api(api_client)
    strategy = k8s.V1StatefulSetUpdateStrategy(type="OnDelete")
    apps.create_namespaced_stateful_set(
        namespace, _stateful_set("manual", 2, update_strategy=strategy)
    )
    first = _ready(apps, "manual", namespace, 2).status.current_revision
    image = {
        "spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}}
    }
    apps.patch_namespaced_stateful_set("manual", namespace, image)
    moved = until(
        lambda: apps.read_namespaced_stateful_set_status("manual", namespace),
        lambda s: s.status.update_revision != first and s.status.observed_generation == 2,
    )
    assert moved.status.current_revision == first
    assert (moved.status.current_replicas, moved.status.updated_replicas) == (2, None)
    core.delete_namespaced_pod("manual-1", namespace)
    after = until(
        lambda: apps.read_namespaced_stateful_set_status("manual", namespace),
        lambda s: s.status.updated_replicas == 1 and s.status.ready_replicas == 2,
    )
    assert after.status.current_revision == first  # OnDelete never completes a rollout
    assert after.status.current_replicas == 1
    pod = core.read_namespaced_pod("manual-1", namespace)
    assert pod.metadata.labels["controller-revision-hash"] == after.status.update_revision
    assert pod.spec.containers[0].image == "nginx:1.27"
    assert core.read_namespaced_pod("manual-0", namespace).spec.containers[0].image == "nginx:1.26"


def test_a_refused_pod_is_a_failed_create_event(api_client: Any, namespace: str) -> None:
    apps, core = k8s.AppsV1Api(api_client), k8s.CoreV1Api(api_client)
    body = _stateful_set("nosa", 1, template_spec={"service_account_name": "ghost"})
    apps.create_namespaced_stateful_set(namespace, body)

    def about(reason: str) -> list[Any]:
        items = core.list_namespaced_event(namespace, field_selector="involvedObject.name=nosa")
        return [e for e in items.items if e.reason == reason]

    events = until(lambda: about("FailedCreate"), bool)
    assert events[0].type == "Warning"
    assert events[0].message == (
        'create Pod nosa-0 in StatefulSet nosa failed error: pods "nosa-0" is forbidden: '
        f'error looking up service account {namespace}/ghost: serviceaccount "ghost" not found'
    )
    assert [e.message for e in about("SuccessfulCreate")] == [
        "create Claim data-nosa-0 Pod nosa-0 in StatefulSet nosa success"
    ]
    account = k8s.V1ServiceAccount(metadata=k8s.V1ObjectMeta(name="ghost"))
    core.create_namespaced_service_account(namespace, account)
    _ready(apps, "nosa", namespace, 1)


def test_max_unavailable_is_dropped_with_its_feature_gate_off(
    api_client: Any, namespace: str
) -> None:
    apps = k8s.AppsV1Api(api_client)
    rolling = k8s.V1RollingUpdateStatefulSetStrategy(max_unavailable=2)
    strategy = k8s.V1StatefulSetUpdateStrategy(type="RollingUpdate", rolling_update=rolling)
    created = apps.create_namespaced_stateful_set(
        namespace, _stateful_set("gated", 0, update_strategy=strategy)
    )
    # MaxUnavailableStatefulSet is alpha, off by default in 1.32: the server drops the field
    assert created.spec.update_strategy.rolling_update.max_unavailable is None
    assert created.spec.update_strategy.rolling_update.partition == 0
