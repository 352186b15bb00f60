"""Tokens, request attributes and PolicyRule arithmetic, without a server (injected clock)."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.authn.authenticator import Authenticator, Impersonation, user_token
from kubeforge.apiserver.authz.attributes import Attributes, request_attributes
from kubeforge.apiserver.authz.rules import allows, compact, uncovered

SECRET = "server-token"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def account(uid: str = "uid-1") -> dict[str, Any]:
    return {"metadata": {"namespace": "apps", "name": "bot", "uid": uid}}


def test_a_service_account_token_expires_a_leeway_minute_after_its_expiration() -> None:
    clock = Clock(1_000_000)
    authn = Authenticator(SECRET, clock=clock)
    token, issued = authn.service_account_token(
        account(),
        audiences=("https://kubernetes.default.svc.cluster.local",),
        expiration_seconds=600,
    )
    assert issued == 1_000_000
    user = authn.authenticate_token(token)
    assert user is not None
    assert user.name == "system:serviceaccount:apps:bot"
    assert user.uid == "uid-1"
    clock.now = 1_000_660
    assert authn.authenticate_token(token) is not None
    clock.now = 1_000_661
    assert authn.authenticate_token(token) is None


def test_a_service_account_token_dies_with_its_account() -> None:
    accounts: dict[tuple[str, str], dict[str, Any]] = {("apps", "bot"): account()}
    authn = Authenticator(SECRET, service_accounts=lambda ns, n: accounts.get((ns, n)))
    token, _ = authn.service_account_token(
        account(),
        audiences=("https://kubernetes.default.svc.cluster.local",),
        expiration_seconds=3600,
    )
    assert authn.authenticate_token(token) is not None
    accounts[("apps", "bot")] = account(uid="uid-2")  # deleted and created again
    assert authn.authenticate_token(token) is None


def test_tokens_are_bound_to_their_audience() -> None:
    authn = Authenticator(SECRET)
    token, _ = authn.service_account_token(account(), audiences=("vault",), expiration_seconds=3600)
    assert authn.authenticate_token(token) is None
    assert authn.authenticate_token(token, ("vault",)) is not None


def test_a_token_signed_under_another_server_token_is_refused() -> None:
    assert Authenticator(SECRET).authenticate_token(user_token("other", "jane")) is None
    tampered = user_token(SECRET, "jane")[:-2] + "AA"
    assert Authenticator(SECRET).authenticate_token(tampered) is None
    assert Authenticator(SECRET).authenticate_token("not.a.jwt") is None


def test_the_server_token_is_the_privileged_admin() -> None:
    admin = Authenticator(SECRET).authenticate_token(SECRET)
    assert admin is not None
    assert admin.privileged
    assert admin.groups == ("system:masters", "system:authenticated")


def test_impersonating_a_service_account_implies_its_groups() -> None:
    wanted = Impersonation(user="system:serviceaccount:apps:bot", groups=("extra",))
    assert wanted.identity().groups == (
        "extra",
        "system:serviceaccounts",
        "system:serviceaccounts:apps",
        "system:authenticated",
    )


@pytest.mark.parametrize(
    ("method", "path", "query", "expected"),
    [
        (
            "GET",
            "/api/v1/namespaces/a/pods",
            {},
            Attributes(
                "list",
                path="/api/v1/namespaces/a/pods",
                api_version="v1",
                namespace="a",
                resource="pods",
            ),
        ),
        (
            "GET",
            "/api/v1/pods",
            {"watch": "true"},
            Attributes("watch", path="/api/v1/pods", api_version="v1", resource="pods"),
        ),
        (
            "GET",
            "/api/v1/watch/namespaces/a/pods/p",
            {},
            Attributes(
                "watch",
                path="/api/v1/watch/namespaces/a/pods/p",
                api_version="v1",
                namespace="a",
                resource="pods",
                name="p",
            ),
        ),
        (
            "DELETE",
            "/apis/apps/v1/namespaces/a/deployments",
            {},
            Attributes(
                "deletecollection",
                path="/apis/apps/v1/namespaces/a/deployments",
                api_group="apps",
                api_version="v1",
                namespace="a",
                resource="deployments",
            ),
        ),
        (
            "PUT",
            "/api/v1/namespaces/a/finalize",
            {},
            Attributes(
                "update",
                path="/api/v1/namespaces/a/finalize",
                api_version="v1",
                namespace="a",
                resource="namespaces",
                subresource="finalize",
                name="a",
            ),
        ),
        (
            "PATCH",
            "/apis/apps/v1/namespaces/a/deployments/d/scale",
            {},
            Attributes(
                "patch",
                path="/apis/apps/v1/namespaces/a/deployments/d/scale",
                api_group="apps",
                api_version="v1",
                namespace="a",
                resource="deployments",
                name="d",
                subresource="scale",
            ),
        ),
        (
            "GET",
            "/apis/apps/v1",
            {},
            Attributes("get", resource_request=False, path="/apis/apps/v1"),
        ),
        (
            "GET",
            "/api/v1/namespaces/a/configmaps",
            {"fieldSelector": "metadata.name=cm"},
            Attributes(
                "list",
                path="/api/v1/namespaces/a/configmaps",
                api_version="v1",
                namespace="a",
                resource="configmaps",
                name="cm",
            ),
        ),
    ],
)
def test_request_attributes_follow_the_real_request_info(
    method: str, path: str, query: dict[str, str], expected: Attributes
) -> None:
    assert request_attributes(method, path, query) == expected


def test_rules_match_wildcards_subresources_names_and_url_prefixes() -> None:
    read_pods = {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}
    assert allows(read_pods, Attributes("list", resource="pods"))
    assert not allows(read_pods, Attributes("list", resource="pods", subresource="log"))
    assert not allows(read_pods, Attributes("list", api_group="apps", resource="pods"))
    every_scale = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*/scale"]}
    assert allows(
        every_scale,
        Attributes("patch", api_group="apps", resource="deployments", subresource="scale"),
    )
    named = {
        "verbs": ["get"],
        "apiGroups": [""],
        "resources": ["secrets"],
        "resourceNames": ["tls"],
    }
    assert allows(named, Attributes("get", resource="secrets", name="tls"))
    assert not allows(named, Attributes("list", resource="secrets"))
    urls = {"verbs": ["get"], "nonResourceURLs": ["/apis/*"]}
    assert allows(urls, Attributes("get", resource_request=False, path="/apis/apps/v1"))
    assert not allows(urls, Attributes("get", resource_request=False, path="/api"))


def test_escalation_compares_rule_by_rule_broken_down() -> None:
    owned = [
        {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods", "*/status"]},
        {"verbs": ["get"], "apiGroups": [""], "resources": ["secrets"], "resourceNames": ["a"]},
    ]
    asked = [
        {"verbs": ["get"], "apiGroups": [""], "resources": ["pods", "services/status"]},
        {"verbs": ["get"], "apiGroups": [""], "resources": ["secrets"], "resourceNames": ["a"]},
        {"verbs": ["get", "delete"], "apiGroups": [""], "resources": ["pods"]},
    ]
    missing = uncovered(owned, asked)
    assert [compact(rule) for rule in missing] == [
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'
    ]
    assert uncovered([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}], asked) == []
    everything_named = [{"verbs": ["get"], "apiGroups": [""], "resources": ["secrets"]}]
    assert uncovered(owned, everything_named) == everything_named


def test_a_malformed_user_kubeconfig_option_is_a_usage_error() -> None:
    from click.testing import CliRunner

    from kubeforge.apiserver.server.command import apiserver_command

    result = CliRunner().invoke(apiserver_command, ["--in-memory", "--user-kubeconfig", "jane"])
    assert result.exit_code == 2
    assert "expected USER[,GROUP...]=PATH, got 'jane'" in result.output
