"""RBAC objects as stored resources: defaults, validation, the bootstrap policy, aggregation."""

from __future__ import annotations

import asyncio
import uuid

from kf_http import Api

RBAC = "/apis/rbac.authorization.k8s.io/v1"
MERGE = "application/merge-patch+json"


async def test_a_fresh_server_has_the_default_roles_and_bindings(api: Api) -> None:
    roles = await api.get(f"{RBAC}/clusterroles")
    names = {r["metadata"]["name"] for r in roles.body["items"]}
    assert {"cluster-admin", "admin", "edit", "view", "system:discovery"} <= names
    binding = await api.get(f"{RBAC}/clusterrolebindings/cluster-admin")
    assert binding.body["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:masters"}
    ]
    admin = await api.get(f"{RBAC}/clusterroles/cluster-admin")
    assert admin.body["rules"][0] == {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}


async def test_subjects_and_role_refs_get_their_api_group(api: Api, namespace: str) -> None:
    body = {
        "metadata": {"name": "readers"},
        "roleRef": {"kind": "ClusterRole", "name": "view"},
        "subjects": [
            {"kind": "User", "name": "jane"},
            {"kind": "ServiceAccount", "name": "robot"},
        ],
    }
    reply = await api.post(f"{RBAC}/namespaces/{namespace}/rolebindings", body)
    assert reply.status == 201, reply.body
    assert reply.body["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert reply.body["subjects"][0]["apiGroup"] == "rbac.authorization.k8s.io"
    # Defaulted to "", which Go's omitempty then leaves out of the answer.
    assert "apiGroup" not in reply.body["subjects"][1]


async def test_a_binding_cannot_change_its_role_ref(api: Api, namespace: str) -> None:
    path = f"{RBAC}/namespaces/{namespace}/rolebindings"
    body = {
        "metadata": {"name": "b"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "Group", "name": "devs"}],
    }
    await api.post(path, body)
    reply = await api.patch(f"{path}/b", {"roleRef": {"name": "edit"}}, MERGE)
    assert reply.status == 422
    cause = reply.body["details"]["causes"][0]
    assert cause["field"] == "roleRef"
    assert cause["message"].endswith("cannot change roleRef")


async def test_policy_rules_are_validated_like_the_real_server(api: Api, namespace: str) -> None:
    body = {
        "metadata": {"name": "bad"},
        "rules": [
            {"apiGroups": [""], "resources": ["pods"]},
            {"verbs": ["get"], "nonResourceURLs": ["/healthz"]},
            {"verbs": ["get"]},
        ],
    }
    reply = await api.post(f"{RBAC}/namespaces/{namespace}/roles", body)
    assert reply.status == 422
    causes = {c["field"]: c["message"] for c in reply.body["details"]["causes"]}
    assert causes["rules[0].verbs"] == "Required value: verbs must contain at least one value"
    assert (
        "namespaced rules cannot apply to non-resource URLs" in causes["rules[1].nonResourceURLs"]
    )
    assert causes["rules[2].apiGroups"].endswith(
        "resource rules must supply at least one api group"
    )
    assert causes["rules[2].resources"].endswith("resource rules must supply at least one resource")


async def test_cluster_role_bindings_need_a_cluster_role_and_namespaced_accounts(
    api: Api,
) -> None:
    body = {
        "metadata": {"name": f"crb-{uuid.uuid4().hex[:8]}"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"},
        "subjects": [{"kind": "ServiceAccount", "name": "robot"}, {"kind": "Robot", "name": "r"}],
    }
    reply = await api.post(f"{RBAC}/clusterrolebindings", body)
    assert reply.status == 422
    fields = {c["field"]: c["reason"] for c in reply.body["details"]["causes"]}
    assert fields == {
        "roleRef.kind": "FieldValueNotSupported",
        "subjects[0].namespace": "FieldValueRequired",
        "subjects[1].kind": "FieldValueNotSupported",
    }


async def test_role_names_only_need_to_be_path_segments(api: Api, namespace: str) -> None:
    ok = await api.post(f"{RBAC}/namespaces/{namespace}/roles", {"metadata": {"name": "Team:Ops"}})
    assert ok.status == 201, ok.body
    bad = await api.post(f"{RBAC}/namespaces/{namespace}/roles", {"metadata": {"name": "a/b"}})
    assert bad.status == 422
    assert bad.body["details"]["causes"][0]["message"].endswith("may not contain '/'")


async def test_aggregated_cluster_roles_collect_the_rules_of_labelled_roles(api: Api) -> None:
    suffix = uuid.uuid4().hex[:8]
    label = f"example.com/aggregate-{suffix}"
    parent = {
        "metadata": {"name": f"parent-{suffix}"},
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {label: "true"}}]},
    }
    child = {
        "metadata": {"name": f"child-{suffix}", "labels": {label: "true"}},
        "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}],
    }
    assert (await api.post(f"{RBAC}/clusterroles", parent)).status == 201
    assert (await api.post(f"{RBAC}/clusterroles", child)).status == 201
    rules: list[object] = []
    for _ in range(200):  # the aggregation controller runs right after the write
        got = await api.get(f"{RBAC}/clusterroles/parent-{suffix}")
        rules = got.body.get("rules") or []
        if rules:
            break
        await asyncio.sleep(0.05)
    assert rules == child["rules"]


async def test_role_bindings_print_their_role_and_subjects(api: Api, namespace: str) -> None:
    body = {
        "metadata": {"name": "printed"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
        "subjects": [
            {"kind": "User", "name": "jane"},
            {"kind": "ServiceAccount", "name": "bot", "namespace": namespace},
        ],
    }
    await api.post(f"{RBAC}/namespaces/{namespace}/rolebindings", body)
    table = "application/json;as=Table;v=v1;g=meta.k8s.io"
    reply = await api.request(
        "GET", f"{RBAC}/namespaces/{namespace}/rolebindings", headers={"Accept": table}
    )
    row = reply.body["rows"][0]["cells"]
    assert row[0:2] == ["printed", "ClusterRole/edit"]
    assert row[3:] == ["jane", "", f"{namespace}/bot"]
