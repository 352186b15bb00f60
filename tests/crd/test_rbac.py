"""RBAC rules declared beside controllers -> one merged, sorted ClusterRole."""

from __future__ import annotations

import types

import pytest

from kubeforge.crd import Rule, generate_rbac, rules_in

FRIGATE_RULES = [
    Rule(groups=["ship.example.com"], resources=["frigates"], verbs=["get", "list", "watch"]),
    Rule(groups=["ship.example.com"], resources=["frigates"], verbs=["update", "patch", "get"]),
    Rule(groups=["ship.example.com"], resources=["frigates/status"], verbs=["get", "update"]),
    Rule(groups=["ship.example.com"], resources=["frigates/status"], verbs=["patch"]),
    Rule(groups=["ship.example.com"], resources=["frigates/finalizers"], verbs=["update"]),
]


def test_rules_for_one_resource_unite_their_verbs_and_resources_with_equal_verbs_share_a_rule() -> (
    None
):
    role = generate_rbac(FRIGATE_RULES, name="manager-role")
    assert role == {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "manager-role"},
        "rules": [
            {
                "apiGroups": ["ship.example.com"],
                "resources": ["frigates"],
                "verbs": ["get", "list", "patch", "update", "watch"],
            },
            {
                "apiGroups": ["ship.example.com"],
                "resources": ["frigates/finalizers"],
                "verbs": ["update"],
            },
            {
                "apiGroups": ["ship.example.com"],
                "resources": ["frigates/status"],
                "verbs": ["get", "patch", "update"],
            },
        ],
    }


def test_core_is_the_core_group_and_groups_with_the_same_resources_and_verbs_merge() -> None:
    rules = generate_rbac(
        [
            Rule(groups=["core"], resources=["pods"], verbs=["get", "list"]),
            Rule(groups=[""], resources=["pods"], verbs=["watch"]),
            Rule(groups=["apps"], resources=["deployments", "statefulsets"], verbs=["get"]),
            Rule(groups=["extensions"], resources=["deployments", "statefulsets"], verbs=["get"]),
        ],
        name="r",
    )["rules"]
    assert rules == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
        {
            "apiGroups": ["apps", "extensions"],
            "resources": ["deployments", "statefulsets"],
            "verbs": ["get"],
        },
    ]


def test_a_star_verb_absorbs_the_others() -> None:
    rules = generate_rbac(
        [
            Rule(groups=["batch"], resources=["jobs"], verbs=["get"]),
            Rule(groups=["batch"], resources=["jobs"], verbs=["*"]),
        ],
        name="r",
    )["rules"]
    assert rules == [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["*"]}]


def test_resource_names_and_urls_stay_in_rules_of_their_own() -> None:
    rules = generate_rbac(
        [
            Rule(groups=[""], resources=["configmaps"], verbs=["get"]),
            Rule(groups=[""], resources=["configmaps"], verbs=["update"], resource_names=["lock"]),
            Rule(urls=["/metrics"], verbs=["get"]),
            Rule(urls=["/healthz"], verbs=["get"]),
        ],
        name="r",
    )["rules"]
    assert rules == [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
        {
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": ["lock"],
            "verbs": ["update"],
        },
        {"nonResourceURLs": ["/healthz", "/metrics"], "verbs": ["get"]},
    ]


def test_the_role_is_the_same_whatever_order_the_rules_come_in() -> None:
    forward = generate_rbac(FRIGATE_RULES, name="r")
    backward = generate_rbac(list(reversed(FRIGATE_RULES)), name="r")
    assert forward == backward


def test_a_namespace_makes_it_a_role() -> None:
    role = generate_rbac(
        [Rule(groups=["coordination.k8s.io"], resources=["leases"], verbs=["get"])],
        name="leader-election",
        namespace="system",
    )
    assert role["kind"] == "Role"
    assert role["metadata"] == {"name": "leader-election", "namespace": "system"}


def test_rules_in_collects_each_modules_rbac_list() -> None:
    first = types.ModuleType("first")
    first.rbac = FRIGATE_RULES[:2]  # type: ignore[attr-defined]
    second = types.ModuleType("second")
    second.rbac = [Rule(urls=["/metrics"], verbs=["get"])]  # type: ignore[attr-defined]
    bare = types.ModuleType("bare")
    assert rules_in(first, bare, second) == [*FRIGATE_RULES[:2], second.rbac[0]]  # type: ignore[attr-defined]

    wrong = types.ModuleType("wrong")
    wrong.rbac = ["get pods"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=r"wrong\.rbac holds 'get pods'"):
        rules_in(wrong)


def test_malformed_rules_fail_where_they_are_declared() -> None:
    with pytest.raises(TypeError, match="list of strings"):
        Rule(groups=["apps"], resources=["deployments"], verbs="get")
    with pytest.raises(ValueError, match="at least one verb"):
        Rule(groups=["apps"], resources=["deployments"], verbs=[])
    with pytest.raises(ValueError, match="either resources"):
        Rule(groups=["apps"], resources=["deployments"], urls=["/x"], verbs=["get"])
    with pytest.raises(ValueError, match="needs groups"):
        Rule(resources=["deployments"], verbs=["get"])
