"""``--authorization RBAC``: who may do what, and the 403s, reviews, tokens and
impersonation a real server answers with. Raw HTTP against a server of this module's own."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kf_http import Api, Reply

from kubeforge.apiserver.authn.authenticator import user_token

RBAC = "/apis/rbac.authorization.k8s.io/v1"
AUTHZ = "/apis/authorization.k8s.io/v1"
GROUP = "rbac.authorization.k8s.io"


@pytest.fixture
async def ns(admin: Api) -> str:
    return await admin.create_namespace("rbac")


class As:
    """Requests with another bearer token (or impersonation headers) on the admin's session."""

    def __init__(self, api: Api, token: str, **headers: str) -> None:
        self.api = api
        self.headers = {"Authorization": f"Bearer {token}", **headers}

    async def call(self, method: str, path: str, body: Any = None, **params: str) -> Reply:
        return await self.api.request(
            method, path, body, params=params or None, headers=self.headers
        )


def user(admin: Api, name: str, *groups: str) -> As:
    return As(admin, user_token(admin.server.token, name, groups))


def binding(name: str, role_kind: str, role: str, *subjects: dict[str, str]) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "roleRef": {"apiGroup": GROUP, "kind": role_kind, "name": role},
        "subjects": list(subjects),
    }


def user_subject(name: str) -> dict[str, str]:
    return {"kind": "User", "name": name}


async def test_a_user_without_bindings_gets_the_real_403_messages(admin: Api, ns: str) -> None:
    jane = user(admin, "jane")
    listed = await jane.call("GET", f"/api/v1/namespaces/{ns}/pods")
    assert listed.status == 403
    assert listed.body["reason"] == "Forbidden"
    assert listed.body["message"] == (
        f'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the '
        f'namespace "{ns}"'
    )
    assert listed.body["details"] == {"kind": "pods"}
    got = await jane.call("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/web")
    assert got.body["message"] == (
        f'deployments.apps "web" is forbidden: User "jane" cannot get resource "deployments" in '
        f'API group "apps" in the namespace "{ns}"'
    )
    assert got.body["details"] == {"name": "web", "group": "apps", "kind": "deployments"}
    nodes = await jane.call("GET", "/api/v1/nodes")
    assert nodes.body["message"].endswith(
        'cannot list resource "nodes" in API group "" at the cluster scope'
    )
    status = await jane.call("GET", f"/api/v1/namespaces/{ns}/pods/web/status")
    assert 'cannot get resource "pods/status"' in status.body["message"]
    path = await jane.call("GET", "/logs")
    assert path.status == 403
    assert path.body["message"] == 'forbidden: User "jane" cannot get path "/logs"'


async def test_every_authenticated_user_may_run_discovery_and_health(admin: Api) -> None:
    jane = user(admin, "jane")
    for path in ("/api", "/apis", "/api/v1", "/apis/apps/v1", "/version", "/openapi/v3"):
        reply = await jane.call("GET", path)
        assert reply.status == 200, (path, reply.body)
    assert (await admin.request("GET", "/readyz", headers={"Authorization": ""})).status == 200


async def test_a_bad_token_is_401_whatever_the_mode(admin: Api) -> None:
    forged = user_token("not-the-server-token", "jane")
    reply = await As(admin, forged).call("GET", "/api/v1/namespaces")
    assert reply.status == 401
    assert reply.body["reason"] == "Unauthorized"


async def test_a_role_binding_to_view_grants_reads_in_its_namespace_only(
    admin: Api, ns: str
) -> None:
    other = await admin.create_namespace("rbac-other")
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("jane-view", "ClusterRole", "view", user_subject("jane")),
    )
    jane = user(admin, "jane")
    assert (await jane.call("GET", f"/api/v1/namespaces/{ns}/pods")).status == 200
    assert (await jane.call("GET", f"/apis/apps/v1/namespaces/{ns}/deployments")).status == 200
    assert (await jane.call("GET", f"/api/v1/namespaces/{ns}/secrets")).status == 403
    assert (await jane.call("GET", f"/api/v1/namespaces/{other}/pods")).status == 403
    created = await jane.call(
        "POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "x"}}
    )
    assert created.status == 403
    assert 'cannot create resource "configmaps"' in created.body["message"]


async def test_resource_names_restrict_a_rule_to_named_objects(admin: Api, ns: str) -> None:
    role = {
        "metadata": {"name": "one-map"},
        "rules": [
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "resourceNames": ["settings"],
                "verbs": ["get", "list", "watch"],
            },
        ],
    }
    await admin.post(f"{RBAC}/namespaces/{ns}/roles", role)
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("one-map", "Role", "one-map", user_subject("jane")),
    )
    await admin.post(f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "settings"}})
    jane = user(admin, "jane")
    assert (await jane.call("GET", f"/api/v1/namespaces/{ns}/configmaps/settings")).status == 200
    assert (await jane.call("GET", f"/api/v1/namespaces/{ns}/configmaps/other")).status == 403
    assert (await jane.call("GET", f"/api/v1/namespaces/{ns}/configmaps")).status == 403
    # A list selecting the one name by field is a request about that name (kubectl get -w).
    named = await jane.call(
        "GET", f"/api/v1/namespaces/{ns}/configmaps", fieldSelector="metadata.name=settings"
    )
    assert named.status == 200


async def test_groups_in_a_token_are_matched_by_group_subjects(admin: Api, ns: str) -> None:
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("devs", "ClusterRole", "edit", {"kind": "Group", "name": "devs"}),
    )
    member = user(admin, "sam", "devs")
    stranger = user(admin, "sam")
    body = {"metadata": {"name": "made-by-sam"}}
    assert (await member.call("POST", f"/api/v1/namespaces/{ns}/configmaps", body)).status == 201
    assert (await stranger.call("GET", f"/api/v1/namespaces/{ns}/configmaps")).status == 403


async def test_a_binding_to_a_missing_role_says_so_in_the_denial(admin: Api, ns: str) -> None:
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("dangling", "ClusterRole", "no-such-role", user_subject("kim")),
    )
    reply = await user(admin, "kim").call("GET", f"/api/v1/namespaces/{ns}/pods")
    assert reply.status == 403
    assert reply.body["message"].endswith(
        f'in the namespace "{ns}": RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" '
        "not found"
    )


async def test_service_account_tokens_act_as_the_account_until_it_is_deleted(
    admin: Api, ns: str
) -> None:
    await admin.post(f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "bot"}})
    requested = await admin.post(
        f"/api/v1/namespaces/{ns}/serviceaccounts/bot/token",
        {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
    )
    assert requested.status == 201, requested.body
    assert requested.body["spec"]["expirationSeconds"] == 3600
    assert requested.body["spec"]["audiences"] == ["https://kubernetes.default.svc.cluster.local"]
    bot = As(admin, requested.body["status"]["token"])
    denied = await bot.call("GET", f"/api/v1/namespaces/{ns}/configmaps")
    assert f'User "system:serviceaccount:{ns}:bot" cannot list' in denied.body["message"]
    # A RoleBinding's account subject without a namespace means the binding's own.
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("bot-view", "ClusterRole", "view", {"kind": "ServiceAccount", "name": "bot"}),
    )
    assert (await bot.call("GET", f"/api/v1/namespaces/{ns}/configmaps")).status == 200
    whoami = await bot.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {})
    info = whoami.body["status"]["userInfo"]
    assert info["username"] == f"system:serviceaccount:{ns}:bot"
    assert info["groups"] == [
        "system:serviceaccounts",
        f"system:serviceaccounts:{ns}",
        "system:authenticated",
    ]
    await admin.delete(f"/api/v1/namespaces/{ns}/serviceaccounts/bot")
    assert (await bot.call("GET", f"/api/v1/namespaces/{ns}/configmaps")).status == 401


async def test_token_requests_check_the_account_and_the_duration(admin: Api, ns: str) -> None:
    missing = await admin.post(f"/api/v1/namespaces/{ns}/serviceaccounts/ghost/token", {})
    assert missing.status == 404
    await admin.post(f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "bot"}})
    short = await admin.post(
        f"/api/v1/namespaces/{ns}/serviceaccounts/bot/token", {"spec": {"expirationSeconds": 60}}
    )
    assert short.status == 422
    assert short.body["details"]["causes"][0]["field"] == "spec.expirationSeconds"


async def test_a_token_for_another_audience_is_refused_by_the_api_but_reviewable(
    admin: Api, ns: str
) -> None:
    await admin.post(f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "bot"}})
    requested = await admin.post(
        f"/api/v1/namespaces/{ns}/serviceaccounts/bot/token",
        {"spec": {"audiences": ["vault"]}},
    )
    token = requested.body["status"]["token"]
    assert (await As(admin, token).call("GET", "/api")).status == 401
    review = await admin.post(
        "/apis/authentication.k8s.io/v1/tokenreviews",
        {"spec": {"token": token, "audiences": ["vault"]}},
    )
    assert review.body["status"]["authenticated"] is True
    assert review.body["status"]["user"]["username"] == f"system:serviceaccount:{ns}:bot"


async def test_self_subject_access_reviews_answer_kubectl_auth_can_i(admin: Api, ns: str) -> None:
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("ann-view", "ClusterRole", "view", user_subject("ann")),
    )
    ann = user(admin, "ann")

    async def can(verb: str, resource: str) -> dict[str, Any]:
        spec = {"resourceAttributes": {"namespace": ns, "verb": verb, "resource": resource}}
        reply = await ann.call("POST", f"{AUTHZ}/selfsubjectaccessreviews", {"spec": spec})
        assert reply.status == 201, reply.body
        assert reply.body["kind"] == "SelfSubjectAccessReview"
        status: dict[str, Any] = reply.body["status"]
        return status

    allowed = await can("list", "pods")
    assert allowed["allowed"] is True
    assert allowed["reason"] == (
        f'RBAC: allowed by RoleBinding "ann-view/{ns}" of ClusterRole "view" to User "ann"'
    )
    assert (await can("delete", "pods"))["allowed"] is False
    invalid = await ann.call("POST", f"{AUTHZ}/selfsubjectaccessreviews", {"spec": {}})
    assert invalid.status == 422


async def test_subject_access_reviews_ask_about_someone_else(admin: Api, ns: str) -> None:
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("bo-edit", "ClusterRole", "edit", user_subject("bo")),
    )
    spec = {
        "user": "bo",
        "resourceAttributes": {"namespace": ns, "verb": "create", "resource": "secrets"},
    }
    reply = await admin.post(f"{AUTHZ}/subjectaccessreviews", {"spec": spec})
    assert reply.body["status"]["allowed"] is True
    local = await admin.post(
        f"{AUTHZ}/namespaces/{ns}/localsubjectaccessreviews",
        {"spec": {**spec, "resourceAttributes": {**spec["resourceAttributes"], "namespace": "x"}}},
    )
    assert local.status == 422
    assert local.body["details"]["causes"][0]["field"] == "spec.resourceAttributes.namespace"
    # Asking about others is itself authorized: a plain user may not.
    refused = await user(admin, "bo").call("POST", f"{AUTHZ}/subjectaccessreviews", {"spec": spec})
    assert refused.status == 403


async def test_self_subject_rules_reviews_list_what_applies(admin: Api, ns: str) -> None:
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("cy-view", "ClusterRole", "view", user_subject("cy")),
    )
    reply = await user(admin, "cy").call(
        "POST", f"{AUTHZ}/selfsubjectrulesreviews", {"spec": {"namespace": ns}}
    )
    assert reply.status == 201, reply.body
    status = reply.body["status"]
    assert status["incomplete"] is False
    assert any("pods" in r["resources"] and "list" in r["verbs"] for r in status["resourceRules"])
    assert any("/api/*" in r["nonResourceURLs"] for r in status["nonResourceRules"])


async def test_impersonation_needs_the_impersonate_verb(admin: Api, ns: str) -> None:
    as_jane = As(admin, admin.server.token, **{"Impersonate-User": "jane"})
    denied = await as_jane.call("GET", f"/api/v1/namespaces/{ns}/pods")
    assert 'User "jane" cannot list resource "pods"' in denied.body["message"]
    lee = user(admin, "lee")
    headers = {"Impersonate-User": "jane", "Impersonate-Group": "devs"}
    refused = await As(admin, lee.headers["Authorization"][7:], **headers).call("GET", "/api")
    assert refused.status == 403
    assert refused.body["message"] == (
        'users "jane" is forbidden: User "lee" cannot impersonate resource "users" in API group '
        '"" at the cluster scope'
    )
    role = {
        "metadata": {"name": f"impersonator-{uuid.uuid4().hex[:6]}"},
        "rules": [{"apiGroups": [""], "resources": ["users", "groups"], "verbs": ["impersonate"]}],
    }
    await admin.post(f"{RBAC}/clusterroles", role)
    await admin.post(
        f"{RBAC}/clusterrolebindings",
        binding(
            role["metadata"]["name"], "ClusterRole", role["metadata"]["name"], user_subject("lee")
        ),
    )
    whoami = await As(admin, lee.headers["Authorization"][7:], **headers).call(
        "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {}
    )
    assert whoami.status == 201, whoami.body
    assert whoami.body["status"]["userInfo"]["username"] == "jane"
    assert whoami.body["status"]["userInfo"]["groups"] == ["devs", "system:authenticated"]


async def test_granting_permissions_one_does_not_hold_is_an_escalation(admin: Api, ns: str) -> None:
    writer = {
        "metadata": {"name": "role-writer"},
        "rules": [
            {
                "apiGroups": [GROUP],
                "resources": ["roles", "rolebindings"],
                "verbs": ["create", "update", "get"],
            },
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
        ],
    }
    await admin.post(f"{RBAC}/namespaces/{ns}/roles", writer)
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("dee-writes-roles", "Role", "role-writer", user_subject("dee")),
    )
    dee = user(admin, "dee")
    held = {
        "metadata": {"name": "read-maps"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}],
    }
    assert (await dee.call("POST", f"{RBAC}/namespaces/{ns}/roles", held)).status == 201
    more = {
        "metadata": {"name": "read-secrets"},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}],
    }
    refused = await dee.call("POST", f"{RBAC}/namespaces/{ns}/roles", more)
    assert refused.status == 403
    assert refused.body["message"] == (
        'roles.rbac.authorization.k8s.io "read-secrets" is forbidden: user "dee" '
        '(groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently '
        'held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}\n'
        '{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}'
    )
    bind_view = binding("dee-gives-view", "ClusterRole", "view", user_subject("eve"))
    assert (await dee.call("POST", f"{RBAC}/namespaces/{ns}/rolebindings", bind_view)).status == 403
    bind_held = binding("dee-gives-maps", "Role", "read-maps", user_subject("eve"))
    assert (await dee.call("POST", f"{RBAC}/namespaces/{ns}/rolebindings", bind_held)).status == 201


async def test_the_bind_verb_allows_binding_a_role_one_does_not_hold(admin: Api, ns: str) -> None:
    binder = {
        "metadata": {"name": "view-binder"},
        "rules": [
            {"apiGroups": [GROUP], "resources": ["rolebindings"], "verbs": ["create"]},
            {
                "apiGroups": [GROUP],
                "resources": ["clusterroles"],
                "resourceNames": ["view"],
                "verbs": ["bind"],
            },
        ],
    }
    await admin.post(f"{RBAC}/namespaces/{ns}/roles", binder)
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("fay-binds", "Role", "view-binder", user_subject("fay")),
    )
    give = binding("fay-gives-view", "ClusterRole", "view", user_subject("gus"))
    reply = await user(admin, "fay").call("POST", f"{RBAC}/namespaces/{ns}/rolebindings", give)
    assert reply.status == 201, reply.body


async def test_a_cluster_role_aggregated_into_view_extends_it_at_once(admin: Api, ns: str) -> None:
    extra = {
        "metadata": {
            "name": f"leases-view-{uuid.uuid4().hex[:6]}",
            "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"},
        },
        "rules": [
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["list"]}
        ],
    }
    await admin.post(
        f"{RBAC}/namespaces/{ns}/rolebindings",
        binding("hal-view", "ClusterRole", "view", user_subject("hal")),
    )
    hal = user(admin, "hal")
    leases = f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
    assert (await hal.call("GET", leases)).status == 403
    await admin.post(f"{RBAC}/clusterroles", extra)
    assert (await hal.call("GET", leases)).status == 200


async def test_without_rbac_every_authenticated_user_may_do_everything(
    api: Api, namespace: str
) -> None:
    """The shared server runs the default mode: a user token is allowed everything."""
    jane = user(api, "jane")
    secret = {"metadata": {"name": "s"}, "stringData": {"k": "v"}}
    assert (
        await jane.call("POST", f"/api/v1/namespaces/{namespace}/secrets", secret)
    ).status == 201
    review = {"spec": {"resourceAttributes": {"verb": "delete", "resource": "nodes"}}}
    reply = await jane.call("POST", f"{AUTHZ}/selfsubjectaccessreviews", review)
    assert reply.body["status"] == {"allowed": True}
    rules = await jane.call(
        "POST", f"{AUTHZ}/selfsubjectrulesreviews", {"spec": {"namespace": "x"}}
    )
    assert rules.body["status"]["resourceRules"] == [
        {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}
    ]
