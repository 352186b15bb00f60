"""apps/v1 workloads and ReplicationControllers refused (and accepted) as a 1.32 server does:
rolling-update bounds, strategy types, selectors, templates and ``/status`` counts, each
with Go's field paths and words (``pkg/apis/apps/validation``, ``ValidateReplicationController``).

Values Go prints with ``%#v`` (an ``intstr.IntOrString``, a ``map[string]string``, a
``v1.LabelSelector``, a strategy struct) are expected in that form.
"""

from __future__ import annotations

from typing import Any

import pytest
from kf_apps import path, workload
from kf_http import Api

MERGE = "application/merge-patch+json"
PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


@pytest.fixture
def api(storage_api: Api) -> Api:
    return storage_api


def causes(reply: Any) -> list[tuple[str, str, str]]:
    assert reply.status == 422, reply.body
    return [(c["reason"], c["field"], c["message"]) for c in reply.body["details"]["causes"]]


def rolling(kind: str, **bounds: Any) -> dict[str, Any]:
    field = "strategy" if kind == "Deployment" else "updateStrategy"
    return {field: {"type": "RollingUpdate", "rollingUpdate": bounds}}


async def test_a_deployment_with_both_bounds_zero_shows_the_int_or_string_struct(
    api: Api, namespace: str
) -> None:
    body = workload("Deployment", "stuck", **rolling("Deployment", maxUnavailable=0, maxSurge="0%"))
    reply = await api.post(path(namespace, "deployments"), body)
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            "spec.strategy.rollingUpdate.maxUnavailable",
            'Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: '
            "may not be 0 when `maxSurge` is 0",
        )
    ]


async def test_a_daemonset_needs_exactly_one_non_zero_bound(api: Api, namespace: str) -> None:
    zero = workload("DaemonSet", "zero", **rolling("DaemonSet", maxUnavailable="0%", maxSurge=0))
    assert causes(await api.post(path(namespace, "daemonsets"), zero)) == [
        (
            "FieldValueRequired",
            "spec.updateStrategy.rollingUpdate.maxUnavailable",
            "Required value: cannot be 0 when maxSurge is 0",
        )
    ]
    both = workload("DaemonSet", "both", **rolling("DaemonSet", maxUnavailable=1, maxSurge="10%"))
    assert causes(await api.post(path(namespace, "daemonsets"), both)) == [
        (
            "FieldValueInvalid",
            "spec.updateStrategy.rollingUpdate.maxSurge",
            'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"10%"}: '
            "may not be set when maxUnavailable is non-zero",
        )
    ]
    surge = workload("DaemonSet", "surge", **rolling("DaemonSet", maxUnavailable=0, maxSurge=2))
    assert (await api.post(path(namespace, "daemonsets"), surge)).status == 201


async def test_percentages_are_checked_in_go_order_and_only_unavailable_is_capped(
    api: Api, namespace: str
) -> None:
    bounds = rolling("Deployment", maxUnavailable="120%", maxSurge="5x")
    reply = await api.post(path(namespace, "deployments"), workload("Deployment", "a", **bounds))
    at = "spec.strategy.rollingUpdate"
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            f"{at}.maxSurge",
            f'Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:"5x"}}: {PERCENT}',
        ),
        (
            "FieldValueInvalid",
            f"{at}.maxUnavailable",
            'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: '
            "must not be greater than 100%",
        ),
    ]
    # A Deployment's maxSurge may exceed 100% (Go caps maxUnavailable alone).
    big = workload("Deployment", "b", **rolling("Deployment", maxUnavailable=1, maxSurge="200%"))
    assert (await api.post(path(namespace, "deployments"), big)).status == 201
    negative = workload("Deployment", "c", **rolling("Deployment", maxUnavailable=-1))
    assert causes(await api.post(path(namespace, "deployments"), negative)) == [
        (
            "FieldValueInvalid",
            f"{at}.maxUnavailable",
            "Invalid value: -1: must be greater than or equal to 0",
        )
    ]


async def test_an_unknown_strategy_type_is_refused_at_the_strategy(
    api: Api, namespace: str
) -> None:
    deployment = workload("Deployment", "d", strategy={"type": "Blue"})
    assert causes(await api.post(path(namespace, "deployments"), deployment)) == [
        (
            "FieldValueNotSupported",
            "spec.strategy",
            'Unsupported value: apps.DeploymentStrategy{Type:"Blue", '
            "RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: "
            'supported values: "Recreate", "RollingUpdate"',
        )
    ]
    daemonset = workload("DaemonSet", "d", updateStrategy={"type": "Blue"})
    assert causes(await api.post(path(namespace, "daemonsets"), daemonset)) == [
        (
            "FieldValueNotSupported",
            "spec.updateStrategy",
            'Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Blue", '
            "RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: "
            'supported values: "RollingUpdate", "OnDelete"',
        )
    ]
    statefulset = workload("StatefulSet", "d", updateStrategy={"type": "Blue"})
    assert causes(await api.post(path(namespace, "statefulsets"), statefulset)) == [
        (
            "FieldValueInvalid",
            "spec.updateStrategy",
            'Invalid value: apps.StatefulSetUpdateStrategy{Type:"Blue", '
            "RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: "
            "must be 'RollingUpdate' or 'OnDelete'",
        )
    ]


async def test_selector_and_template_errors_show_go_values(api: Api, namespace: str) -> None:
    body = workload("ReplicaSet", "rs")
    body["spec"]["selector"] = {"matchLabels": {"app": "other"}}
    assert causes(await api.post(path(namespace, "replicasets"), body)) == [
        (
            "FieldValueInvalid",
            "spec.template.metadata.labels",
            'Invalid value: map[string]string{"app":"rs"}: '
            "`selector` does not match template `labels`",
        )
    ]
    # A ReplicaSet's empty selector is worded as a Deployment's (Go's copied message).
    body["spec"]["selector"] = {}
    assert causes(await api.post(path(namespace, "replicasets"), body)) == [
        (
            "FieldValueInvalid",
            "spec.selector",
            "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: "
            "empty selector is invalid for deployment",
        )
    ]


async def test_a_daemonset_without_a_selector_only_misses_its_template_labels(
    api: Api, namespace: str
) -> None:
    body = workload("DaemonSet", "ds")
    del body["spec"]["selector"]
    assert causes(await api.post(path(namespace, "daemonsets"), body)) == [
        (
            "FieldValueInvalid",
            "spec.template.metadata.labels",
            'Invalid value: map[string]string{"app":"ds"}: '
            "`selector` does not match template `labels`",
        )
    ]


async def test_an_immutable_selector_is_shown_as_the_go_struct(api: Api, namespace: str) -> None:
    assert (
        await api.post(path(namespace, "deployments"), workload("Deployment", "d"))
    ).status == 201
    change = {
        "spec": {
            "selector": {"matchLabels": {"app": "d", "tier": "web"}},
            "template": {"metadata": {"labels": {"app": "d", "tier": "web"}}},
        }
    }
    reply = await api.patch(path(namespace, "deployments", "d"), change, MERGE)
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            "spec.selector",
            'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"d", '
            '"tier":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: '
            "field is immutable",
        )
    ]


async def test_a_template_active_deadline_is_forbidden_in_the_kinds_words(
    api: Api, namespace: str
) -> None:
    for kind, plural in (("DaemonSet", "daemonsets"), ("StatefulSet", "statefulsets")):
        body = workload(kind, "dl")
        body["spec"]["template"]["spec"]["activeDeadlineSeconds"] = 30
        assert causes(await api.post(path(namespace, plural), body)) == [
            (
                "FieldValueForbidden",
                "spec.template.spec.activeDeadlineSeconds",
                f"Forbidden: activeDeadlineSeconds in {kind} is not Supported",
            )
        ]


async def test_deployment_status_counts_are_bounded(api: Api, namespace: str) -> None:
    assert (
        await api.post(path(namespace, "deployments"), workload("Deployment", "d"))
    ).status == 201
    status = {
        "status": {
            "observedGeneration": -1,
            "replicas": 2,
            "readyReplicas": 3,
            "availableReplicas": 4,
        }
    }
    reply = await api.patch(path(namespace, "deployments", "d", "status"), status, MERGE)
    above = "cannot be greater than status.replicas"
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            "status.observedGeneration",
            "Invalid value: -1: must be greater than or equal to 0",
        ),
        ("FieldValueInvalid", "status.readyReplicas", f"Invalid value: 3: {above}"),
        ("FieldValueInvalid", "status.availableReplicas", f"Invalid value: 4: {above}"),
        (
            "FieldValueInvalid",
            "status.availableReplicas",
            "Invalid value: 4: cannot be greater than readyReplicas",
        ),
    ]


async def test_a_status_write_is_not_held_to_the_spec_rules(api: Api, namespace: str) -> None:
    # Go's status strategy validates the status only: a good status goes through even when
    # the stored spec would now be refused (here a selector change it carries is dropped).
    assert (
        await api.post(path(namespace, "replicasets"), workload("ReplicaSet", "r"))
    ).status == 201
    status = {"status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 1}}
    reply = await api.patch(path(namespace, "replicasets", "r", "status"), status, MERGE)
    assert reply.status == 200, reply.body
    assert reply.body["status"]["availableReplicas"] == 1


async def test_collision_count_may_not_go_down(api: Api, namespace: str) -> None:
    body = workload("StatefulSet", "s", serviceName="s")
    assert (await api.post(path(namespace, "statefulsets"), body)).status == 201
    status_path = path(namespace, "statefulsets", "s", "status")
    up = await api.patch(status_path, {"status": {"collisionCount": 2}}, MERGE)
    assert up.status == 200, up.body
    down = await api.patch(status_path, {"status": {"collisionCount": 1}}, MERGE)
    assert causes(down) == [
        ("FieldValueInvalid", "status.collisionCount", "Invalid value: 1: cannot be decremented")
    ]
    ready = {"status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 2}}
    assert causes(await api.patch(status_path, ready, MERGE)) == [
        (
            "FieldValueInvalid",
            "status.availableReplicas",
            "Invalid value: 2: cannot be greater than status.replicas",
        ),
        (
            "FieldValueInvalid",
            "status.availableReplicas",
            "Invalid value: 2: cannot be greater than status.readyReplicas",
        ),
    ]


async def test_daemonset_status_counts_are_non_negative(api: Api, namespace: str) -> None:
    assert (await api.post(path(namespace, "daemonsets"), workload("DaemonSet", "d"))).status == 201
    status = {"status": {"numberReady": -1, "numberUnavailable": -2, "desiredNumberScheduled": 0}}
    reply = await api.patch(path(namespace, "daemonsets", "d", "status"), status, MERGE)
    negative = "must be greater than or equal to 0"
    assert causes(reply) == [
        ("FieldValueInvalid", "status.numberReady", f"Invalid value: -1: {negative}"),
        ("FieldValueInvalid", "status.numberUnavailable", f"Invalid value: -2: {negative}"),
    ]


def controller(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": name},
        "spec": {
            "selector": {"app": name},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
            },
            **spec,
        },
    }


async def test_replication_controller_rules(api: Api, namespace: str) -> None:
    rcs = f"/api/v1/namespaces/{namespace}/replicationcontrollers"
    deadline = controller("dl")
    deadline["spec"]["template"]["spec"]["activeDeadlineSeconds"] = 10
    assert causes(await api.post(rcs, deadline)) == [
        (
            "FieldValueForbidden",
            "spec.template.spec.activeDeadlineSeconds",
            "Forbidden: activeDeadlineSeconds in ReplicationController is not Supported",
        )
    ]
    missing = controller("mt")
    del missing["spec"]["template"]
    assert causes(await api.post(rcs, missing)) == [
        ("FieldValueRequired", "spec.template", "Required value"),
    ]
    # With neither, no selector is defaulted from the template's labels.
    del missing["spec"]["selector"]
    assert causes(await api.post(rcs, missing)) == [
        ("FieldValueRequired", "spec.selector", "Required value"),
        ("FieldValueRequired", "spec.template", "Required value"),
    ]
    assert (await api.post(rcs, controller("rc"))).status == 201
    status = {"status": {"replicas": 1, "fullyLabeledReplicas": 2, "observedGeneration": 1}}
    reply = await api.patch(f"{rcs}/rc/status", status, MERGE)
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            "status.fullyLabeledReplicas",
            "Invalid value: 2: cannot be greater than status.replicas",
        )
    ]


async def test_statefulset_spec_rules(api: Api, namespace: str) -> None:
    sets = path(namespace, "statefulsets")
    body = workload(
        "StatefulSet",
        "s",
        serviceName="s",
        updateStrategy={"type": "OnDelete", "rollingUpdate": {"partition": 2}},
        persistentVolumeClaimRetentionPolicy={"whenDeleted": "Keep"},
        ordinals={"start": -1},
    )
    assert causes(await api.post(sets, body)) == [
        (
            "FieldValueInvalid",
            "spec.updateStrategy.rollingUpdate",
            "Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:2, "
            "MaxUnavailable:(*intstr.IntOrString)(nil)}: "
            "only allowed for updateStrategy 'RollingUpdate'",
        ),
        (
            "FieldValueNotSupported",
            "spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
            'Unsupported value: "Keep": supported values: "Retain", "Delete"',
        ),
        (
            "FieldValueInvalid",
            "spec.ordinals.start",
            "Invalid value: -1: must be greater than or equal to 0",
        ),
    ]
    negative = workload(
        "StatefulSet",
        "p",
        serviceName="p",
        updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": -1}},
    )
    assert causes(await api.post(sets, negative)) == [
        (
            "FieldValueInvalid",
            "spec.updateStrategy.rollingUpdate.partition",
            "Invalid value: -1: must be greater than or equal to 0",
        )
    ]


async def test_a_statefulset_given_rolling_update_alone_gets_no_rolling_update_block(
    api: Api, namespace: str
) -> None:
    # SetDefaults_StatefulSet adds rollingUpdate only when it defaults the type itself.
    body = workload("StatefulSet", "s", serviceName="s", updateStrategy={"type": "RollingUpdate"})
    created = await api.post(path(namespace, "statefulsets"), body)
    assert created.status == 201, created.body
    assert created.body["spec"]["updateStrategy"] == {"type": "RollingUpdate"}
    retention = created.body["spec"]["persistentVolumeClaimRetentionPolicy"]
    assert retention == {"whenDeleted": "Retain", "whenScaled": "Retain"}


async def test_a_daemonset_keeps_its_template_generation_in_the_annotation(
    api: Api, namespace: str
) -> None:
    key = "deprecated.daemonset.template.generation"
    created = await api.post(path(namespace, "daemonsets"), workload("DaemonSet", "d"))
    assert created.status == 201, created.body
    assert created.body["metadata"]["annotations"] == {key: "1"}
    # A client may not set it: a spec change elsewhere keeps it, a template change moves it.
    other = {"metadata": {"annotations": {key: "7"}}, "spec": {"minReadySeconds": 5}}
    kept = await api.patch(path(namespace, "daemonsets", "d"), other, MERGE)
    assert kept.status == 200, kept.body
    assert kept.body["metadata"]["annotations"][key] == "1"
    image = {"spec": {"template": {"metadata": {"labels": {"app": "d", "v": "2"}}}}}
    moved = await api.patch(path(namespace, "daemonsets", "d"), image, MERGE)
    assert moved.status == 200, moved.body
    assert moved.body["metadata"]["annotations"][key] == "2"
    assert moved.body["metadata"]["generation"] == 3


async def test_controller_revision_data_is_required_and_immutable(api: Api, namespace: str) -> None:
    revisions = path(namespace, "controllerrevisions")
    bare = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}}
    assert causes(await api.post(revisions, {**bare, "revision": -1})) == [
        ("FieldValueRequired", "data", "Required value: data is mandatory"),
        ("FieldValueInvalid", "revision", "Invalid value: -1: must be greater than or equal to 0"),
    ]
    created = await api.post(revisions, {**bare, "data": {"a": 1}, "revision": 1})
    assert created.status == 201, created.body
    reply = await api.patch(path(namespace, "controllerrevisions", "r"), {"data": {"a": 2}}, MERGE)
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            "data",
            'Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, '
            'Raw:[]uint8{0x7b, 0x22, 0x61, 0x22, 0x3a, 0x32, 0x7d}, ContentEncoding:"", '
            'ContentType:"application/json"}: field is immutable',
        )
    ]
    labels = {"metadata": {"labels": {"controller-revision-hash": "abc"}}, "revision": 2}
    relabelled = await api.patch(path(namespace, "controllerrevisions", "r"), labels, MERGE)
    assert relabelled.status == 200, relabelled.body
    assert relabelled.body["revision"] == 2


async def test_a_statefulset_template_is_checked_for_labels_and_annotations_not_its_pod_spec(
    api: Api, namespace: str
) -> None:
    # ValidatePodTemplateSpecForStatefulSet (1.32) leaves the pod spec to the pods' creation.
    sets = path(namespace, "statefulsets")
    loose = workload("StatefulSet", "loose", serviceName="loose")
    loose["spec"]["template"]["spec"]["containers"][0]["name"] = "Not_A_Name"
    created = await api.post(sets, loose)
    assert created.status == 201, created.body
    # The same template in a Deployment is refused.
    deployment = workload("Deployment", "loose")
    deployment["spec"]["template"]["spec"] = loose["spec"]["template"]["spec"]
    refused = await api.post(path(namespace, "deployments"), deployment)
    assert [c[1] for c in causes(refused)] == ["spec.template.spec.containers[0].name"]
    labelled = workload("StatefulSet", "labelled", serviceName="labelled")
    labelled["spec"]["template"]["metadata"]["labels"]["bad key!"] = "x"
    labelled["spec"]["template"]["metadata"]["annotations"] = {
        "controller.kubernetes.io/pod-deletion-cost": "many"
    }
    assert [(c[0], c[1]) for c in causes(await api.post(sets, labelled))] == [
        ("FieldValueInvalid", "spec.template.labels"),
        (
            "FieldValueInvalid",
            "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]",
        ),
    ]


async def test_a_template_s_labels_are_validated_where_go_names_them(
    api: Api, namespace: str
) -> None:
    # ValidatePodTemplateSpec checks the labels at spec.template.labels (no "metadata").
    body = workload("Deployment", "d")
    body["spec"]["template"]["metadata"]["labels"]["note"] = "not valid!"
    assert causes(await api.post(path(namespace, "deployments"), body)) == [
        (
            "FieldValueInvalid",
            "spec.template.labels",
            'Invalid value: "not valid!": a valid label must be an empty string or consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
            "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        )
    ]


async def test_a_statefulset_name_is_a_dns_label(api: Api, namespace: str) -> None:
    body = workload("StatefulSet", "db.main", serviceName="db")
    body["spec"]["selector"]["matchLabels"] = {"app": "db"}
    body["spec"]["template"]["metadata"]["labels"] = {"app": "db"}
    reply = await api.post(path(namespace, "statefulsets"), body)
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            "metadata.name",
            'Invalid value: "db.main": a lowercase RFC 1123 label must consist of lower case '
            "alphanumeric characters or '-', and must start and end with an alphanumeric "
            "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        )
    ]
    # A Deployment's may be a subdomain (with a warning, see test_template_warnings).
    dotted = workload("Deployment", "db.main")
    assert (await api.post(path(namespace, "deployments"), dotted)).status == 201


async def test_a_workload_without_a_template_is_refused_for_what_it_lacks(
    api: Api, namespace: str
) -> None:
    # Go defaults the zero template (restartPolicy Always ...), so only the missing
    # containers and the labels the selector cannot match are faults.
    body = workload("Deployment", "bare")
    del body["spec"]["template"]
    assert [(c[0], c[1]) for c in causes(await api.post(path(namespace, "deployments"), body))] == [
        ("FieldValueInvalid", "spec.template.metadata.labels"),
        ("FieldValueRequired", "spec.template.spec.containers"),
    ]


async def test_controller_revisions_print_their_controller_and_revision(
    api: Api, namespace: str
) -> None:
    owner = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "name": "web",
        "uid": "00000000-0000-0000-0000-000000000001",
        "controller": True,
    }
    revision = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "web-1", "ownerReferences": [owner]},
        "data": {},
        "revision": 3,
    }
    assert (await api.post(path(namespace, "controllerrevisions"), revision)).status == 201
    table = "application/json;as=Table;v=v1;g=meta.k8s.io"
    reply = await api.request(
        "GET", path(namespace, "controllerrevisions"), headers={"Accept": table}
    )
    names = [c["name"] for c in reply.body["columnDefinitions"]]
    assert names == ["Name", "Controller", "Revision", "Age"]
    assert reply.body["rows"][0]["cells"][:3] == ["web-1", "statefulset.apps/web", 3]
