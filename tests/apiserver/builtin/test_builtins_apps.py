"""apps/v1 workloads as stored resources: real defaults, validation, generation, /status, /scale.

Storage alone is under test, so the server runs no workload controller
(``storage_api``), as under envtest: what a test writes to ``/status`` stays.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from kf_apps import path, workload
from kf_http import Api

MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


@pytest.fixture
def api(storage_api: Api) -> Api:
    return storage_api


async def test_a_deployment_gets_the_real_defaults_and_an_empty_status(
    api: Api, namespace: str
) -> None:
    reply = await api.post(path(namespace, "deployments"), workload("Deployment", "web"))
    assert reply.status == 201, reply.body
    spec = reply.body["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
    }
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    pod_spec = spec["template"]["spec"]
    assert pod_spec["restartPolicy"] == "Always"
    assert pod_spec["terminationGracePeriodSeconds"] == 30
    assert pod_spec["dnsPolicy"] == "ClusterFirst"
    assert pod_spec["schedulerName"] == "default-scheduler"
    assert pod_spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert pod_spec["containers"][0]["terminationMessagePath"] == "/dev/termination-log"
    assert "priority" not in pod_spec  # pod-only defaults stay off templates
    assert reply.body["status"] == {}
    assert reply.body["metadata"]["generation"] == 1


async def test_a_recreate_strategy_gets_no_rolling_update_defaults(
    api: Api, namespace: str
) -> None:
    body = workload("Deployment", "batch", strategy={"type": "Recreate"})
    reply = await api.post(path(namespace, "deployments"), body)
    assert reply.status == 201, reply.body
    assert reply.body["spec"]["strategy"] == {"type": "Recreate"}


async def test_status_sent_on_create_is_dropped_and_only_status_writes_it(
    api: Api, namespace: str
) -> None:
    body = workload("Deployment", "web")
    body["status"] = {"replicas": 5}
    created = await api.post(path(namespace, "deployments"), body)
    assert created.body["status"] == {}
    status = {"status": {"replicas": 1, "readyReplicas": 1, "observedGeneration": 1}}
    patched = await api.patch(path(namespace, "deployments", "web", "status"), status, MERGE)
    assert patched.status == 200, patched.body
    assert patched.body["status"]["readyReplicas"] == 1
    assert patched.body["metadata"]["generation"] == 1  # status never moves generation
    ignored = await api.patch(path(namespace, "deployments", "web"), {"status": {}}, MERGE)
    assert ignored.body["status"]["readyReplicas"] == 1


async def test_generation_moves_on_spec_changes_only(api: Api, namespace: str) -> None:
    await api.post(path(namespace, "deployments"), workload("Deployment", "web"))
    labelled = await api.patch(
        path(namespace, "deployments", "web"), {"metadata": {"labels": {"x": "1"}}}, MERGE
    )
    assert labelled.body["metadata"]["generation"] == 1
    image = [{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "a:2"}]
    changed = await api.patch(path(namespace, "deployments", "web"), image, JSON_PATCH)
    assert changed.status == 200, changed.body
    assert changed.body["metadata"]["generation"] == 2


async def test_scale_reads_and_writes_replicas_with_the_selector_as_a_string(
    api: Api, namespace: str
) -> None:
    await api.post(path(namespace, "deployments"), workload("Deployment", "web"))
    scale = await api.get(path(namespace, "deployments", "web", "scale"))
    assert scale.status == 200
    assert scale.body["kind"] == "Scale"
    assert scale.body["apiVersion"] == "autoscaling/v1"
    assert scale.body["spec"] == {"replicas": 1}
    assert scale.body["status"] == {"replicas": 0, "selector": "app=web"}
    scaled = await api.patch(
        path(namespace, "deployments", "web", "scale"), {"spec": {"replicas": 4}}, MERGE
    )
    assert scaled.body["spec"]["replicas"] == 4
    deployment = await api.get(path(namespace, "deployments", "web"))
    assert deployment.body["spec"]["replicas"] == 4
    assert deployment.body["metadata"]["generation"] == 2


async def test_scale_put_with_a_stale_resource_version_is_409(api: Api, namespace: str) -> None:
    created = await api.post(path(namespace, "statefulsets"), workload("StatefulSet", "db"))
    rv = created.body["metadata"]["resourceVersion"]
    await api.patch(path(namespace, "statefulsets", "db"), {"spec": {"replicas": 2}}, MERGE)
    stale = {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": "db", "resourceVersion": rv},
        "spec": {"replicas": 3},
    }
    reply = await api.put(path(namespace, "statefulsets", "db", "scale"), stale)
    assert reply.status == 409
    assert reply.reason == "Conflict"


async def test_a_scale_patch_applies_to_the_object_as_it_is_when_the_body_arrives(
    api: Api, namespace: str
) -> None:
    # A PATCH names no resourceVersion: a write that lands while its body is on the
    # way (here a controller's /status write) must not make it a 409.
    await api.post(path(namespace, "deployments"), workload("Deployment", "web"))
    body = json.dumps({"spec": {"replicas": 3}}).encode()
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", api.server.port, ssl=api.server.ssl_context()
    )
    head = (
        f"PATCH {path(namespace, 'deployments', 'web', 'scale')} HTTP/1.1\r\n"
        f"Host: 127.0.0.1\r\nAuthorization: Bearer {api.server.token}\r\n"
        f"Content-Type: {MERGE}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode())
    await writer.drain()
    await asyncio.sleep(0.3)  # the server has the request's headers and waits for its body
    status = {"status": {"observedGeneration": 1}}
    written = await api.patch(path(namespace, "deployments", "web", "status"), status, MERGE)
    assert written.status == 200
    writer.write(body)
    answer = await reader.read()
    writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 200 OK", answer
    assert json.loads(rest.partition(b"\r\n\r\n")[2])["spec"]["replicas"] == 3


async def test_a_scale_patch_naming_a_stale_resource_version_is_409(
    api: Api, namespace: str
) -> None:
    created = await api.post(path(namespace, "deployments"), workload("Deployment", "web"))
    rv = created.body["metadata"]["resourceVersion"]
    await api.patch(path(namespace, "deployments", "web"), {"spec": {"paused": True}}, MERGE)
    patch = {"metadata": {"resourceVersion": rv}, "spec": {"replicas": 3}}
    reply = await api.patch(path(namespace, "deployments", "web", "scale"), patch, MERGE)
    assert reply.status == 409
    assert reply.reason == "Conflict"


async def test_a_selector_that_misses_the_template_labels_is_422(api: Api, namespace: str) -> None:
    body = workload("Deployment", "web")
    body["spec"]["selector"] = {"matchLabels": {"app": "other"}}
    reply = await api.post(path(namespace, "deployments"), body)
    assert reply.status == 422
    cause = reply.body["details"]["causes"][0]
    assert cause["field"] == "spec.template.metadata.labels"
    assert "`selector` does not match template `labels`" in cause["message"]
    assert reply.body["message"].startswith('Deployment.apps "web" is invalid:')


async def test_missing_selector_template_errors_use_template_field_paths(
    api: Api, namespace: str
) -> None:
    body = workload("Deployment", "web")
    del body["spec"]["selector"]
    body["spec"]["template"]["spec"]["containers"][0]["name"] = "Bad_Name"
    body["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    reply = await api.post(path(namespace, "deployments"), body)
    assert reply.status == 422
    fields = {c["field"]: c["reason"] for c in reply.body["details"]["causes"]}
    assert fields["spec.selector"] == "FieldValueRequired"
    assert fields["spec.template.spec.containers[0].name"] == "FieldValueInvalid"
    assert fields["spec.template.spec.restartPolicy"] == "FieldValueNotSupported"


async def test_rolling_update_rejects_zero_surge_with_zero_unavailable(
    api: Api, namespace: str
) -> None:
    rolling = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}}
    reply = await api.post(
        path(namespace, "deployments"), workload("Deployment", "web", strategy=rolling)
    )
    assert reply.status == 422
    assert reply.body["details"]["causes"][0]["field"] == (
        "spec.strategy.rollingUpdate.maxUnavailable"
    )


async def test_the_selector_of_a_workload_is_immutable(api: Api, namespace: str) -> None:
    await api.post(path(namespace, "replicasets"), workload("ReplicaSet", "rs"))
    change = {"spec": {"selector": {"matchLabels": {"app": "rs", "tier": "x"}}}}
    reply = await api.patch(path(namespace, "replicasets", "rs"), change, MERGE)
    assert reply.status == 422
    assert any(
        c["field"] == "spec.selector" and "field is immutable" in c["message"]
        for c in reply.body["details"]["causes"]
    )


async def test_statefulsets_get_their_defaults_and_refuse_changes_outside_the_mutable_set(
    api: Api, namespace: str
) -> None:
    created = await api.post(
        path(namespace, "statefulsets"), workload("StatefulSet", "db", serviceName="db")
    )
    assert created.status == 201, created.body
    spec = created.body["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {
        "whenDeleted": "Retain",
        "whenScaled": "Retain",
    }
    assert created.body["status"] == {"replicas": 0, "availableReplicas": 0}
    reply = await api.patch(
        path(namespace, "statefulsets", "db"), {"spec": {"serviceName": "x"}}, MERGE
    )
    assert reply.status == 422
    assert "updates to statefulset spec for fields other than" in reply.body["message"]
    replicas = await api.patch(
        path(namespace, "statefulsets", "db"), {"spec": {"replicas": 3}}, MERGE
    )
    assert replicas.status == 200


async def test_daemonsets_and_replicasets_get_their_defaults_and_status(
    api: Api, namespace: str
) -> None:
    daemon = await api.post(path(namespace, "daemonsets"), workload("DaemonSet", "agent"))
    assert daemon.status == 201, daemon.body
    assert daemon.body["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
    }
    assert daemon.body["status"]["desiredNumberScheduled"] == 0
    replicas = await api.post(path(namespace, "replicasets"), workload("ReplicaSet", "rs"))
    assert replicas.body["spec"]["replicas"] == 1
    assert replicas.body["status"] == {"replicas": 0}
    no_scale = await api.get(path(namespace, "daemonsets", "agent", "scale"))
    assert no_scale.status == 404


async def test_replicasets_select_on_status_replicas(api: Api, namespace: str) -> None:
    await api.post(path(namespace, "replicasets"), workload("ReplicaSet", "a"))
    await api.post(path(namespace, "replicasets"), workload("ReplicaSet", "b"))
    await api.patch(
        path(namespace, "replicasets", "b", "status"), {"status": {"replicas": 2}}, MERGE
    )
    reply = await api.get(path(namespace, "replicasets"), fieldSelector="status.replicas=2")
    assert [i["metadata"]["name"] for i in reply.body["items"]] == ["b"]
    refused = await api.get(path(namespace, "deployments"), fieldSelector="spec.replicas=1")
    assert refused.status == 400


async def test_deployments_print_ready_up_to_date_and_available(api: Api, namespace: str) -> None:
    await api.post(path(namespace, "deployments"), workload("Deployment", "web", replicas=3))
    # 1.32 refuses ready, updated or available counts above status.replicas.
    counts = {"replicas": 3, "readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}
    status = {"status": counts}
    written = await api.patch(path(namespace, "deployments", "web", "status"), status, MERGE)
    assert written.status == 200, written.body
    reply = await api.request("GET", path(namespace, "deployments"), headers={"Accept": TABLE})
    assert reply.body["kind"] == "Table"
    names = [c["name"] for c in reply.body["columnDefinitions"]]
    assert names[:5] == ["Name", "Ready", "Up-to-date", "Available", "Age"]
    cells = reply.body["rows"][0]["cells"]
    assert cells[:4] == ["web", "2/3", 3, 2]
    assert cells[5:] == ["main", "nginx:1.27", "app=web"]


async def test_apps_resources_are_discoverable_with_short_names_and_scale(api: Api) -> None:
    reply = await api.get("/apis/apps/v1")
    resources = {r["name"]: r for r in reply.body["resources"]}
    assert resources["deployments"]["shortNames"] == ["deploy"]
    assert resources["deployments"]["categories"] == ["all"]
    assert resources["deployments/scale"]["kind"] == "Scale"
    assert resources["deployments/scale"]["group"] == "autoscaling"
    assert "daemonsets/scale" not in resources
    assert resources["statefulsets"]["shortNames"] == ["sts"]
