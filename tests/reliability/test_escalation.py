"""Privilege escalation attempts under ``--authorization RBAC`` all fail, as on a real server.

- A TokenRequest may bind its token to a Pod, Secret or Node only, which must exist
  (with the uid given, if any), and a pod only if it runs as that account; a token
  bound to ``kind: ServiceAccount`` (which used to authenticate as that other account)
  is refused. A pod-bound token carries the pod's name and uid and its node's name,
  as a real one does, and dies with the pod.
- A ClusterRole with an ``aggregationRule`` (created, or patched in) needs the
  ``escalate`` verb or cluster-admin's permissions ("must have cluster-admin
  privileges to use the aggregationRule").
- A binding to a role that does not exist yet is refused with the role's 404 unless
  the user may ``bind`` it; once the role exists, the escalation check applies.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kubeforge.apiserver.authn.authenticator import user_token
from kubeforge.testing import LocalApiServer
from reliability.kf_rawhttp import call

NS = "escalation"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
GROUP = "rbac.authorization.k8s.io"
TOKENS = f"/api/v1/namespaces/{NS}/serviceaccounts/low/token"
WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


@pytest.fixture(scope="module")
def server() -> Iterator[LocalApiServer]:
    with LocalApiServer(authorization="RBAC") as server:
        _setup(server)
        yield server


def _ok(answer: tuple[int, Any], *codes: int) -> Any:
    status, body = answer
    assert status in (codes or (200, 201)), body
    return body


def _setup(server: LocalApiServer) -> None:
    _ok(call(server, "POST", "/api/v1/namespaces", _json({"metadata": {"name": NS}})))
    for account in ("low", "admin-sa"):
        path = f"/api/v1/namespaces/{NS}/serviceaccounts"
        _ok(call(server, "POST", path, _json({"metadata": {"name": account}})))
    # admin-sa may do everything: the prize of the token attack.
    _binding(server, "ClusterRoleBinding", "admin-sa-is-admin", "cluster-admin", "ServiceAccount")
    # mallory may ask for tokens of "low" only.
    _role(
        server,
        "token-maker",
        [{"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]}],
    )
    _binding(server, "RoleBinding", "mallory-makes-tokens", "token-maker", "User", "mallory")


def _json(body: Any) -> bytes:
    return json.dumps(body).encode()


def _role(server: LocalApiServer, name: str, rules: list[dict[str, Any]]) -> None:
    body = {"metadata": {"name": name}, "rules": rules}
    _ok(call(server, "POST", f"{RBAC}/namespaces/{NS}/roles", _json(body)))


def _binding(
    server: LocalApiServer, kind: str, name: str, role: str, subject: str, who: str = "admin-sa"
) -> None:
    subject_ref = {"kind": subject, "name": who}
    if subject == "ServiceAccount":
        subject_ref["namespace"] = NS
    role_kind = "ClusterRole" if kind == "ClusterRoleBinding" else "Role"
    body = {
        "metadata": {"name": name},
        "roleRef": {"apiGroup": GROUP, "kind": role_kind, "name": role},
        "subjects": [subject_ref],
    }
    path = (
        f"{RBAC}/clusterrolebindings"
        if kind == "ClusterRoleBinding"
        else (f"{RBAC}/namespaces/{NS}/rolebindings")
    )
    _ok(call(server, "POST", path, _json(body)))


def _as(server: LocalApiServer, user: str) -> str:
    return user_token(server.token, user, ())


def _token_request(server: LocalApiServer, ref: dict[str, Any] | None) -> tuple[int, Any]:
    spec: dict[str, Any] = {} if ref is None else {"boundObjectRef": ref}
    body = _json({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec})
    return call(server, "POST", TOKENS, body, token=_as(server, "mallory"))


def _claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * 4))
    return claims


# --- TokenRequest bound objects ------------------------------------------------------------


def test_a_token_cannot_be_bound_to_another_service_account(server: LocalApiServer) -> None:
    ref = {"apiVersion": "v1", "kind": "ServiceAccount", "name": "admin-sa"}
    status, body = _token_request(server, ref)
    assert status == 400 and body["reason"] == "BadRequest", body
    assert body["message"] == "cannot bind token to object of type /v1, Kind=ServiceAccount"
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"}
    status, body = _token_request(server, other)
    assert (status, body["message"]) == (
        400,
        "cannot bind token to object of type apps/v1, Kind=Deployment",
    )
    # An unbound token is the account itself, nothing more.
    token = _ok(_token_request(server, None))["status"]["token"]
    whoami = _ok(call(server, "POST", WHOAMI, b"{}", token=token))
    assert whoami["status"]["userInfo"]["username"] == f"system:serviceaccount:{NS}:low"


def _pod(server: LocalApiServer, name: str, account: str) -> dict[str, Any]:
    body = {
        "metadata": {"name": name},
        "spec": {
            "serviceAccountName": account,
            "containers": [{"name": "app", "image": "nginx:1.27"}],
        },
    }
    return dict(_ok(call(server, "POST", f"/api/v1/namespaces/{NS}/pods", _json(body))))


def _bound_pod(server: LocalApiServer, name: str) -> dict[str, Any]:
    """The pod once the simulated node has bound it (spec.nodeName set)."""
    for _ in range(400):  # a bound on the wait, not a timing check
        pod = _ok(call(server, "GET", f"/api/v1/namespaces/{NS}/pods/{name}"))
        if pod["spec"].get("nodeName"):
            return dict(pod)
        time.sleep(0.05)
    raise AssertionError(f"pod {name} was never bound to a node")


def test_bound_objects_must_exist_match_their_uid_and_run_as_the_account(
    server: LocalApiServer,
) -> None:
    missing = _token_request(server, {"apiVersion": "v1", "kind": "Pod", "name": "ghost"})
    assert missing[0] == 404 and missing[1]["message"] == 'pods "ghost" not found', missing
    node = _token_request(server, {"apiVersion": "v1", "kind": "Node", "name": "ghost"})
    assert node[0] == 404 and node[1]["message"] == 'nodes "ghost" not found', node

    _pod(server, "runs-as-admin", "admin-sa")
    foreign = _token_request(server, {"apiVersion": "v1", "kind": "Pod", "name": "runs-as-admin"})
    assert foreign[0] == 400, foreign
    assert foreign[1]["message"] == (
        'cannot bind token for serviceaccount "low" to pod running with different '
        "serviceaccount name."
    )

    _pod(server, "runs-as-low", "low")
    stale = {"apiVersion": "v1", "kind": "Pod", "name": "runs-as-low", "uid": "not-its-uid"}
    status, body = _token_request(server, stale)
    assert status == 409 and body["reason"] == "Conflict", body
    assert body["message"] == (
        'Operation cannot be fulfilled on Pod "runs-as-low": the UID in the bound object '
        "reference (not-its-uid) does not match the UID in record. The object might have "
        "been deleted and then recreated"
    )


def test_a_pod_bound_token_names_its_pod_and_node_and_dies_with_the_pod(
    server: LocalApiServer,
) -> None:
    _pod(server, "worker", "low")
    pod = _bound_pod(server, "worker")
    uid = pod["metadata"]["uid"]
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "worker", "uid": uid}
    answer = _ok(_token_request(server, ref))
    assert answer["spec"]["boundObjectRef"] == ref
    claims = _claims(answer["status"]["token"])["kubernetes.io"]
    assert claims["namespace"] == NS
    assert claims["serviceaccount"]["name"] == "low"
    assert claims["pod"] == {"name": "worker", "uid": uid}
    assert claims["node"]["name"] == pod["spec"]["nodeName"]
    node = _ok(call(server, "GET", f"/api/v1/nodes/{pod['spec']['nodeName']}"))
    assert claims["node"]["uid"] == node["metadata"]["uid"]

    token = answer["status"]["token"]
    info = _ok(call(server, "POST", WHOAMI, b"{}", token=token))["status"]["userInfo"]
    assert info["username"] == f"system:serviceaccount:{NS}:low"
    assert info["extra"]["authentication.kubernetes.io/pod-name"] == ["worker"]
    assert info["extra"]["authentication.kubernetes.io/pod-uid"] == [uid]
    assert info["extra"]["authentication.kubernetes.io/node-name"] == [pod["spec"]["nodeName"]]

    path = f"/api/v1/namespaces/{NS}/pods/worker?gracePeriodSeconds=0"
    _ok(call(server, "DELETE", path))
    for _ in range(400):  # until the pod is gone for good (bounded, not timed)
        if call(server, "GET", f"/api/v1/namespaces/{NS}/pods/worker")[0] == 404:
            break
        time.sleep(0.05)
    assert call(server, "POST", WHOAMI, b"{}", token=token)[0] == 401


def test_a_secret_bound_token_is_the_account_and_dies_with_the_secret(
    server: LocalApiServer,
) -> None:
    body = {"metadata": {"name": "anchor"}, "type": "Opaque"}
    secret = _ok(call(server, "POST", f"/api/v1/namespaces/{NS}/secrets", _json(body)))
    ref = {"apiVersion": "v1", "kind": "Secret", "name": "anchor"}
    token = _ok(_token_request(server, ref))["status"]["token"]
    claims = _claims(token)["kubernetes.io"]
    assert claims["secret"] == {"name": "anchor", "uid": secret["metadata"]["uid"]}
    info = _ok(call(server, "POST", WHOAMI, b"{}", token=token))["status"]["userInfo"]
    assert info["username"] == f"system:serviceaccount:{NS}:low"
    _ok(call(server, "DELETE", f"/api/v1/namespaces/{NS}/secrets/anchor"))
    assert call(server, "POST", WHOAMI, b"{}", token=token)[0] == 401


# --- aggregationRule -----------------------------------------------------------------------

_AGGREGATE_ALL = {
    "clusterRoleSelectors": [
        {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-admin": "true"}}
    ]
}
_NO_AGGREGATION = "must have cluster-admin privileges to use the aggregationRule"


def _cluster_role_writer(server: LocalApiServer, name: str, escalate: bool) -> str:
    verbs = ["create", "update", "patch", "get"] + (["escalate"] if escalate else [])
    rule = {"apiGroups": [GROUP], "resources": ["clusterroles"], "verbs": verbs}
    body = {"metadata": {"name": f"{name}-writes-clusterroles"}, "rules": [rule]}
    _ok(call(server, "POST", f"{RBAC}/clusterroles", _json(body)))
    binding = {
        "metadata": {"name": f"{name}-writes-clusterroles"},
        "roleRef": {
            "apiGroup": GROUP,
            "kind": "ClusterRole",
            "name": f"{name}-writes-clusterroles",
        },
        "subjects": [{"kind": "User", "name": name}],
    }
    _ok(call(server, "POST", f"{RBAC}/clusterrolebindings", _json(binding)))
    return _as(server, name)


def test_an_aggregation_rule_needs_escalate_or_cluster_admin(server: LocalApiServer) -> None:
    writer = _cluster_role_writer(server, "rita", escalate=False)
    grab = {"metadata": {"name": "grab-all"}, "aggregationRule": _AGGREGATE_ALL, "rules": []}
    status, body = call(server, "POST", f"{RBAC}/clusterroles", _json(grab), token=writer)
    assert status == 403 and body["reason"] == "Forbidden", body
    assert body["message"] == (
        f'clusterroles.rbac.authorization.k8s.io "grab-all" is forbidden: {_NO_AGGREGATION}'
    )
    # Patching it into a harmless role she may write is refused the same way.
    harmless = {"metadata": {"name": "harmless"}, "rules": []}
    _ok(call(server, "POST", f"{RBAC}/clusterroles", _json(harmless), token=writer))
    patch = _json({"aggregationRule": _AGGREGATE_ALL})
    status, body = call(
        server,
        "PATCH",
        f"{RBAC}/clusterroles/harmless",
        patch,
        content_type="application/merge-patch+json",
        token=writer,
    )
    assert status == 403 and body["message"].endswith(_NO_AGGREGATION), body
    stored = _ok(call(server, "GET", f"{RBAC}/clusterroles/harmless"))
    assert "aggregationRule" not in stored

    allowed = _cluster_role_writer(server, "ella", escalate=True)
    grab["metadata"] = {"name": "grab-with-escalate"}
    _ok(call(server, "POST", f"{RBAC}/clusterroles", _json(grab), token=allowed))


# --- bindings to roles that do not exist yet -----------------------------------------------


def test_binding_a_role_that_does_not_exist_yet_is_checked_like_any_other(
    server: LocalApiServer,
) -> None:
    rules = [{"apiGroups": [GROUP], "resources": ["rolebindings"], "verbs": ["create"]}]
    _role(server, "binding-maker", rules)
    _binding(server, "RoleBinding", "bob-makes-bindings", "binding-maker", "User", "bob")
    bob = _as(server, "bob")

    def bind(role_kind: str, role: str) -> tuple[int, Any]:
        body = {
            "metadata": {"name": f"bob-{role_kind.lower()}-{role}"},
            "roleRef": {"apiGroup": GROUP, "kind": role_kind, "name": role},
            "subjects": [{"kind": "User", "name": "bob"}],
        }
        return call(server, "POST", f"{RBAC}/namespaces/{NS}/rolebindings", _json(body), token=bob)

    status, body = bind("Role", "later")
    assert (status, body["reason"]) == (404, "NotFound"), body
    assert body["message"] == 'roles.rbac.authorization.k8s.io "later" not found'
    status, body = bind("ClusterRole", "later")
    assert (status, body["message"]) == (
        404,
        'clusterroles.rbac.authorization.k8s.io "later" not found',
    ), body

    _role(server, "later", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}])
    status, body = bind("Role", "later")
    assert status == 403 and "attempting to grant RBAC permissions" in body["message"], body
    assert call(server, "GET", f"/api/v1/namespaces/{NS}/secrets", token=bob)[0] == 403

    # With the bind verb, a role that does not exist yet may be bound, as on a real server.
    binder = [
        {"apiGroups": [GROUP], "resources": ["rolebindings"], "verbs": ["create"]},
        {"apiGroups": [GROUP], "resources": ["roles"], "verbs": ["bind"]},
    ]
    _role(server, "role-binder", binder)
    _binding(server, "RoleBinding", "bea-binds", "role-binder", "User", "bea")
    body = {
        "metadata": {"name": "bea-to-future"},
        "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": "future"},
        "subjects": [{"kind": "User", "name": "bea"}],
    }
    path = f"{RBAC}/namespaces/{NS}/rolebindings"
    _ok(call(server, "POST", path, _json(body), token=_as(server, "bea")))
