"""Metadata accessors read typed and dict objects alike."""

from __future__ import annotations

from kubeforge.core.meta import ObjectMeta, OwnerReference
from kubeforge.core.objects import key_of, labels_of, owner_references_of, resource_version_of
from kubeforge.core.refs import ObjectKey
from kubeforge.models.core_v1 import ConfigMap


def test_dict_and_typed_objects_give_the_same_metadata() -> None:
    raw = {
        "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "7", "labels": {"x": "1"}}
    }
    typed = ConfigMap(
        metadata=ObjectMeta(name="a", namespace="ns", resource_version="7", labels={"x": "1"})
    )
    for obj in (raw, typed):
        assert key_of(obj) == ObjectKey("ns", "a")
        assert resource_version_of(obj) == "7"
        assert labels_of(obj) == {"x": "1"}


def test_owner_references_of_a_dict_keep_fields_the_model_does_not_know() -> None:
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "futureField": 1}
    (owner,) = owner_references_of({"metadata": {"ownerReferences": [ref]}})
    assert isinstance(owner, OwnerReference)
    assert (owner.kind, owner.name, owner.uid) == ("Pod", "p", "u")
    assert owner.unknown_fields_ == {"futureField": 1}
