"""Owner and controller references: set, replace, refuse a second controller, scope rules."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.controller import (
    AlreadyOwnedError,
    controller_of,
    has_owner_reference,
    remove_owner_reference,
    set_controller_reference,
    set_owner_reference,
)
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.apps_v1 import Deployment, ReplicaSet
from kubeforge.models.core_v1 import ConfigMap, Namespace, Pod


def meta(name: str, namespace: str | None = "ns", uid: str | None = None) -> ObjectMeta:
    return ObjectMeta(name=name, namespace=namespace, uid=uid)


def test_a_controller_reference_carries_the_owner_identity_and_blocks_deletion():
    owner = ReplicaSet(metadata=meta("rs", uid="uid-rs"))
    pod = Pod(metadata=meta("pod"))
    set_controller_reference(owner, pod)
    [ref] = pod.metadata.owner_references or []
    assert (ref.api_version, ref.kind, ref.name, ref.uid) == (
        "apps/v1",
        "ReplicaSet",
        "rs",
        "uid-rs",
    )
    assert ref.controller is True and ref.block_owner_deletion is True
    assert controller_of(pod) == ref


def test_setting_the_same_controller_again_replaces_its_reference():
    pod = Pod(metadata=meta("pod"))
    set_controller_reference(ReplicaSet(metadata=meta("rs", uid="old")), pod)
    newer = ReplicaSet(api_version="apps/v2", metadata=meta("rs", uid="new"))
    set_controller_reference(newer, pod, block_owner_deletion=False)
    [ref] = pod.metadata.owner_references or []
    assert (ref.api_version, ref.uid, ref.block_owner_deletion) == ("apps/v2", "new", False)


def test_a_second_controller_is_refused_with_already_owned():
    pod = Pod(metadata=meta("pod"))
    set_controller_reference(ReplicaSet(metadata=meta("first", uid="1")), pod)
    with pytest.raises(
        AlreadyOwnedError, match="ns/pod is already owned by another ReplicaSet controller first"
    ) as err:
        set_controller_reference(ReplicaSet(metadata=meta("second", uid="2")), pod)
    assert err.value.owner.name == "first"
    set_owner_reference(Deployment(metadata=meta("also", uid="3")), pod)  # a plain owner is fine
    assert [r.name for r in pod.metadata.owner_references or []] == ["first", "also"]


def test_owner_references_keep_an_existing_controller_flag_and_can_be_removed():
    owner = ReplicaSet(metadata=meta("rs", uid="1"))
    pod = Pod(metadata=meta("pod"))
    set_controller_reference(owner, pod)
    set_owner_reference(owner, pod)
    assert controller_of(pod) is not None
    assert has_owner_reference(pod, owner)
    assert remove_owner_reference(owner, pod)
    assert not remove_owner_reference(owner, pod)
    assert pod.metadata.owner_references is None
    assert not has_owner_reference(pod, owner)


@pytest.mark.parametrize(
    ("owner_ns", "obj_ns", "message"),
    [
        ("a", "b", "cross-namespace owner references are disallowed"),
        ("a", None, "cluster-scoped resource must not have a namespace-scoped owner"),
    ],
)
def test_a_namespaced_owner_must_share_the_dependent_namespace(owner_ns, obj_ns, message):
    owner = ConfigMap(metadata=meta("cm", owner_ns, uid="1"))
    with pytest.raises(ValueError, match=message):
        set_controller_reference(owner, Pod(metadata=meta("pod", obj_ns)))


def test_cluster_scoped_owners_may_own_anything_and_owners_need_a_uid():
    cluster_owner = Namespace(metadata=meta("team", None, uid="1"))
    pod = Pod(metadata=meta("pod", "team"))
    set_owner_reference(cluster_owner, pod)
    assert [r.kind for r in pod.metadata.owner_references or []] == ["Namespace"]
    with pytest.raises(ValueError, match="has no uid"):
        set_owner_reference(ReplicaSet(metadata=meta("rs")), pod)


def test_dict_objects_get_camel_case_references():
    owner: dict[str, Any] = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns", "uid": "u"},
    }
    dependent: dict[str, Any] = {"metadata": {"name": "d", "namespace": "ns"}}
    set_controller_reference(owner, dependent)
    assert dependent["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "name": "w",
            "uid": "u",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert remove_owner_reference(owner, dependent)
    assert "ownerReferences" not in dependent["metadata"]
