"""The default RBAC policy of ``--authorization RBAC``: the objects a 1.32 server creates,
what they grant (asked over HTTP and with ``kubectl auth can-i``), and the reconciling
at every start (missing permissions added, ``autoupdate: "false"`` roles left alone)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kf_http import Api, open_api

from kubeforge.apiserver.authz.bootstrap_data import bootstrap_policy, check
from kubeforge.apiserver.authz.reconcile import AUTOUPDATE, reconciled_binding, reconciled_role
from kubeforge.testing import LocalApiServer

RBAC = "/apis/rbac.authorization.k8s.io/v1"
AUTHZ = "/apis/authorization.k8s.io/v1"
GROUP = "rbac.authorization.k8s.io"
DEFAULTS = "kubernetes.io/bootstrapping=rbac-defaults"

# The item counts of the 1.32 testdata files: cluster-roles.yaml 31 + controller-roles.yaml
# 33; cluster-role-bindings.yaml 12 + controller-role-bindings.yaml 33;
# namespace-roles.yaml 7; namespace-role-bindings.yaml 7.
COUNTS = {"clusterroles": 64, "clusterrolebindings": 45, "roles": 7, "rolebindings": 7}


async def _names(admin: Api, plural: str) -> list[str]:
    path = f"{RBAC}/{plural}"
    listed = await admin.get(path, labelSelector=DEFAULTS)
    assert listed.status == 200, listed.body
    return sorted(
        f"{i['metadata'].get('namespace', '')}/{i['metadata']['name']}".lstrip("/")
        for i in listed.body["items"]
    )


async def test_the_defaults_are_the_objects_of_the_1_32_testdata(admin: Api) -> None:
    assert check() == []
    policy = dict(bootstrap_policy().by_plural())
    for plural, count in COUNTS.items():
        names = await _names(admin, plural)
        assert len(names) == count, plural
        expected = sorted(
            f"{o['metadata'].get('namespace', '')}/{o['metadata']['name']}".lstrip("/")
            for o in policy[plural]
        )
        assert names == expected
    roles = await _names(admin, "clusterroles")
    for name in (
        "system:auth-delegator",
        "system:kube-controller-manager",
        "system:kube-scheduler",
        "system:node",
        "system:node-proxier",
        "system:kubelet-api-admin",
        "system:volume-scheduler",
        "system:certificates.k8s.io:legacy-unknown-approver",
        "system:monitoring",
        "system:controller:replicaset-controller",
        "system:controller:clusterrole-aggregation-controller",
    ):
        assert name in roles
    assert "kube-system/system::leader-locking-kube-scheduler" in await _names(admin, "roles")
    node = (await admin.get(f"{RBAC}/clusterroles/system:node")).body
    assert node["metadata"]["labels"] == {"kubernetes.io/bootstrapping": "rbac-defaults"}
    assert node["metadata"]["annotations"] == {
        "rbac.authorization.kubernetes.io/autoupdate": "true"
    }
    bound = (await admin.get(f"{RBAC}/clusterrolebindings/system:controller:job-controller")).body
    # (kubeforge writes the defaulted "apiGroup": "" that Go's omitempty leaves out)
    assert [{k: v for k, v in s.items() if v} for s in bound["subjects"]] == [
        {"kind": "ServiceAccount", "name": "job-controller", "namespace": "kube-system"}
    ]


async def _review(admin: Api, user: str, groups: list[str], **attributes: str) -> dict[str, Any]:
    spec = {"user": user, "groups": groups, "resourceAttributes": attributes}
    reply = await admin.post(f"{AUTHZ}/subjectaccessreviews", {"spec": spec})
    assert reply.status == 201, reply.body
    status: dict[str, Any] = reply.body["status"]
    return status


def _can_i(server: LocalApiServer, tmp_path: Path, *args: str) -> str:
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl must be on PATH"
    done = subprocess.run(
        [
            kubectl,
            f"--kubeconfig={server.kubeconfig}",
            f"--cache-dir={tmp_path}",
            "auth",
            "can-i",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.stdout.strip()


async def test_a_service_account_bound_to_auth_delegator_reviews_tokens_and_access(
    admin: Api, rbac_server: LocalApiServer, tmp_path: Path
) -> None:
    ns = await admin.create_namespace("delegator")
    await admin.post(f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "proxy"}})
    who = f"system:serviceaccount:{ns}:proxy"
    groups = ["system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"]
    review = {"group": "authentication.k8s.io", "resource": "tokenreviews", "verb": "create"}
    assert (await _review(admin, who, groups, **review))["allowed"] is False
    assert _can_i(rbac_server, tmp_path, "create", "tokenreviews", f"--as={who}") == "no"
    subject = {"kind": "ServiceAccount", "name": "proxy", "namespace": ns}
    bound = await admin.post(
        f"{RBAC}/clusterrolebindings",
        {
            "metadata": {"name": f"{ns}-auth-delegator"},
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "system:auth-delegator"},
            "subjects": [subject],
        },
    )
    assert bound.status == 201, bound.body
    allowed = await _review(admin, who, groups, **review)
    assert allowed["allowed"] is True
    assert allowed["reason"] == (
        f'RBAC: allowed by ClusterRoleBinding "{ns}-auth-delegator" of ClusterRole '
        f'"system:auth-delegator" to ServiceAccount "proxy/{ns}"'
    )
    sar = {"group": "authorization.k8s.io", "resource": "subjectaccessreviews", "verb": "create"}
    assert (await _review(admin, who, groups, **sar))["allowed"] is True
    assert _can_i(rbac_server, tmp_path, "create", "tokenreviews", f"--as={who}") == "yes"
    assert _can_i(rbac_server, tmp_path, "create", "subjectaccessreviews", f"--as={who}") == "yes"
    assert (
        _can_i(rbac_server, tmp_path, "create", "localsubjectaccessreviews", f"--as={who}") == "no"
    )
    # The account itself, with a token of its own: the reviews it may now create.
    token = await admin.post(f"/api/v1/namespaces/{ns}/serviceaccounts/proxy/token", {"spec": {}})
    headers = {"Authorization": f"Bearer {token.body['status']['token']}"}
    spec = {"user": "someone", "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}
    asked = await admin.request(
        "POST", f"{AUTHZ}/subjectaccessreviews", {"spec": spec}, headers=headers
    )
    assert asked.status == 201, asked.body
    assert asked.body["status"]["allowed"] is False  # a user in no group is bound to nothing
    reviewed = await admin.request(
        "POST", "/apis/authentication.k8s.io/v1/tokenreviews",
        {"spec": {"token": "not-a-token"}}, headers=headers,
    )  # fmt: skip
    assert reviewed.status == 201, reviewed.body
    assert reviewed.body["status"].get("authenticated") is not True


async def test_the_control_plane_reads_the_authentication_configmap_in_kube_system(
    admin: Api, rbac_server: LocalApiServer, tmp_path: Path
) -> None:
    reader = {
        "namespace": "kube-system",
        "resource": "configmaps",
        "name": "extension-apiserver-authentication",
        "verb": "get",
    }
    allowed = await _review(admin, "system:kube-scheduler", [], **reader)
    assert allowed["allowed"] is True
    assert allowed["reason"] == (
        'RBAC: allowed by RoleBinding "system::extension-apiserver-authentication-reader/'
        'kube-system" of Role "extension-apiserver-authentication-reader" to User '
        '"system:kube-scheduler"'
    )
    other = {**reader, "name": "cluster-info"}
    assert (await _review(admin, "system:kube-scheduler", [], **other))["allowed"] is False
    elsewhere = {**reader, "namespace": "default"}
    assert (await _review(admin, "system:kube-scheduler", [], **elsewhere))["allowed"] is False
    role = (
        await admin.get(
            f"{RBAC}/namespaces/kube-system/roles/extension-apiserver-authentication-reader"
        )
    ).body
    assert role["rules"] == [
        {
            "apiGroups": [""],
            "resourceNames": ["extension-apiserver-authentication"],
            "resources": ["configmaps"],
            "verbs": ["get", "list", "watch"],
        }
    ]
    as_scheduler = "--as=system:kube-scheduler"
    args = ("get", "configmaps/extension-apiserver-authentication", "-n", "kube-system")
    assert _can_i(rbac_server, tmp_path, *args, as_scheduler) == "yes"
    # A controller's account holds its system:controller:* role.
    job_controller = "--as=system:serviceaccount:kube-system:job-controller"
    assert _can_i(rbac_server, tmp_path, "create", "pods", "-n", "default", job_controller) == "yes"
    assert (
        _can_i(rbac_server, tmp_path, "create", "secrets", "-n", "default", job_controller) == "no"
    )


@pytest.fixture
async def durable(tmp_path: Path) -> AsyncIterator[LocalApiServer]:
    server = LocalApiServer(data_dir=tmp_path / "data", simulate_node=False, authorization="RBAC")
    with server:
        yield server


async def test_a_restart_adds_missing_permissions_and_keeps_a_protected_role(
    durable: LocalApiServer,
) -> None:
    async with await open_api(durable) as session:
        admin = Api(durable, session)
        dns = (await admin.get(f"{RBAC}/clusterroles/system:kube-dns")).body
        dns["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = "false"
        dns["rules"] = [{"apiGroups": [""], "resources": ["services"], "verbs": ["get"]}]
        assert (await admin.put(f"{RBAC}/clusterroles/system:kube-dns", dns)).status == 200
        heapster = (await admin.get(f"{RBAC}/clusterroles/system:heapster")).body
        extra = {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]}
        heapster["rules"] = [heapster["rules"][0], extra]
        heapster["metadata"]["labels"]["team"] = "metrics"
        assert (await admin.put(f"{RBAC}/clusterroles/system:heapster", heapster)).status == 200
        basic = f"{RBAC}/clusterrolebindings/system:basic-user"
        user_bound = (await admin.get(basic)).body
        user_bound["subjects"] = [{"apiGroup": GROUP, "kind": "User", "name": "ann"}]
        assert (await admin.put(basic, user_bound)).status == 200
        assert (await admin.delete(f"{RBAC}/clusterroles/system:node-bootstrapper")).status == 200
    durable.restart()
    async with await open_api(durable) as session:
        admin = Api(durable, session)
        kept = (await admin.get(f"{RBAC}/clusterroles/system:kube-dns")).body
        assert kept["rules"] == [{"apiGroups": [""], "resources": ["services"], "verbs": ["get"]}]
        restored = (await admin.get(f"{RBAC}/clusterroles/system:heapster")).body
        # The removed rule comes back broken down (one resource, one verb each), after
        # the user's own, which stays; so do the user's labels.
        read = ["get", "list", "watch"]
        core = {"apiGroups": [""], "resources": ["events", "namespaces", "nodes", "pods"]}
        broken_down = [
            {"apiGroups": ["extensions"], "resources": ["deployments"], "verbs": [verb]}
            for verb in read
        ]
        assert restored["rules"] == [{**core, "verbs": read}, extra, *broken_down]
        assert restored["metadata"]["labels"]["team"] == "metrics"
        subjects = (await admin.get(f"{RBAC}/clusterrolebindings/system:basic-user")).body
        assert subjects["subjects"] == [
            {"apiGroup": GROUP, "kind": "User", "name": "ann"},
            {"apiGroup": GROUP, "kind": "Group", "name": "system:authenticated"},
        ]
        recreated = await admin.get(f"{RBAC}/clusterroles/system:node-bootstrapper")
        assert recreated.status == 200
        assert len(await _names(admin, "clusterroles")) == COUNTS["clusterroles"]


def _as_testdata(objects: list[dict[str, Any]]) -> str:
    items = []
    for obj in objects:
        item = {**obj, "metadata": {**obj["metadata"], "creationTimestamp": None}}
        items.append(item)
    return yaml.safe_dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {}})


def test_the_check_compares_the_data_with_a_testdata_folder(tmp_path: Path) -> None:
    policy = bootstrap_policy()

    def split(objects: list[dict[str, Any]], controller: bool) -> list[dict[str, Any]]:
        prefix = "system:controller:"
        return [o for o in objects if o["metadata"]["name"].startswith(prefix) == controller]

    files = {
        "cluster-roles.yaml": split(policy.cluster_roles, False),
        "controller-roles.yaml": split(policy.cluster_roles, True),
        "cluster-role-bindings.yaml": split(policy.cluster_role_bindings, False),
        "controller-role-bindings.yaml": split(policy.cluster_role_bindings, True),
        "namespace-roles.yaml": policy.roles,
        "namespace-role-bindings.yaml": policy.role_bindings,
    }
    for name, objects in files.items():
        (tmp_path / name).write_text(_as_testdata(objects))
    assert check(tmp_path) == []
    files["namespace-roles.yaml"][1]["rules"][0]["verbs"] = ["get"]
    (tmp_path / "namespace-roles.yaml").write_text(_as_testdata(files["namespace-roles.yaml"]))
    problem = "namespace-roles.yaml: extension-apiserver-authentication-reader differs"
    assert check(tmp_path) == [problem]


def test_reconciling_adds_selectors_and_subjects_and_recreates_for_a_new_role_ref() -> None:
    policy = bootstrap_policy()
    view = next(o for o in policy.cluster_roles if o["metadata"]["name"] == "view")
    mine = {"matchLabels": {"team": "view"}}
    stored = {**view, "aggregationRule": {"clusterRoleSelectors": [mine]}, "rules": []}
    change = reconciled_role(stored, view)
    assert change is not None
    assert change.obj["aggregationRule"]["clusterRoleSelectors"] == [
        mine,
        *view["aggregationRule"]["clusterRoleSelectors"],
    ]
    discovery = next(
        o for o in policy.cluster_role_bindings if o["metadata"]["name"] == "system:discovery"
    )
    assert reconciled_binding(discovery, discovery) is None
    moved = {**discovery, "roleRef": {**discovery["roleRef"], "name": "view"}}
    recreated = reconciled_binding(moved, discovery)
    assert recreated is not None and recreated.recreate
    assert recreated.obj["roleRef"]["name"] == "system:discovery"
    protected = {**moved, "metadata": {**moved["metadata"], "annotations": {AUTOUPDATE: "false"}}}
    assert reconciled_binding(protected, discovery) is None
