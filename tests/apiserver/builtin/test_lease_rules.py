"""Leases follow 1.32's lease strategy and ValidateLeaseSpec, over HTTP: durations and
transition counts, the gated strategy fields dropped, updates that must name a
resourceVersion."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes

MERGE = "application/merge-patch+json"


def lease(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": name},
        "spec": {"holderIdentity": "me", **spec},
    }


def path(namespace: str, name: str = "") -> str:
    base = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"
    return f"{base}/{name}" if name else base


async def test_a_lease_needs_a_positive_duration_and_no_negative_transitions(
    api: Api, namespace: str
) -> None:
    bad = lease("bad", leaseDurationSeconds=0, leaseTransitions=-1)
    reply = await api.post(path(namespace), bad)
    assert causes(reply) == [
        ("spec.leaseDurationSeconds", "Invalid value: 0: must be greater than 0"),
        ("spec.leaseTransitions", "Invalid value: -1: must be greater than or equal to 0"),
    ]
    assert reply.body["message"] == (
        'Lease.coordination.k8s.io "bad" is invalid: [spec.leaseDurationSeconds: Invalid '
        "value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be "
        "greater than or equal to 0]"
    )
    good = lease("good", leaseDurationSeconds=15, leaseTransitions=0)
    created = await api.post(path(namespace), good)
    assert created.status == 201, created.body
    # A holder identity is free text to the server (no rule in ValidateLeaseSpec).
    odd_holder = lease("odd", holderIdentity="Not A_DNS/name")
    assert (await api.post(path(namespace), odd_holder)).status == 201


async def test_an_update_is_validated_too(api: Api, namespace: str) -> None:
    created = await api.post(path(namespace), lease("up", leaseDurationSeconds=10))
    assert created.status == 201, created.body
    negative = await api.patch(path(namespace, "up"), {"spec": {"leaseDurationSeconds": -5}}, MERGE)
    assert causes(negative) == [
        ("spec.leaseDurationSeconds", "Invalid value: -5: must be greater than 0")
    ]


async def test_the_coordinated_leader_election_fields_are_dropped(api: Api, namespace: str) -> None:
    gated = lease("gated", strategy="OldestEmulationVersion", preferredHolder="you")
    created = await api.post(path(namespace), gated)
    assert created.status == 201, created.body
    assert created.body["spec"] == {"holderIdentity": "me"}
    # Alone, a preferred holder would be refused with the gate on; here it is dropped.
    updated = await api.patch(path(namespace, "gated"), {"spec": {"preferredHolder": "x"}}, MERGE)
    assert updated.status == 200, updated.body
    assert "preferredHolder" not in updated.body["spec"]


async def test_an_update_must_name_a_resource_version_but_put_may_create(
    api: Api, namespace: str
) -> None:
    made = await api.put(path(namespace, "put"), lease("put"))
    assert made.status == 201, made.body
    unconditional = await api.put(path(namespace, "put"), lease("put", leaseTransitions=1))
    assert causes(unconditional) == [
        ("metadata.resourceVersion", "Invalid value: 0x0: must be specified for an update")
    ]
    # The generic store names the resource where other refusals name the kind.
    assert unconditional.body["message"] == (
        'leases.coordination.k8s.io "put" is invalid: metadata.resourceVersion: Invalid value: '
        "0x0: must be specified for an update"
    )
    assert unconditional.body["details"]["kind"] == "leases"
    body = made.body
    body["spec"]["leaseTransitions"] = 1
    renewed = await api.put(path(namespace, "put"), body)
    assert renewed.status == 200, renewed.body
    assert renewed.body["spec"]["leaseTransitions"] == 1
