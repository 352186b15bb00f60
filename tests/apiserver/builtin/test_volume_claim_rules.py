"""PersistentVolumeClaims and PersistentVolumes are defaulted, validated and warned of as
1.32's validation and strategies do, over HTTP. Storage is under test, so the server runs
no volume binder (``storage_api``): only the test writes these objects."""

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


def claim(name: str, **spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
    }
    return {"metadata": {"name": name}, "spec": {**base, **spec}}


def volume(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "capacity": {"storage": "1Gi"},
        "accessModes": ["ReadWriteOnce"],
        "hostPath": {"path": "/data"},
    }
    name = "pv-" + uuid.uuid4().hex[:8]
    return {"metadata": {"name": name}, "spec": {**base, **spec}}


def claims_path(namespace: str, name: str = "") -> str:
    base = f"/api/v1/namespaces/{namespace}/persistentvolumeclaims"
    return f"{base}/{name}" if name else base


async def test_a_claim_needs_known_access_modes_and_a_positive_request(
    api: Api, namespace: str
) -> None:
    body = claim(
        "bad",
        accessModes=["ReadWriteOncePod", "ReadWriteMany", "WriteSometimes"],
        resources={"requests": {"storage": "0"}},
        storageClassName="Fast_Class",
        volumeMode="Raw",
    )
    found = causes(await api.post(claims_path(namespace), body))
    modes = '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'
    assert found[:3] == [
        ("spec.accessModes", f'Unsupported value: "WriteSometimes": supported values: {modes}'),
        ("spec.accessModes", "Forbidden: may not use ReadWriteOncePod with other access modes"),
        ("spec.resources[storage]", 'Invalid value: "0": must be greater than zero'),
    ]
    assert found[3][0] == "spec.storageClassName"
    assert found[3][1].startswith('Invalid value: "Fast_Class": a lowercase RFC 1123 subdomain')
    assert found[4] == (
        "spec.volumeMode",
        'Unsupported value: "Raw": supported values: "Block", "Filesystem"',
    )
    empty = causes(await api.post(claims_path(namespace), {"metadata": {"name": "e"}, "spec": {}}))
    assert empty == [
        ("spec.accessModes", "Required value: at least 1 access mode is required"),
        ("spec.resources[storage]", "Required value"),
    ]


async def test_data_sources_mirror_each_other_and_must_agree(api: Api, namespace: str) -> None:
    source = {"kind": "PersistentVolumeClaim", "name": "origin"}
    created = await api.post(claims_path(namespace), claim("clone", dataSource=source))
    assert created.status == 201, created.body
    assert created.body["spec"]["dataSourceRef"] == source
    snapshot = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "s"}
    mirrored = await api.post(claims_path(namespace), claim("snap", dataSourceRef=snapshot))
    assert mirrored.body["spec"]["dataSource"] == snapshot
    clash = claim("clash", dataSource=source, dataSourceRef=snapshot)
    assert causes(await api.post(claims_path(namespace), clash)) == [
        ("spec", "Invalid value: spec.dataSource: must match dataSourceRef")
    ]
    wrong = claim("wrong", dataSource={"kind": "Secret", "name": ""})
    assert causes(await api.post(claims_path(namespace), wrong))[:2] == [
        ("spec.dataSource.name", "Required value"),
        (
            "spec.dataSource",
            "Invalid value: \"Secret\": must be 'PersistentVolumeClaim' when referencing the "
            "default apiGroup",
        ),
    ]


async def test_a_claim_spec_is_immutable_but_for_a_bound_claims_request(
    api: Api, namespace: str
) -> None:
    # A class that allows expansion: the PersistentVolumeClaimResize plugin asks for one.
    expandable = {
        "metadata": {"name": f"grow-{namespace}"},
        "provisioner": "example.com/disk",
        "allowVolumeExpansion": True,
    }
    assert (await api.post("/apis/storage.k8s.io/v1/storageclasses", expandable)).status == 201
    body = claim("data", storageClassName=f"grow-{namespace}")
    assert (await api.post(claims_path(namespace), body)).status == 201
    path = claims_path(namespace, "data")
    grown = await api.patch(path, {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, MERGE)
    assert grown.status == 422
    (field, message), *_ = causes(grown)
    assert field == "spec"
    assert message.startswith(
        "Forbidden: spec is immutable after creation except resources.requests and "
        "volumeAttributesClassName for bound claims\n"
    )
    # Binding: the volume name may be set once, and a bound claim's request may grow.
    named = await api.patch(path, {"spec": {"volumeName": "pv-1"}}, MERGE)
    assert named.status == 200, named.body
    status = {"status": {"phase": "Bound", "capacity": {"storage": "1Gi"}}}
    assert (await api.patch(f"{path}/status", status, MERGE)).status == 200
    grown = await api.patch(path, {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, MERGE)
    assert grown.status == 200, grown.body
    shrunk = await api.patch(path, {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}, MERGE)
    assert causes(shrunk) == [
        (
            "spec.resources.requests.storage",
            "Forbidden: field can not be less than status.capacity",
        )
    ]
    renamed = await api.patch(path, {"spec": {"volumeName": "pv-2"}}, MERGE)
    assert causes(renamed)[0][0] == "spec"


async def test_claim_status_writes_are_checked_by_the_status_rules(
    api: Api, namespace: str
) -> None:
    assert (await api.post(claims_path(namespace), claim("st"))).status == 201
    status = {
        "status": {
            "capacity": {"storage": "-1Gi"},
            "allocatedResourceStatuses": {"storage": "Resizing"},
        }
    }
    reply = await api.patch(f"{claims_path(namespace, 'st')}/status", status, MERGE)
    supported = (
        '"ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", '
        '"NodeResizeInfeasible", "NodeResizePending"'
    )
    assert causes(reply) == [
        (
            "status.capacity[storage]",
            "Invalid value: -1073741824: must be a valid resource quantity",
        ),
        (
            "status.allocatedResourceStatus",
            f'Unsupported value: "storage": supported values: {supported}',
        ),
    ]


async def test_claims_warn_of_fractional_bytes_and_the_beta_class_annotation(
    api: Api, namespace: str
) -> None:
    body = claim("frac", resources={"requests": {"storage": "1.5"}})
    body["metadata"]["annotations"] = {"volume.beta.kubernetes.io/storage-class": "x"}
    reply = await api.post(claims_path(namespace), body)
    assert reply.status == 201, reply.body
    assert reply.headers.getall("Warning") == [
        '299 - "metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since '
        'v1.8; use \\"storageClassName\\" attribute instead"',
        '299 - "spec.resources.requests[storage]: fractional byte value \\"1500m\\" is invalid, '
        'must be an integer"',
    ]


async def test_a_volume_needs_one_source_a_storage_capacity_and_known_policies(api: Api) -> None:
    body = volume(
        capacity={"storage": "1Gi", "cpu": "1"},
        persistentVolumeReclaimPolicy="Keep",
        nfs={"server": "nfs.example", "path": "exports"},
    )
    found = causes(await api.post("/api/v1/persistentvolumes", body))
    assert found[0][0] == "spec.capacity"
    assert found[0][1].startswith("Unsupported value: core.ResourceList{")
    assert found[0][1].endswith('supported values: "storage"')
    assert found[1:] == [
        (
            "spec.persistentVolumeReclaimPolicy",
            'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
        ),
        ("spec.nfs", "Forbidden: may not specify more than 1 volume type"),
    ]
    local = volume(hostPath=None, local={"path": "/mnt/../etc"})
    assert causes(await api.post("/api/v1/persistentvolumes", local)) == [
        ("spec.local.path", "Invalid value: \"/mnt/../etc\": must not contain '..'"),
        ("spec.nodeAffinity", "Required value: Local volume requires node affinity"),
    ]
    none = volume(hostPath=None)
    assert causes(await api.post("/api/v1/persistentvolumes", none)) == [
        ("spec", "Required value: must specify a volume type")
    ]


async def test_a_volume_source_never_changes_and_its_phase_time_is_kept(api: Api) -> None:
    body = volume(persistentVolumeReclaimPolicy="Recycle")
    created = await api.post("/api/v1/persistentvolumes", body)
    assert created.status == 201, created.body
    assert created.headers["Warning"].startswith(
        '299 - "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated.'
    )
    assert created.body["spec"]["hostPath"] == {"path": "/data", "type": ""}
    stamped = created.body["status"]["lastPhaseTransitionTime"]
    assert created.body["status"]["phase"] == "Pending"
    path = f"/api/v1/persistentvolumes/{body['metadata']['name']}"
    moved = await api.patch(path, {"spec": {"hostPath": {"path": "/other"}}}, MERGE)
    assert causes(moved)[0][0] == "spec.persistentvolumesource"
    assert causes(moved)[0][1].startswith(
        "Forbidden: spec.persistentvolumesource is immutable after creation\n"
    )
    labelled = await api.patch(path, {"metadata": {"labels": {"a": "b"}}}, MERGE)
    assert labelled.body["status"]["lastPhaseTransitionTime"] == stamped
    available = await api.patch(f"{path}/status", {"status": {"phase": "Available"}}, MERGE)
    assert available.status == 200, available.body
    assert available.body["status"]["lastPhaseTransitionTime"] >= stamped
