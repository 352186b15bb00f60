"""The official ``kubernetes`` package on the second set of built-ins: apps workloads with
their scale and status subresources, both Event APIs, tokens and webhook configurations."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s


def _deployment(name: str, replicas: int = 1) -> k8s.V1Deployment:
    labels = {"app": name}
    return k8s.V1Deployment(
        metadata=k8s.V1ObjectMeta(name=name),
        spec=k8s.V1DeploymentSpec(
            replicas=replicas,
            selector=k8s.V1LabelSelector(match_labels=labels),
            template=k8s.V1PodTemplateSpec(
                metadata=k8s.V1ObjectMeta(labels=labels),
                spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="app", image="nginx:1.27")]),
            ),
        ),
    )


def test_apps_v1_creates_reads_and_lists_deployments(api_client: Any, namespace: str) -> None:
    apps = k8s.AppsV1Api(api_client)
    created = apps.create_namespaced_deployment(namespace, _deployment("web", replicas=2))
    assert created.spec.strategy.type == "RollingUpdate"
    assert created.spec.strategy.rolling_update.max_surge == "25%"
    assert created.spec.revision_history_limit == 10
    assert created.spec.progress_deadline_seconds == 600
    read = apps.read_namespaced_deployment("web", namespace)
    assert read.metadata.uid == created.metadata.uid
    listed = apps.list_namespaced_deployment(namespace, label_selector="")
    assert [d.metadata.name for d in listed.items] == ["web"]


def test_apps_v1_scale_and_status_subresources(api_client: Any, namespace: str) -> None:
    apps = k8s.AppsV1Api(api_client)
    apps.create_namespaced_deployment(namespace, _deployment("web"))
    scale = apps.read_namespaced_deployment_scale("web", namespace)
    assert (scale.spec.replicas, scale.status.selector) == (1, "app=web")
    apps.patch_namespaced_deployment_scale("web", namespace, {"spec": {"replicas": 3}})
    assert apps.read_namespaced_deployment("web", namespace).spec.replicas == 3
    status = {"status": {"replicas": 3, "readyReplicas": 3, "observedGeneration": 2}}
    patched = apps.patch_namespaced_deployment_status("web", namespace, status)
    assert patched.status.ready_replicas == 3
    assert patched.metadata.generation == 2


def test_stateful_sets_and_daemon_sets_round_trip(api_client: Any, namespace: str) -> None:
    apps = k8s.AppsV1Api(api_client)
    template = _deployment("db").spec.template
    selector = k8s.V1LabelSelector(match_labels={"app": "db"})
    sts = apps.create_namespaced_stateful_set(
        namespace,
        k8s.V1StatefulSet(
            metadata=k8s.V1ObjectMeta(name="db"),
            spec=k8s.V1StatefulSetSpec(service_name="db", selector=selector, template=template),
        ),
    )
    assert sts.spec.pod_management_policy == "OrderedReady"
    assert sts.status.replicas == 0
    ds = apps.create_namespaced_daemon_set(
        namespace,
        k8s.V1DaemonSet(
            metadata=k8s.V1ObjectMeta(name="db"),
            spec=k8s.V1DaemonSetSpec(selector=selector, template=template),
        ),
    )
    assert ds.spec.update_strategy.rolling_update.max_unavailable == 1


def test_events_v1_and_core_v1_share_their_events(api_client: Any, namespace: str) -> None:
    event = k8s.EventsV1Event(
        metadata=k8s.V1ObjectMeta(name="synced"),
        event_time="2025-01-02T03:04:05.123456Z",
        reporting_controller="example.com/widgets",
        reporting_instance="widgets-0",
        action="Sync",
        reason="Synced",
        type="Normal",
        note="all good",
        regarding=k8s.V1ObjectReference(kind="Widget", name="w", namespace=namespace),
    )
    k8s.EventsV1Api(api_client).create_namespaced_event(namespace, event)
    core = k8s.CoreV1Api(api_client).read_namespaced_event("synced", namespace)
    assert core.message == "all good"
    assert core.involved_object.name == "w"
    assert core.reporting_component == "example.com/widgets"


def test_token_requests_and_self_subject_reviews(api_client: Any, namespace: str) -> None:
    core = k8s.CoreV1Api(api_client)
    core.create_namespaced_service_account(
        namespace, k8s.V1ServiceAccount(metadata=k8s.V1ObjectMeta(name="bot"))
    )
    request = k8s.AuthenticationV1TokenRequest(
        spec=k8s.V1TokenRequestSpec(audiences=[], expiration_seconds=600)
    )
    issued = core.create_namespaced_service_account_token("bot", namespace, request)
    assert issued.status.token.count(".") == 2
    configuration = api_client.configuration
    bot_config = k8s.Configuration()
    bot_config.host = configuration.host
    bot_config.ssl_ca_cert = configuration.ssl_ca_cert
    bot_config.api_key = {"authorization": f"Bearer {issued.status.token}"}
    with k8s.ApiClient(bot_config) as bot:
        review = k8s.AuthenticationV1Api(bot).create_self_subject_review(k8s.V1SelfSubjectReview())
    assert review.status.user_info.username == f"system:serviceaccount:{namespace}:bot"


def test_webhook_configurations_get_their_defaults(api_client: Any) -> None:
    admission = k8s.AdmissionregistrationV1Api(api_client)
    hook = k8s.V1ValidatingWebhook(
        name="check.compat.example.com",
        client_config=k8s.AdmissionregistrationV1WebhookClientConfig(
            url="https://127.0.0.1:9/validate"
        ),
        side_effects="None",
        admission_review_versions=["v1"],
        rules=[
            k8s.V1RuleWithOperations(
                operations=["CREATE"],
                api_groups=["example.com"],
                api_versions=["v1"],
                resources=["widgets"],
            )
        ],
    )
    body = k8s.V1ValidatingWebhookConfiguration(
        metadata=k8s.V1ObjectMeta(name="compat-defaults"), webhooks=[hook]
    )
    created = admission.create_validating_webhook_configuration(body)
    try:
        stored = created.webhooks[0]
        assert (stored.failure_policy, stored.match_policy, stored.timeout_seconds) == (
            "Fail",
            "Equivalent",
            10,
        )
        assert stored.rules[0].scope == "*"
    finally:
        admission.delete_validating_webhook_configuration("compat-defaults")
