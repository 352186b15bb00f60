"""Claims and volumes through the official ``kubernetes`` package, as a 1.32 cluster binds
and protects them: the selected node a WaitForFirstConsumer claim gets from its first pod,
the provisioner annotations, ``spec.volumeName`` pre-binding, the protection finalizers
that keep a claim in use and a bound volume, and the binder's events."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import until

PVC_FINALIZER = "kubernetes.io/pvc-protection"
PV_FINALIZER = "kubernetes.io/pv-protection"


def _claim(name: str, size: str = "1Gi", **spec: Any) -> k8s.V1PersistentVolumeClaim:
    return k8s.V1PersistentVolumeClaim(
        metadata=k8s.V1ObjectMeta(name=name),
        spec=k8s.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteOnce"],
            resources=k8s.V1VolumeResourceRequirements(requests={"storage": size}),
            **spec,
        ),
    )


def _pod_using(name: str, claim: str) -> k8s.V1Pod:
    source = k8s.V1PersistentVolumeClaimVolumeSource(claim_name=claim)
    return k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name=name),
        spec=k8s.V1PodSpec(
            containers=[k8s.V1Container(name="main", image="nginx")],
            volumes=[k8s.V1Volume(name="data", persistent_volume_claim=source)],
        ),
    )


def _volume(name: str, size: str, storage_class: str) -> k8s.V1PersistentVolume:
    return k8s.V1PersistentVolume(
        metadata=k8s.V1ObjectMeta(name=name),
        spec=k8s.V1PersistentVolumeSpec(
            capacity={"storage": size},
            access_modes=["ReadWriteOnce"],
            storage_class_name=storage_class,
            persistent_volume_reclaim_policy="Retain",
            host_path=k8s.V1HostPathVolumeSource(path=f"/tmp/{name}"),
        ),
    )


def _events(core: Any, namespace: str, name: str) -> list[tuple[str, str, str]]:
    items = core.list_namespaced_event(namespace, field_selector=f"involvedObject.name={name}")
    return [(e.type, e.reason, e.message) for e in items.items]


def _gone(read: Any) -> bool:
    try:
        read()
    except ApiException as error:
        return bool(error.status == 404)
    return False


def test_a_claim_in_use_is_protected_until_its_pod_goes(core_v1: Any, namespace: str) -> None:
    core = core_v1
    core.create_namespaced_persistent_volume_claim(namespace, _claim("home"))
    pending = until(
        lambda: core.read_namespaced_persistent_volume_claim("home", namespace),
        lambda c: PVC_FINALIZER in (c.metadata.finalizers or []),
    )
    assert pending.status.phase == "Pending"
    core.create_namespaced_pod(namespace, _pod_using("user", "home"))
    bound = until(
        lambda: core.read_namespaced_persistent_volume_claim("home", namespace),
        lambda c: c.status.phase == "Bound",
    )
    notes = bound.metadata.annotations
    assert notes["volume.kubernetes.io/selected-node"] == "kubeforge-node-0"
    assert notes["volume.kubernetes.io/storage-provisioner"] == "kubeforge.dev/hostpath"
    assert notes["pv.kubernetes.io/bound-by-controller"] == "yes"
    volume = until(
        lambda: core.read_persistent_volume(bound.spec.volume_name),
        lambda v: PV_FINALIZER in (v.metadata.finalizers or []),
    )
    assert (volume.status.phase, volume.spec.claim_ref.name) == ("Bound", "home")
    assert "pv.kubernetes.io/bound-by-controller" not in (volume.metadata.annotations or {})

    core.delete_namespaced_persistent_volume_claim("home", namespace)
    held = core.read_namespaced_persistent_volume_claim("home", namespace)
    assert held.metadata.deletion_timestamp is not None
    assert held.metadata.finalizers == [PVC_FINALIZER]
    core.delete_namespaced_pod("user", namespace, grace_period_seconds=0)
    until(
        lambda: _gone(lambda: core.read_namespaced_persistent_volume_claim("home", namespace)), bool
    )
    until(lambda: _gone(lambda: core.read_persistent_volume(bound.spec.volume_name)), bool)


@pytest.fixture
def static_volume(core_v1: Any, namespace: str) -> Any:
    name = f"{namespace}-static"
    core_v1.create_persistent_volume(_volume(name, "2Gi", "manual"))
    yield name
    core_v1.delete_persistent_volume(name)


def test_a_claim_naming_its_volume_binds_to_it(
    core_v1: Any, namespace: str, static_volume: str
) -> None:
    core = core_v1
    until(
        lambda: core.read_persistent_volume(static_volume), lambda v: v.status.phase == "Available"
    )
    claim = _claim("named", volume_name=static_volume, storage_class_name="manual")
    core.create_namespaced_persistent_volume_claim(namespace, claim)
    bound = until(
        lambda: core.read_namespaced_persistent_volume_claim("named", namespace),
        lambda c: c.status.phase == "Bound",
    )
    assert bound.metadata.annotations == {"pv.kubernetes.io/bind-completed": "yes"}
    assert bound.status.capacity == {"storage": "2Gi"}
    volume = core.read_persistent_volume(static_volume)
    assert volume.metadata.annotations == {"pv.kubernetes.io/bound-by-controller": "yes"}
    assert (volume.spec.claim_ref.namespace, volume.spec.claim_ref.uid) == (
        namespace,
        bound.metadata.uid,
    )
    core.delete_namespaced_persistent_volume_claim("named", namespace)
    released = until(
        lambda: core.read_persistent_volume(static_volume), lambda v: v.status.phase == "Released"
    )
    assert released.spec.persistent_volume_reclaim_policy == "Retain"


def test_the_binder_says_why_a_claim_stays_pending(
    core_v1: Any, namespace: str, static_volume: str
) -> None:
    core = core_v1
    big = _claim("big", size="5Gi", volume_name=static_volume, storage_class_name="manual")
    core.create_namespaced_persistent_volume_claim(namespace, big)
    core.create_namespaced_persistent_volume_claim(
        namespace, _claim("classless", storage_class_name="")
    )
    core.create_namespaced_persistent_volume_claim(
        namespace, _claim("lost", storage_class_name="gold")
    )
    expected = {
        "big": (
            "Warning",
            "VolumeMismatch",
            f'Cannot bind to requested volume "{static_volume}": requested PV is too small',
        ),
        "classless": (
            "Normal",
            "FailedBinding",
            "no persistent volumes available for this claim and no storage class is set",
        ),
        "lost": ("Warning", "ProvisioningFailed", 'storageclass.storage.k8s.io "gold" not found'),
    }
    for name, event in expected.items():
        until(lambda name=name: _events(core, namespace, name), lambda seen, e=event: e in seen)
        claim = core.read_namespaced_persistent_volume_claim(name, namespace)
        assert claim.status.phase == "Pending"


def test_a_class_of_another_provisioner_waits_for_it(core_v1: Any, namespace: str) -> None:
    storage = k8s.StorageV1Api(core_v1.api_client)
    name = f"{namespace}-nfs"
    storage.create_storage_class(
        k8s.V1StorageClass(
            metadata=k8s.V1ObjectMeta(name=name),
            provisioner="example.com/nfs",
            volume_binding_mode="Immediate",
        )
    )
    try:
        core_v1.create_namespaced_persistent_volume_claim(
            namespace, _claim("shared", storage_class_name=name)
        )
        waiting = until(
            lambda: core_v1.read_namespaced_persistent_volume_claim("shared", namespace),
            lambda c: "volume.kubernetes.io/storage-provisioner" in (c.metadata.annotations or {}),
        )
        notes = waiting.metadata.annotations
        assert notes["volume.kubernetes.io/storage-provisioner"] == "example.com/nfs"
        assert notes["volume.beta.kubernetes.io/storage-provisioner"] == "example.com/nfs"
        message = (
            "Waiting for a volume to be created either by the external provisioner "
            "'example.com/nfs' or manually by the system administrator. If volume creation is "
            "delayed, please verify that the provisioner is running and correctly registered."
        )
        until(
            lambda: _events(core_v1, namespace, "shared"),
            lambda seen: ("Normal", "ExternalProvisioning", message) in seen,
        )
        assert waiting.status.phase == "Pending"
    finally:
        storage.delete_storage_class(name)
