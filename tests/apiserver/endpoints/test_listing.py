"""LIST: selectors, all-namespace lists, resourceVersion semantics and pagination."""

from __future__ import annotations

from kf_http import Api, configmap, pod, without_root_ca


async def _labelled(api: Api, namespace: str, name: str, **labels: str) -> dict:
    body = configmap(name)
    body["metadata"]["labels"] = labels
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 201
    return reply.body


def _names(reply_body: dict) -> list[str]:
    """The names of what the test made (the namespace's ``kube-root-ca.crt`` left out)."""
    return [item["metadata"]["name"] for item in without_root_ca(reply_body["items"])]


async def test_a_list_has_kind_store_revision_and_items_in_name_order(
    api: Api, namespace: str
) -> None:
    for name in ("b", "a", "c"):
        await _labelled(api, namespace, name)
    reply = await api.get(f"/api/v1/namespaces/{namespace}/configmaps")
    assert reply.status == 200
    assert reply.body["kind"] == "ConfigMapList"
    assert reply.body["apiVersion"] == "v1"
    assert _names(reply.body) == ["a", "b", "c"]
    revision = int(reply.body["metadata"]["resourceVersion"])
    assert revision >= max(int(i["metadata"]["resourceVersion"]) for i in reply.body["items"])


async def test_an_empty_list_has_an_empty_items_array(api: Api, namespace: str) -> None:
    reply = await api.get(f"/api/v1/namespaces/{namespace}/secrets")
    assert reply.body["items"] == []


async def test_label_selectors_support_the_full_syntax(api: Api, namespace: str) -> None:
    await _labelled(api, namespace, "web", app="web", tier="front", rank="3")
    await _labelled(api, namespace, "api", app="api", tier="back", rank="7")
    await _labelled(api, namespace, "bare")
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    cases = {
        "app=web": ["web"],
        "app==api": ["api"],
        "app!=web": ["api", "bare"],
        "app in (web,api)": ["api", "web"],
        "app notin (web)": ["api", "bare"],
        "tier": ["api", "web"],
        "!tier": ["bare"],
        "rank>5": ["api"],
        "rank<5,app": ["web"],
    }
    for selector, expected in cases.items():
        reply = await api.get(path, labelSelector=selector)
        assert sorted(_names(reply.body)) == expected, selector


async def test_a_malformed_label_selector_is_400(api: Api, namespace: str) -> None:
    reply = await api.get(f"/api/v1/namespaces/{namespace}/configmaps", labelSelector="a in (b")
    assert reply.status == 400
    assert reply.reason == "BadRequest"


async def test_field_selectors_on_name_and_namespace_work_everywhere(
    api: Api, namespace: str
) -> None:
    await _labelled(api, namespace, "one")
    await _labelled(api, namespace, "two")
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    assert _names((await api.get(path, fieldSelector="metadata.name=two")).body) == ["two"]
    assert _names((await api.get(path, fieldSelector="metadata.name!=two")).body) == ["one"]
    across = await api.get("/api/v1/configmaps", fieldSelector=f"metadata.namespace={namespace}")
    assert sorted(_names(across.body)) == ["one", "two"]


async def test_an_unsupported_field_label_is_400_naming_the_field(api: Api, namespace: str) -> None:
    reply = await api.get(f"/api/v1/namespaces/{namespace}/configmaps", fieldSelector="data.x=1")
    assert reply.status == 400
    assert reply.body["message"] == "field label not supported: data.x"


async def test_pods_can_be_selected_by_node_and_phase(api: Api, namespace: str) -> None:
    body = pod("pinned")
    body["spec"]["nodeName"] = "elsewhere"
    await api.post(f"/api/v1/namespaces/{namespace}/pods", body)
    path = f"/api/v1/namespaces/{namespace}/pods"
    reply = await api.get(path, fieldSelector="spec.nodeName=elsewhere,status.phase=Pending")
    assert _names(reply.body) == ["pinned"]
    assert _names((await api.get(path, fieldSelector="status.podIP=10.0.0.1")).body) == []


async def test_listing_across_all_namespaces_includes_every_namespace(api: Api) -> None:
    first, second = await api.create_namespace(), await api.create_namespace()
    await _labelled(api, first, "x", mark="across")
    await _labelled(api, second, "x", mark="across")
    reply = await api.get("/api/v1/configmaps", labelSelector="mark=across")
    namespaces = {item["metadata"]["namespace"] for item in reply.body["items"]}
    assert {first, second} <= namespaces


async def test_pagination_serves_a_consistent_snapshot(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    for i in range(5):
        await _labelled(api, namespace, f"cm-{i}")
    page = await api.get(path, limit="2")
    assert _names(page.body) == ["cm-0", "cm-1"]
    token = page.body["metadata"]["continue"]
    # cm-2 to cm-4, and kube-root-ca.crt, which sorts after them
    assert page.body["metadata"]["remainingItemCount"] == 4
    snapshot_rv = page.body["metadata"]["resourceVersion"]
    # Changes after the first page must not show up in later pages.
    await api.delete(f"{path}/cm-3")
    await _labelled(api, namespace, "cm-9")
    second = await api.get(path, limit="2", **{"continue": token})
    assert _names(second.body) == ["cm-2", "cm-3"]
    assert second.body["metadata"]["resourceVersion"] == snapshot_rv
    third = await api.get(path, limit="2", **{"continue": second.body["metadata"]["continue"]})
    assert [i["metadata"]["name"] for i in third.body["items"]] == ["cm-4", "kube-root-ca.crt"]
    assert "continue" not in third.body["metadata"]


async def test_a_garbled_continue_token_is_400_and_continue_with_rv_is_400(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    assert (await api.get(path, **{"continue": "garbage!"})).status == 400
    await _labelled(api, namespace, "a")
    await _labelled(api, namespace, "b")
    token = (await api.get(path, limit="1")).body["metadata"]["continue"]
    reply = await api.get(path, resourceVersion="5", **{"continue": token})
    assert reply.status == 400
    assert reply.body["message"] == "specifying resource version is not allowed when using continue"


async def test_resource_version_match_without_resource_version_is_422(api: Api) -> None:
    reply = await api.get("/api/v1/configmaps", resourceVersionMatch="Exact")
    assert reply.status == 422
    assert reply.body["details"]["kind"] == "ListOptions"


async def test_exact_resource_version_lists_the_past(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await _labelled(api, namespace, "old")
    before = (await api.get(path)).body["metadata"]["resourceVersion"]
    await _labelled(api, namespace, "new")
    past = await api.get(path, resourceVersion=before, resourceVersionMatch="Exact")
    assert past.status == 200
    assert _names(past.body) == ["old"]
    assert past.body["metadata"]["resourceVersion"] == before


async def test_resource_version_zero_ignores_limit(api: Api, namespace: str) -> None:
    for name in ("a", "b", "c"):
        await _labelled(api, namespace, name)
    reply = await api.get(
        f"/api/v1/namespaces/{namespace}/configmaps", resourceVersion="0", limit="1"
    )
    assert _names(reply.body) == ["a", "b", "c"]
