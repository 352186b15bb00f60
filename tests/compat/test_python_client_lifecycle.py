"""The official ``kubernetes`` package on deletion, paging, field selectors and CRD rules."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import watch
from kubernetes.client.rest import ApiException

WATCH_TIMEOUT_SECONDS = 20  # an upper bound so a missing event fails instead of hanging


def _config_map(name: str, owner: Any = None, finalizers: list[str] | None = None) -> Any:
    refs = None
    if owner is not None:
        refs = [
            k8s.V1OwnerReference(
                api_version="v1",
                kind="ConfigMap",
                name=owner.metadata.name,
                uid=owner.metadata.uid,
                block_owner_deletion=True,
            )
        ]
    meta = k8s.V1ObjectMeta(name=name, owner_references=refs, finalizers=finalizers)
    return k8s.V1ConfigMap(metadata=meta, data={"k": "v"})


def _wait_deleted(core_v1: Any, namespace: str, name: str, start: str) -> None:
    stream = watch.Watch()
    for event in stream.stream(
        core_v1.list_namespaced_config_map,
        namespace,
        field_selector=f"metadata.name={name}",
        resource_version=start,
        timeout_seconds=WATCH_TIMEOUT_SECONDS,
    ):
        if event["type"] == "DELETED":
            stream.stop()
            return
    raise AssertionError(f"{name} was not deleted")


def test_foreground_delete_through_delete_options_removes_children_first(
    core_v1: Any, namespace: str
) -> None:
    owner = core_v1.create_namespaced_config_map(namespace, _config_map("owner"))
    core_v1.create_namespaced_config_map(namespace, _config_map("child", owner))
    start = core_v1.list_namespaced_config_map(namespace).metadata.resource_version
    # The answer is the marked object, which this client hands back undecoded (it expects
    # a Status from delete calls).
    marked = core_v1.delete_namespaced_config_map(
        "owner", namespace, body=k8s.V1DeleteOptions(propagation_policy="Foreground")
    )
    assert marked["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert marked["metadata"]["deletionTimestamp"]
    _wait_deleted(core_v1, namespace, "owner", start)
    with pytest.raises(ApiException) as missing:
        core_v1.read_namespaced_config_map("child", namespace)
    assert missing.value.status == 404


def test_a_failed_uid_precondition_is_a_conflict(core_v1: Any, namespace: str) -> None:
    core_v1.create_namespaced_config_map(namespace, _config_map("guarded"))
    options = k8s.V1DeleteOptions(preconditions=k8s.V1Preconditions(uid=str(uuid.uuid4())))
    with pytest.raises(ApiException) as conflict:
        core_v1.delete_namespaced_config_map("guarded", namespace, body=options)
    assert conflict.value.status == 409
    body = json.loads(conflict.value.body)
    assert body["reason"] == "Conflict"
    assert "the UID in the precondition" in body["message"]


def test_finalizers_hold_an_object_until_a_patch_removes_them(core_v1: Any, namespace: str) -> None:
    core_v1.create_namespaced_config_map(
        namespace, _config_map("held", finalizers=["example.com/hold"])
    )
    start = core_v1.list_namespaced_config_map(namespace).metadata.resource_version
    core_v1.delete_namespaced_config_map("held", namespace)
    held = core_v1.read_namespaced_config_map("held", namespace)
    assert held.metadata.deletion_timestamp is not None
    core_v1.patch_namespaced_config_map("held", namespace, {"metadata": {"finalizers": None}})
    _wait_deleted(core_v1, namespace, "held", start)


def test_paging_with_continue_visits_every_object_once(core_v1: Any, namespace: str) -> None:
    for i in range(7):
        core_v1.create_namespaced_config_map(namespace, _config_map(f"page-{i}"))
    names: list[str] = []
    token = None
    while True:
        page = core_v1.list_namespaced_config_map(namespace, limit=3, _continue=token)
        names += [item.metadata.name for item in page.items]
        token = page.metadata._continue
        if not token:
            break
    assert sorted(n for n in names if n.startswith("page-")) == [f"page-{i}" for i in range(7)]
    assert len(names) == len(set(names))


def test_a_cel_rule_rejection_reaches_the_client_with_its_field(
    api_client: Any, namespace: str
) -> None:
    extensions = k8s.ApiextensionsV1Api(api_client)
    plural = "r" + uuid.uuid4().hex[:8] + "s"
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "x-kubernetes-validations": [
                    {"rule": "self.replicas <= 5", "message": "at most five replicas"}
                ],
                "properties": {"replicas": {"type": "integer"}},
            }
        },
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.rules.example.com"},
        "spec": {
            "group": "rules.example.com",
            "names": {"plural": plural, "kind": "Ruled" + plural[1:5]},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }
    extensions.create_custom_resource_definition(crd)
    objects = k8s.CustomObjectsApi(api_client)
    body = {
        "apiVersion": "rules.example.com/v1",
        "kind": crd["spec"]["names"]["kind"],
        "metadata": {"name": "too-many"},
        "spec": {"replicas": 9},
    }
    with pytest.raises(ApiException) as invalid:
        objects.create_namespaced_custom_object("rules.example.com", "v1", namespace, plural, body)
    assert invalid.value.status == 422
    details = json.loads(invalid.value.body)["details"]
    assert details["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "object": at most five replicas',
            "field": "spec",
        }
    ]
    body["spec"]["replicas"] = 3
    created = objects.create_namespaced_custom_object(
        "rules.example.com", "v1", namespace, plural, body
    )
    assert created["spec"] == {"replicas": 3}
