"""Nodes, Namespaces, ServiceAccounts and LimitRanges are validated and warned of as 1.32's
validation and strategies do, over HTTP. Nodes are written to the storage-only server
(``storage_api``): no node controller there taints or updates them."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kf_http import Api
from kf_podspec import causes

MERGE = "application/merge-patch+json"


@pytest.fixture
def api(storage_api: Api) -> Api:
    return storage_api


def node(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "node-" + uuid.uuid4().hex[:8]}, "spec": spec}


async def test_node_taints_are_unique_by_key_and_effect_and_reported_under_metadata(
    api: Api,
) -> None:
    taints = [
        {"key": "dedicated", "value": "db", "effect": "NoSchedule"},
        {"key": "dedicated", "value": "web", "effect": "NoSchedule"},
        {"key": "gpu", "effect": "Sometimes"},
        {"key": "bad key!", "value": "x"},
    ]
    found = causes(await api.post("/api/v1/nodes", node(taints=taints)))
    assert found[0] == (
        "metadata.taints[1]",
        'Duplicate value: core.Taint{Key:"dedicated", Value:"web", Effect:"NoSchedule", '
        "TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair",
    )
    assert found[1] == (
        "metadata.taints[2].effect",
        'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", '
        '"NoExecute"',
    )
    assert found[2][0] == "metadata.taints[3].key"
    assert found[-1] == ("metadata.taints[3].effect", "Required value")


async def test_node_pod_cidrs_and_provider_id_are_set_once(api: Api) -> None:
    bad = node(podCIDRs=["10.0.0.0/24", "10.1.0.0/24"])
    assert causes(await api.post("/api/v1/nodes", bad)) == [
        (
            "spec.podCIDRs",
            'Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than '
            "one CIDR for each IP family",
        )
    ]
    body = node(podCIDRs=["10.0.0.0/24"], providerID="local://a", externalID="x")
    created = await api.post("/api/v1/nodes", body)
    assert created.status == 201, created.body
    assert created.headers["Warning"] == (
        '299 - "spec.externalID: this field is deprecated, and is unused by Kubernetes"'
    )
    path = f"/api/v1/nodes/{body['metadata']['name']}"
    change = {"spec": {"podCIDRs": ["10.9.0.0/24"], "providerID": "local://b"}}
    assert causes(await api.patch(path, change, MERGE)) == [
        (
            "spec.podCIDRs",
            'Forbidden: node updates may not change podCIDR except from "" to valid',
        ),
        (
            "spec.providerID",
            'Forbidden: node updates may not change providerID except from "" to valid',
        ),
    ]
    cordoned = await api.patch(path, {"spec": {"unschedulable": True}}, MERGE)
    assert cordoned.status == 200, cordoned.body


async def test_namespaces_keep_their_finalizers_and_phase_rules(api: Api) -> None:
    name = "ns-" + uuid.uuid4().hex[:8]
    body = {"metadata": {"name": name}, "spec": {"finalizers": ["example.com/cleanup"]}}
    created = await api.post("/api/v1/namespaces", body)
    assert created.status == 201, created.body
    assert created.body["spec"]["finalizers"] == ["example.com/cleanup", "kubernetes"]
    wrong = {"metadata": {"name": name + "x"}, "spec": {"finalizers": ["cleanup"]}}
    assert causes(await api.post("/api/v1/namespaces", wrong)) == [
        (
            "spec.finalizers",
            'Invalid value: "cleanup": name is neither a standard finalizer name nor is it '
            "fully qualified",
        )
    ]
    finalize = {"metadata": {"name": name}, "spec": {"finalizers": ["kubernetes", "cleanup"]}}
    refused = await api.put(f"/api/v1/namespaces/{name}/finalize", finalize)
    assert causes(refused) == [
        (
            "spec.finalizers[1]",
            'Invalid value: "cleanup": name is neither a standard finalizer name nor is it '
            "fully qualified",
        )
    ]
    phase = await api.patch(
        f"/api/v1/namespaces/{name}/status", {"status": {"phase": "Terminating"}}, MERGE
    )
    assert causes(phase) == [
        (
            "status.Phase",
            "Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
        )
    ]


async def test_service_accounts_keep_secret_names_and_warn_of_mountable_secrets(
    api: Api, namespace: str
) -> None:
    body = {
        "metadata": {
            "name": "builder",
            "annotations": {"kubernetes.io/enforce-mountable-secrets": "true"},
        },
        "secrets": [{"name": "token", "namespace": "elsewhere", "kind": "Secret"}],
    }
    path = f"/api/v1/namespaces/{namespace}/serviceaccounts"
    reply = await api.post(path, body)
    assert reply.status == 201, reply.body
    assert reply.body["secrets"] == [{"name": "token"}]
    assert reply.headers["Warning"] == (
        '299 - "metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in '
        'v1.32+; prefer separate namespaces to isolate access to mounted secrets"'
    )
    # Said when the annotation is set, not on each later update.
    again = await api.patch(f"{path}/builder", {"metadata": {"labels": {"a": "b"}}}, MERGE)
    assert again.status == 200 and "Warning" not in again.headers


async def test_limit_ranges_order_their_bounds(api: Api, namespace: str) -> None:
    limits = [
        {
            "type": "Container",
            "min": {"cpu": "2"},
            "max": {"cpu": "1"},
            "maxLimitRequestRatio": {"memory": "500m"},
        },
        {"type": "Pod", "default": {"cpu": "1"}},
        {"type": "PersistentVolumeClaim"},
        {"type": "Container"},
        {"type": "Node"},
    ]
    body = {"metadata": {"name": "limits"}, "spec": {"limits": limits}}
    found = causes(await api.post(f"/api/v1/namespaces/{namespace}/limitranges", body))
    fields = [field for field, _ in found]
    assert fields == [
        "spec.limits[0].min[cpu]",
        "spec.limits[0].defaultRequest[cpu]",  # defaulted from max, then below min
        "spec.limits[0].default[cpu]",
        "spec.limits[0].maxLimitRequestRatio[memory]",
        "spec.limits[1].default",
        "spec.limits[2].limits",
        "spec.limits[3].type",
        "spec.limits[4].type",
    ]
    assert found[0][1] == (
        "Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, "
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}: '
        "min value 2 is greater than max value 1"
    )
    assert found[1][1].endswith(": min value 2 is greater than default request value 1")
    assert found[2][1].endswith(": min value 2 is greater than default value 1")
    assert found[3][1].endswith(": ratio 500m is less than 1")
    assert found[4][1] == "Forbidden: may not be specified when `type` is 'Pod'"
    assert found[5][1] == (
        "Required value: either minimum or maximum storage value is required, but neither "
        "was provided"
    )
    assert found[6][1] == 'Duplicate value: "Container"'
    assert found[7][1] == 'Invalid value: "Node": must be a standard limit type or fully qualified'
