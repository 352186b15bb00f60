"""The official ``kubernetes`` Python package, unchanged, against the local API server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

GROUP, VERSION, PLURAL = "example.com", "v1", "podtoips"
# Upper bound on how long a watch stream stays open, so a missing event fails the test
# instead of hanging it; nothing is asserted about timing.
WATCH_TIMEOUT_SECONDS = 20


def _config_map(name: str, **data: str) -> k8s.V1ConfigMap:
    return k8s.V1ConfigMap(metadata=k8s.V1ObjectMeta(name=name), data=data)


def _podtoip(name: str, address: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Podtoip",
        "metadata": {"name": name},
        "spec": {"podName": name, "podAddress": address},
    }


def test_version_api_reports_the_server(api_client: Any) -> None:
    info = k8s.VersionApi(api_client).get_code()
    assert (info.major, info.minor) == ("1", "32")


def test_listing_pods_in_a_new_namespace_gives_an_empty_list(core_v1: Any, namespace: str) -> None:
    pods = core_v1.list_namespaced_pod(namespace)
    assert pods.items == []
    assert pods.metadata.resource_version


def test_pods_can_be_created_read_and_deleted(core_v1: Any, namespace: str) -> None:
    body = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="web", labels={"app": "web"}),
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="app", image="nginx")]),
    )
    created = core_v1.create_namespaced_pod(namespace, body)
    assert created.metadata.uid
    assert created.metadata.namespace == namespace

    read = core_v1.read_namespaced_pod("web", namespace)
    assert read.metadata.uid == created.metadata.uid
    assert read.spec.containers[0].image == "nginx"
    labelled = core_v1.list_namespaced_pod(namespace, label_selector="app=web")
    assert [p.metadata.name for p in labelled.items] == ["web"]

    core_v1.delete_namespaced_pod("web", namespace, grace_period_seconds=0)
    with pytest.raises(ApiException) as caught:
        core_v1.read_namespaced_pod("web", namespace)
    assert caught.value.status == 404


def test_reading_a_missing_object_raises_not_found_with_a_status_body(
    core_v1: Any, namespace: str
) -> None:
    with pytest.raises(ApiException) as caught:
        core_v1.read_namespaced_config_map("absent", namespace)
    assert caught.value.status == 404
    assert caught.value.reason == "Not Found"
    assert '"reason":"NotFound"' in caught.value.body.replace(" ", "")


def test_watch_from_a_resource_version_streams_later_changes(core_v1: Any, namespace: str) -> None:
    start = core_v1.list_namespaced_config_map(namespace).metadata.resource_version
    core_v1.create_namespaced_config_map(namespace, _config_map("events", step="1"))
    core_v1.patch_namespaced_config_map("events", namespace, {"data": {"step": "2"}})
    core_v1.delete_namespaced_config_map("events", namespace)

    seen: list[tuple[str, str, str | None]] = []
    stream = watch.Watch()
    for event in stream.stream(
        core_v1.list_namespaced_config_map,
        namespace,
        resource_version=start,
        timeout_seconds=WATCH_TIMEOUT_SECONDS,
    ):
        obj = event["object"]
        seen.append((event["type"], obj.metadata.name, (obj.data or {}).get("step")))
        if event["type"] == "DELETED":
            stream.stop()
    assert seen == [
        ("ADDED", "events", "1"),
        ("MODIFIED", "events", "2"),
        ("DELETED", "events", "2"),
    ]


def test_custom_objects_api_round_trips_a_custom_resource(
    api_client: Any, namespace: str, crd_installed: str
) -> None:
    custom = k8s.CustomObjectsApi(api_client)
    created = custom.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, _podtoip("db-0", "10.0.0.1")
    )
    assert created["metadata"]["uid"]
    fetched = custom.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "db-0")
    assert fetched["spec"]["podAddress"] == "10.0.0.1"

    patched = custom.patch_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, "db-0", {"spec": {"podAddress": "10.0.0.2"}}
    )
    assert patched["spec"] == {"podName": "db-0", "podAddress": "10.0.0.2"}

    listed = custom.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)
    assert [item["metadata"]["name"] for item in listed["items"]] == ["db-0"]

    custom.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "db-0")
    with pytest.raises(ApiException) as caught:
        custom.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "db-0")
    assert caught.value.status == 404


def test_custom_objects_can_be_watched(api_client: Any, namespace: str, crd_installed: str) -> None:
    custom = k8s.CustomObjectsApi(api_client)
    start = custom.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)["metadata"][
        "resourceVersion"
    ]
    custom.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, _podtoip("w-0", "10.9.0.1")
    )
    stream = watch.Watch()
    for event in stream.stream(
        custom.list_namespaced_custom_object,
        GROUP,
        VERSION,
        namespace,
        PLURAL,
        resource_version=start,
        timeout_seconds=WATCH_TIMEOUT_SECONDS,
    ):
        assert event["type"] == "ADDED"
        assert event["object"]["metadata"]["name"] == "w-0"
        stream.stop()
        break
    else:
        pytest.fail("no event before the watch closed")


def test_dynamic_client_discovers_the_crd_through_legacy_discovery(
    api_client: Any, namespace: str, crd_installed: str, tmp_path: Path
) -> None:
    dynamic = DynamicClient(api_client, cache_file=str(tmp_path / "discovery.json"))
    podtoips = dynamic.resources.get(api_version=f"{GROUP}/{VERSION}", kind="Podtoip")
    assert (podtoips.name, podtoips.namespaced, podtoips.short_names) == ("podtoips", True, ["ptp"])
    podtoips.create(body=_podtoip("dyn-0", "10.7.0.1"), namespace=namespace)
    listed = podtoips.get(namespace=namespace)
    assert [item.metadata.name for item in listed.items] == ["dyn-0"]
    pods = dynamic.resources.get(api_version="v1", kind="Pod")
    assert pods.get(namespace=namespace).items == []
