"""RBAC derived from what a manager is built with (``required_rules``) and checked
against manifests (``missing``), with Kubernetes' rule-matching semantics."""

from __future__ import annotations

from typing import Any

from kubeforge import Builder, Manager, ManagerOptions, Request, Result
from kubeforge.cache import CacheOptions
from kubeforge.crd import Rule, merge_rules
from kubeforge.crd.needs import Need, inspect_setup, required_rules
from kubeforge.crd.rbac_check import grants_for, missing
from kubeforge.models.apps_v1 import Deployment
from kubeforge.models.core_v1 import ConfigMap, Node, Pod, Secret
from kubeforge.runtime import LeaderElectionOptions


async def reconcile(request: Request) -> Result:
    return Result()


def setup(mgr: Manager) -> None:
    (
        Builder(mgr)
        .for_(Deployment, writes_status=True, finalizers=["example.com/cleanup"])
        .owns(ConfigMap)
        .watches(Secret, lambda obj: [], metadata_only=True)
        .complete(reconcile)
    )
    Builder(mgr).named("pods").for_(Pod, namespace="team-a").complete(reconcile)
    mgr.event_recorder("deployer")


def rules(needs: list[Need], **where: Any) -> list[dict[str, Any]]:
    return merge_rules(
        n.rule for n in needs if all(getattr(n, key) == value for key, value in where.items())
    )


def test_every_watch_the_recorder_status_and_finalizers_are_derived() -> None:
    needs = required_rules(inspect_setup(setup))

    assert rules(needs, namespace=None, role="manager") == [
        {"apiGroups": [""], "resources": ["configmaps", "secrets"],
         "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
        {"apiGroups": ["apps"], "resources": ["deployments"],
         "verbs": ["get", "list", "patch", "update", "watch"]},
        {"apiGroups": ["apps"], "resources": ["deployments/finalizers"], "verbs": ["update"]},
        {"apiGroups": ["apps"], "resources": ["deployments/status"],
         "verbs": ["get", "patch", "update"]},
    ]  # fmt: skip
    # a watch restricted to a namespace needs its permissions only there (a Role)
    assert rules(needs, namespace="team-a") == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}
    ]
    reasons = {n.reason for n in needs}
    assert "watched by controller deployment (owns ConfigMap)" in reasons
    assert "watched by controller deployment (watches Secret)" in reasons
    assert "records Events (event_recorder deployer)" in reasons


def test_leader_election_needs_leases_in_the_lease_namespace_only() -> None:
    election = LeaderElectionOptions(lease_name="op-leader", namespace="op-system")
    needs = required_rules(inspect_setup(setup, ManagerOptions(leader_election=election)))

    (lease,) = [n for n in needs if n.role == "leader-election"]
    assert (lease.namespace, lease.rule.resources, lease.rule.verbs) == (
        "op-system",
        ("leases",),
        ("get", "create", "update"),
    )


def test_a_manager_with_nothing_registered_needs_nothing() -> None:
    assert required_rules(inspect_setup(lambda mgr: None)) == []


def role(kind: str, name: str, rules: list[dict[str, Any]], namespace: str = "") -> dict[str, Any]:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"kind": kind, "metadata": meta, "rules": rules}


def binding(kind: str, role_kind: str, name: str, namespace: str = "") -> dict[str, Any]:
    meta = {"name": f"{name}-binding", **({"namespace": namespace} if namespace else {})}
    subject = {"kind": "ServiceAccount", "name": "manager", "namespace": "sys"}
    return {"kind": kind, "metadata": meta, "roleRef": {"kind": role_kind, "name": name},
            "subjects": [subject]}  # fmt: skip


def lacking(need: Need, objects: list[dict[str, Any]]) -> tuple[str, ...]:
    found = missing([need], grants_for(objects, namespace="sys", name="manager"))
    return found[0][1] if found else ()


STATUS = Need(Rule(groups=["apps"], resources=["deployments/status"], verbs=["get", "update"]), "")
PODS_IN_A = Need(Rule(groups=[""], resources=["pods"], verbs=["list"]), "", namespace="a")


def test_wildcards_cover_as_in_kubernetes() -> None:
    for granted in (["*"], ["*/status"], ["deployments/*"], ["deployments/status"]):
        rule = {"apiGroups": ["apps"], "resources": granted, "verbs": ["*"]}
        objects = [
            role("ClusterRole", "r", [rule]),
            binding("ClusterRoleBinding", "ClusterRole", "r"),
        ]
        assert lacking(STATUS, objects) == (), granted
    # the main resource does not grant its subresources
    rule = {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "update"]}
    objects = [role("ClusterRole", "r", [rule]), binding("ClusterRoleBinding", "ClusterRole", "r")]
    assert lacking(STATUS, objects) == ("get", "update")


def test_a_rule_for_named_objects_does_not_cover_every_object() -> None:
    rule = {"apiGroups": [""], "resources": ["pods"], "resourceNames": ["x"], "verbs": ["list"]}
    objects = [role("ClusterRole", "r", [rule]), binding("ClusterRoleBinding", "ClusterRole", "r")]
    assert lacking(PODS_IN_A, objects) == ("list",)


def test_roles_count_only_in_their_binding_s_namespace_and_only_when_bound() -> None:
    rule = {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}
    in_a = [role("Role", "r", [rule], "a"), binding("RoleBinding", "Role", "r", "a")]
    in_b = [role("Role", "r", [rule], "b"), binding("RoleBinding", "Role", "r", "b")]
    assert lacking(PODS_IN_A, in_a) == ()
    assert lacking(PODS_IN_A, in_b) == ("list",)
    assert lacking(PODS_IN_A, [role("ClusterRole", "r", [rule])]) == ("list",)  # unbound
    # a ClusterRole bound in one namespace grants there only
    cluster_in_a = [
        role("ClusterRole", "r", [rule]),
        binding("RoleBinding", "ClusterRole", "r", "a"),
    ]
    assert lacking(PODS_IN_A, cluster_in_a) == ()
    cluster_wide = Need(PODS_IN_A.rule, "")
    assert lacking(cluster_wide, cluster_in_a) == ("list",)


def test_secure_metrics_need_token_and_access_reviews() -> None:
    options = ManagerOptions(metrics_secure=True)
    needs = required_rules(inspect_setup(lambda mgr: None, options))

    assert rules(needs, role="metrics-auth") == [
        {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"],
         "verbs": ["create"]},
        {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"],
         "verbs": ["create"]},
    ]  # fmt: skip


def test_a_cache_restricted_to_namespaces_needs_its_watches_only_there() -> None:
    def namespaced(mgr: Manager) -> None:
        Builder(mgr).for_(ConfigMap).watches(Node, lambda obj: []).complete(reconcile)

    options = ManagerOptions(cache=CacheOptions(default_namespaces=["a", "b"]))
    needs = required_rules(inspect_setup(namespaced, options))

    watched = {(n.rule.resources[0], n.namespace) for n in needs}
    # one Role's worth per namespace for the namespaced kind; Nodes are cluster-scoped
    assert watched == {("configmaps", "a"), ("configmaps", "b"), ("nodes", None)}
