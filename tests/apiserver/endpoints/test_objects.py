"""Create, get, update and delete of built-in objects, with the server-owned metadata."""

from __future__ import annotations

import re

from kf_http import Api, configmap, pod, without_root_ca


async def test_create_fills_uid_timestamp_and_resource_version_and_returns_201(
    api: Api, namespace: str
) -> None:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("a", x="1"))
    assert reply.status == 201
    meta = reply.body["metadata"]
    assert re.fullmatch(r"[0-9a-f-]{36}", meta["uid"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["creationTimestamp"])
    assert meta["resourceVersion"].isdigit()
    assert meta["namespace"] == namespace
    assert "generation" not in meta  # ConfigMaps have no generation
    got = await api.get(f"/api/v1/namespaces/{namespace}/configmaps/a")
    assert got.status == 200
    assert got.body == reply.body


async def test_generate_name_appends_five_characters_from_the_real_alphabet(
    api: Api, namespace: str
) -> None:
    body = {"metadata": {"generateName": "job-"}, "data": {}}
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 201
    assert re.fullmatch(r"job-[bcdfghjklmnpqrstvwxz2456789]{5}", reply.body["metadata"]["name"])


async def test_create_of_an_existing_name_is_409_already_exists(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("dup"))
    reply = await api.post(path, configmap("dup"))
    assert reply.status == 409
    assert reply.reason == "AlreadyExists"
    assert reply.body["message"] == 'configmaps "dup" already exists'
    assert reply.body["details"] == {"name": "dup", "kind": "configmaps"}


async def test_create_in_a_missing_namespace_is_404(api: Api) -> None:
    reply = await api.post("/api/v1/namespaces/no-such-ns/configmaps", configmap("a"))
    assert reply.status == 404
    assert reply.body["message"] == 'namespaces "no-such-ns" not found'


async def test_body_namespace_contradicting_the_url_is_400(api: Api, namespace: str) -> None:
    body = configmap("a")
    body["metadata"]["namespace"] = "elsewhere"
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 400
    assert reply.reason == "BadRequest"
    assert "does not match the namespace" in reply.body["message"]


async def test_kind_or_api_version_contradicting_the_url_is_400(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    wrong_kind = {**configmap("a"), "kind": "Secret"}
    wrong_version = {**configmap("b"), "apiVersion": "v2"}
    for body in (wrong_kind, wrong_version):
        reply = await api.post(path, body)
        assert reply.status == 400, reply.body
        assert reply.body["kind"] == "Status"


async def test_invalid_names_are_422_with_a_cause_on_metadata_name(
    api: Api, namespace: str
) -> None:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("Not_Valid"))
    assert reply.status == 422
    assert reply.reason == "Invalid"
    assert reply.body["details"]["kind"] == "ConfigMap"
    assert reply.body["details"]["causes"][0]["field"] == "metadata.name"
    assert reply.body["message"].startswith('ConfigMap "Not_Valid" is invalid: metadata.name')


async def test_missing_name_and_generate_name_is_422_required(api: Api, namespace: str) -> None:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", {"metadata": {}})
    assert reply.status == 422
    assert reply.body["details"]["causes"][0]["reason"] == "FieldValueRequired"


async def test_create_with_a_resource_version_is_422(api: Api, namespace: str) -> None:
    body = configmap("a")
    body["metadata"]["resourceVersion"] = "5"
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 422
    assert "metadata.resourceVersion" in reply.body["message"]


async def test_dry_run_create_returns_the_object_but_stores_nothing(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    reply = await api.post(path, configmap("dry"), params={"dryRun": "All"})
    assert reply.status == 201
    assert reply.body["metadata"]["uid"]
    assert (await api.get(f"{path}/dry")).status == 404


async def test_update_with_a_stale_resource_version_is_409_with_the_real_message(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("c", v="1"))).body
    first = {**created, "data": {"v": "2"}}
    assert (await api.put(f"{path}/c", first)).status == 200
    stale = {**created, "data": {"v": "3"}}
    reply = await api.put(f"{path}/c", stale)
    assert reply.status == 409
    assert reply.reason == "Conflict"
    assert reply.body["message"] == (
        'Operation cannot be fulfilled on configmaps "c": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )


async def test_update_bumps_resource_version_and_keeps_uid_and_creation_time(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("u", v="1"))).body
    changed = {**created, "data": {"v": "2"}}
    changed["metadata"] = {
        **created["metadata"],
        "uid": "",
        "creationTimestamp": "2000-01-01T00:00:00Z",
    }
    del changed["metadata"]["uid"]
    reply = await api.put(f"{path}/u", changed)
    assert reply.status == 200
    meta = reply.body["metadata"]
    assert int(meta["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    assert meta["uid"] == created["metadata"]["uid"]
    assert meta["creationTimestamp"] == created["metadata"]["creationTimestamp"]


async def test_no_op_update_keeps_the_resource_version(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("same", v="1"))).body
    reply = await api.put(f"{path}/same", created)
    assert reply.status == 200
    assert reply.body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


async def test_put_name_contradicting_the_url_is_400(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("n1"))).body
    reply = await api.put(f"{path}/other", created)
    assert reply.status == 400


async def test_put_of_a_missing_configmap_is_404_but_creates_a_lease(
    api: Api, namespace: str
) -> None:
    reply = await api.put(f"/api/v1/namespaces/{namespace}/configmaps/ghost", configmap("ghost"))
    assert reply.status == 404
    lease = {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "leader"},
        "spec": {"holderIdentity": "me", "renewTime": "2024-05-01T12:00:00.123456Z"},
    }
    path = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/leader"
    created = await api.put(path, lease)
    assert created.status == 201
    assert created.body["spec"]["renewTime"] == "2024-05-01T12:00:00.123456Z"


async def test_delete_of_a_configmap_answers_a_success_status(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("d"))).body
    reply = await api.delete(f"{path}/d")
    assert reply.status == 200
    assert reply.body["kind"] == "Status"
    assert reply.body["status"] == "Success"
    assert reply.body["details"] == {
        "name": "d",
        "kind": "configmaps",
        "uid": created["metadata"]["uid"],
    }
    assert (await api.get(f"{path}/d")).status == 404
    missing = await api.delete(f"{path}/d")
    assert missing.status == 404
    assert missing.body["message"] == 'configmaps "d" not found'


async def test_delete_with_finalizers_marks_and_removing_the_last_one_deletes(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    body = configmap("f")
    body["metadata"]["finalizers"] = ["example.com/keep"]
    await api.post(path, body)
    marked = await api.delete(f"{path}/f")
    assert marked.status == 200
    assert marked.body["kind"] == "ConfigMap"
    assert marked.body["metadata"]["deletionTimestamp"]
    assert marked.body["metadata"]["deletionGracePeriodSeconds"] == 0
    again = await api.delete(f"{path}/f")
    assert (
        again.body["metadata"]["deletionTimestamp"] == marked.body["metadata"]["deletionTimestamp"]
    )
    adding = {**marked.body}
    adding["metadata"] = {**marked.body["metadata"], "finalizers": ["example.com/keep", "x.io/new"]}
    refused = await api.put(f"{path}/f", adding)
    assert refused.status == 422
    assert "no new finalizers" in refused.body["message"]
    patch = [{"op": "remove", "path": "/metadata/finalizers"}]
    gone = await api.patch(f"{path}/f", patch, "application/json-patch+json")
    assert gone.status == 200
    assert (await api.get(f"{path}/f")).status == 404


async def test_delete_preconditions_mismatch_is_409(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("p"))
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "nope"}}
    reply = await api.delete(f"{path}/p", body)
    assert reply.status == 409
    assert reply.body["details"]["kind"] == "ConfigMap"


async def test_foreground_delete_adds_the_gc_finalizer_and_keeps_the_object(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("fg"))
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"}
    reply = await api.delete(f"{path}/fg", body)
    assert reply.status == 200
    assert reply.body["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert reply.body["metadata"]["deletionTimestamp"]


async def test_deletecollection_deletes_only_what_the_selector_matches(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    for name, tier in (("a", "web"), ("b", "web"), ("c", "db")):
        body = configmap(name)
        body["metadata"]["labels"] = {"tier": tier}
        await api.post(path, body)
    reply = await api.delete(path, params={"labelSelector": "tier=web"})
    assert reply.status == 200
    assert sorted(i["metadata"]["name"] for i in reply.body["items"]) == ["a", "b"]
    left = await api.get(path)
    assert [i["metadata"]["name"] for i in without_root_ca(left.body["items"])] == ["c"]


async def test_secrets_fold_string_data_into_base64_data_and_default_the_type(
    api: Api, namespace: str
) -> None:
    body = {"metadata": {"name": "s"}, "stringData": {"password": "hunter2"}}
    reply = await api.post(f"/api/v1/namespaces/{namespace}/secrets", body)
    assert reply.status == 201
    assert reply.body["type"] == "Opaque"
    assert reply.body["data"] == {"password": "aHVudGVyMg=="}
    assert "stringData" not in reply.body


async def test_pods_are_defaulted_and_validated(api: Api, namespace: str) -> None:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", pod("p"))
    assert reply.status == 201
    spec = reply.body["spec"]
    assert spec["restartPolicy"] == "Always"
    assert spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert reply.body["status"]["phase"] == "Pending"
    no_containers = {"metadata": {"name": "bad"}, "spec": {"containers": []}}
    invalid = await api.post(f"/api/v1/namespaces/{namespace}/pods", no_containers)
    assert invalid.status == 422
    assert invalid.body["details"]["causes"][0]["field"] == "spec.containers"


async def test_services_get_a_cluster_ip_and_a_dns_1035_name(api: Api, namespace: str) -> None:
    body = {"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}}
    reply = await api.post(f"/api/v1/namespaces/{namespace}/services", body)
    assert reply.status == 201
    assert reply.body["spec"]["clusterIP"].startswith("10.96.")
    assert reply.body["spec"]["ports"][0] == {"port": 80, "protocol": "TCP", "targetPort": 80}
    bad = await api.post(
        f"/api/v1/namespaces/{namespace}/services", {**body, "metadata": {"name": "1web"}}
    )
    assert bad.status == 422


async def test_initial_namespaces_exist_and_default_cannot_be_deleted(api: Api) -> None:
    for name in ("default", "kube-system"):
        assert (await api.get(f"/api/v1/namespaces/{name}")).status == 200
    reply = await api.delete("/api/v1/namespaces/default")
    assert reply.status == 403
    assert reply.reason == "Forbidden"


async def test_status_subresource_takes_only_status(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    manifest = pod("st")
    # Bound to a node the simulated one is not, so no kubelet races these writes.
    manifest["spec"]["nodeName"] = "elsewhere"
    created = (await api.post(path, manifest)).body
    body = {**created, "status": {"phase": "Failed"}}
    body["metadata"] = {**created["metadata"], "labels": {"changed": "yes"}}
    reply = await api.put(f"{path}/st/status", body)
    assert reply.status == 200
    assert reply.body["status"]["phase"] == "Failed"
    assert reply.body["metadata"].get("labels") == created["metadata"].get("labels")
    main = {**reply.body, "status": {"phase": "Succeeded"}}
    ignored = await api.put(f"{path}/st", main)
    assert ignored.body["status"]["phase"] == "Failed"
