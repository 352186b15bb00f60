"""Writes as the real server does them: no-op writes change nothing (managedFields timestamps
included), dry runs store nothing, field validation of duplicate and patched-in fields."""

from __future__ import annotations

import asyncio

from kf_http import Api, configmap

MERGE = "application/merge-patch+json"
APPLY = "application/apply-patch+yaml"


async def _events(api: Api, path: str, after: str) -> list[str]:
    """Types of the events after resourceVersion ``after`` (the watch ends after a second)."""
    return [e["type"] async for e in api.watch(path, resourceVersion=after, timeoutSeconds="1")]


async def test_a_put_that_only_moves_managed_fields_timestamps_is_a_no_op(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("ts", a="1"), params={"fieldManager": "m"})).body
    rv = created["metadata"]["resourceVersion"]
    body = {**created, "metadata": {**created["metadata"]}}
    body["metadata"]["managedFields"] = [
        {**created["metadata"]["managedFields"][0], "time": "2001-01-01T00:00:00Z"}
    ]
    reply = await api.put(f"{path}/ts", body, params={"fieldManager": "m"})
    assert reply.status == 200
    assert reply.body["metadata"]["resourceVersion"] == rv
    assert reply.body["metadata"]["managedFields"][0]["time"] != "2001-01-01T00:00:00Z"
    assert await _events(api, path, rv) == []


async def test_no_op_writes_by_other_managers_add_no_entry_and_no_event(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("quiet", a="1"), params={"fieldManager": "m"})).body
    rv = created["metadata"]["resourceVersion"]
    put = await api.put(f"{path}/quiet", created, params={"fieldManager": "other"})
    patch = await api.patch(
        f"{path}/quiet", {"data": {"a": "1"}}, MERGE, params={"fieldManager": "x"}
    )
    for reply in (put, patch):
        assert reply.body["metadata"]["resourceVersion"] == rv
        assert [e["manager"] for e in reply.body["metadata"]["managedFields"]] == ["m"]
    assert await _events(api, path, rv) == []


async def test_the_main_resource_ignores_status_and_status_ignores_the_rest(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/services"
    balancer = {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "st"},
        # A LoadBalancer: 1.32 refuses load-balancer ingress on other types' status.
        "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]},
        "status": balancer,
    }
    created = (await api.post(path, service)).body
    assert created["status"] == {"loadBalancer": {}}  # a client's status is not taken on create
    changed = {**created, "status": balancer}
    changed["metadata"] = {**created["metadata"], "labels": {"x": "y"}}
    main = await api.put(f"{path}/st", changed)
    assert main.body["status"] == {"loadBalancer": {}}
    assert main.body["metadata"]["labels"] == {"x": "y"}
    status = {**main.body, "status": balancer, "spec": {**main.body["spec"]}}
    status["spec"]["externalName"] = "ignored.example.com"
    reply = await api.put(f"{path}/st/status", status)
    assert reply.status == 200, reply.body
    # LoadBalancerIPMode (GA in 1.32) defaults an ingress IP's mode to VIP.
    assert reply.body["status"] == {
        "loadBalancer": {"ingress": [{"ip": "192.0.2.1", "ipMode": "VIP"}]}
    }
    assert "externalName" not in reply.body["spec"]


async def test_dry_run_update_and_patch_answer_the_result_and_store_nothing(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("dry", a="1"))).body
    rv = created["metadata"]["resourceVersion"]
    put = await api.put(f"{path}/dry", {**created, "data": {"a": "2"}}, params={"dryRun": "All"})
    patched = await api.patch(f"{path}/dry", {"data": {"a": "3"}}, MERGE, params={"dryRun": "All"})
    applied = await api.patch(
        f"{path}/dry",
        configmap("dry", a="4"),
        APPLY,
        params={"dryRun": "All", "fieldManager": "m", "force": "true"},
    )
    assert (put.body["data"], patched.body["data"], applied.body["data"]) == (
        {"a": "2"},
        {"a": "3"},
        {"a": "4"},
    )
    stored = (await api.get(f"{path}/dry")).body
    assert stored["data"] == {"a": "1"}
    assert stored["metadata"]["resourceVersion"] == rv
    assert await _events(api, path, rv) == []
    bogus = await api.patch(f"{path}/dry", {}, MERGE, params={"dryRun": "Some"})
    assert bogus.status == 400


async def test_duplicate_fields_are_refused_when_strict_and_warned_about_when_warn(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    raw = (
        b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":"dup"},'
        b'"data":{"a":"1","a":"2"}}'
    )
    strict = await api.request("POST", path, raw=raw, params={"fieldValidation": "Strict"})
    assert strict.status == 400
    assert strict.body["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
        'duplicate field "metadata.name", duplicate field "data.a"'
    )
    warned = await api.request("POST", path, raw=raw, params={"fieldValidation": "Warn"})
    assert warned.status == 201
    assert warned.body["data"] == {"a": "2"}  # the last one wins, as in Go's decoder
    assert warned.headers.getall("Warning") == [
        '299 - "duplicate field \\"metadata.name\\""',
        '299 - "duplicate field \\"data.a\\""',
    ]


async def test_unknown_fields_a_strict_patch_introduces_are_a_422_on_patch(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("sp", a="1"))
    strict = await api.patch(
        f"{path}/sp", {"bogus": 1}, MERGE, params={"fieldValidation": "Strict"}
    )
    assert strict.status == 422
    assert strict.body["reason"] == "Invalid"
    (cause,) = strict.body["details"]["causes"]
    assert cause["field"] == "patch"
    assert cause["message"].endswith('strict decoding error: unknown field "bogus"')
    warned = await api.patch(f"{path}/sp", {"bogus": 1}, MERGE, params={"fieldValidation": "Warn"})
    assert warned.status == 200
    assert warned.headers.getall("Warning") == ['299 - "unknown field \\"bogus\\""']


async def test_repeated_keys_in_an_apply_configuration_follow_field_validation(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/yamldup"
    manifest = (
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yamldup\ndata:\n  a: '1'\n  a: '2'\n"
    )
    params = {"fieldManager": "m", "fieldValidation": "Strict"}
    strict = await api.request("PATCH", path, raw=manifest, content_type=APPLY, params=params)
    assert strict.status == 400
    assert strict.body["message"] == (
        "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n"
        '  line 7: key "a" already set in map'
    )
    params["fieldValidation"] = "Warn"
    warned = await api.request("PATCH", path, raw=manifest, content_type=APPLY, params=params)
    assert warned.status == 201
    assert warned.headers.getall("Warning") == ['299 - "line 7: key \\"a\\" already set in map"']


async def test_names_follow_each_kinds_rules(api: Api, namespace: str) -> None:
    upper = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("Upper"))
    assert upper.status == 422
    assert upper.body["details"]["causes"][0]["field"] == "metadata.name"
    dotted = await api.post("/api/v1/namespaces", {"metadata": {"name": "a.b"}})
    assert dotted.status == 422  # namespaces are DNS labels: no dots
    dotted_map = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("a.b"))
    assert dotted_map.status == 201  # config maps are DNS subdomains
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "1svc"},
        "spec": {"ports": [{"port": 80}]},
    }
    digit = await api.post(f"/api/v1/namespaces/{namespace}/services", service)
    assert digit.status == 422  # services are DNS-1035 labels: a letter first


async def test_concurrent_no_op_applies_keep_one_resource_version(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps/calm"
    first = await api.patch(path, configmap("calm", a="1"), APPLY, params={"fieldManager": "m"})
    rv = first.body["metadata"]["resourceVersion"]
    replies = await asyncio.gather(
        *(
            api.patch(path, configmap("calm", a="1"), APPLY, params={"fieldManager": "m"})
            for _ in range(5)
        )
    )
    assert {r.body["metadata"]["resourceVersion"] for r in replies} == {rv}


async def test_unknown_fields_deep_inside_built_ins_are_dropped_warned_or_refused(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "deep", "ownerReferences": []},
        "spec": {"containers": [{"name": "main", "image": "nginx", "imagee": "typo"}]},
    }
    strict = await api.post(path, body, params={"fieldValidation": "Strict"})
    assert strict.status == 400
    assert strict.body["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.containers[0].imagee"'
    )
    warned = await api.post(path, body)
    assert warned.status == 201
    assert "imagee" not in warned.body["spec"]["containers"][0]
    assert warned.headers.getall("Warning") == [
        '299 - "unknown field \\"spec.containers[0].imagee\\""'
    ]
