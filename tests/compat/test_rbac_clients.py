"""RBAC as real clients meet it: a server run with ``--authorization RBAC`` and a restricted
kubeconfig from ``--user-kubeconfig``, driven by kubectl and the official Python client."""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException

from kubeforge.testing import LocalApiServer

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

_counter = itertools.count()


@pytest.fixture(scope="module")
def jane_kubeconfig() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="kubeforge-rbac-") as scratch:
        yield Path(scratch) / "jane.kubeconfig"


@pytest.fixture(scope="module")
def rbac_server(jane_kubeconfig: Path) -> Iterator[LocalApiServer]:
    args = ("--authorization", "rbac", "--user-kubeconfig", f"jane,devs={jane_kubeconfig}")
    with LocalApiServer(simulate_node=False, extra_args=args) as server:
        yield server


@pytest.fixture
def ns(rbac_server: LocalApiServer, tmp_path: Path) -> str:
    name = f"rbac-{next(_counter)}"
    Kubectl(rbac_server.kubeconfig, tmp_path / "admin-ns", "default").run(
        "create", "namespace", name, namespaced=False
    )
    return name


@pytest.fixture
def admin(rbac_server: LocalApiServer, ns: str, tmp_path: Path) -> Kubectl:
    return Kubectl(rbac_server.kubeconfig, tmp_path / "admin-cache", ns)


@pytest.fixture
def jane(jane_kubeconfig: Path, ns: str, tmp_path: Path) -> Kubectl:
    return Kubectl(jane_kubeconfig, tmp_path / "jane-cache", ns)


def _client(kubeconfig: Path) -> Any:
    return k8s_config.new_client_from_config(config_file=str(kubeconfig))


def test_kubectl_shows_the_real_forbidden_message(jane: Kubectl, ns: str) -> None:
    error = jane.fails("get", "pods")
    assert error.strip() == (
        f'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource '
        f'"pods" in API group "" in the namespace "{ns}"'
    )
    created = jane.fails("create", "deployment", "web", "--image=nginx")
    assert (
        'deployments.apps is forbidden: User "jane" cannot create resource "deployments" in API '
        f'group "apps" in the namespace "{ns}"'
    ) in created


def test_a_role_binding_made_with_kubectl_grants_exactly_its_role(
    admin: Kubectl, jane: Kubectl, ns: str
) -> None:
    admin.run("create", "rolebinding", "jane-view", "--clusterrole=view", "--user=jane")
    listed = jane.complete("get", "pods")
    assert (listed.returncode, listed.stderr.strip()) == (
        0,
        f"No resources found in {ns} namespace.",
    )
    assert jane.run("auth", "can-i", "list", "deployments.apps").strip() == "yes"
    denied = jane.complete("auth", "can-i", "delete", "pods")
    assert (denied.returncode, denied.stdout.strip()) == (1, "no")
    assert "secrets is forbidden" in jane.fails("get", "secrets")
    assert "forbidden" in jane.fails("get", "pods", "--namespace=default", namespaced=False)


def test_group_bindings_apply_to_the_groups_in_the_kubeconfig(
    admin: Kubectl, jane: Kubectl
) -> None:
    admin.run("create", "rolebinding", "devs-edit", "--clusterrole=edit", "--group=devs")
    assert jane.run("create", "configmap", "made-by-jane").strip() == (
        "configmap/made-by-jane created"
    )
    whoami = jane.run("auth", "whoami")
    assert "[devs system:authenticated]" in whoami


def test_auth_can_i_as_another_user_and_list(admin: Kubectl, jane: Kubectl) -> None:
    admin.run("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods")
    admin.run("create", "rolebinding", "jane-reads", "--role=pod-reader", "--user=jane")
    assert admin.run("auth", "can-i", "list", "pods", "--as=jane").strip() == "yes"
    assert admin.complete("auth", "can-i", "list", "secrets", "--as=jane").stdout.strip() == "no"
    rules = jane.run("auth", "can-i", "--list")
    assert any(line.split()[:1] == ["pods"] for line in rules.splitlines())


def test_a_service_account_token_carries_the_accounts_permissions(
    rbac_server: LocalApiServer, admin: Kubectl, ns: str, tmp_path: Path
) -> None:
    admin.run("create", "serviceaccount", "controller")
    bot = Kubectl(
        rbac_server.service_account_kubeconfig(ns, "controller"), tmp_path / "bot-cache", ns
    )
    refused = bot.fails("get", "configmaps")
    assert f'User "system:serviceaccount:{ns}:controller" cannot list resource "configmaps"' in (
        refused
    )
    admin.run(
        "create",
        "rolebinding",
        "controller",
        "--clusterrole=edit",
        f"--serviceaccount={ns}:controller",
    )
    assert bot.complete("get", "configmaps").returncode == 0


def test_the_official_client_raises_403_with_the_status(
    rbac_server: LocalApiServer, jane_kubeconfig: Path, ns: str
) -> None:
    api = _client(jane_kubeconfig)
    try:
        with pytest.raises(ApiException) as caught:
            k8s.AppsV1Api(api).list_namespaced_deployment(ns)
    finally:
        api.close()
    assert caught.value.status == 403
    assert caught.value.reason == "Forbidden"
    status = json.loads(caught.value.body)
    assert status["message"] == (
        f'deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API '
        f'group "apps" in the namespace "{ns}"'
    )
    assert status["details"] == {"group": "apps", "kind": "deployments"}


def test_the_official_client_manages_rbac_and_reviews_access(
    rbac_server: LocalApiServer, ns: str
) -> None:
    admin = _client(rbac_server.kubeconfig)
    rbac = k8s.RbacAuthorizationV1Api(admin)
    try:
        rbac.create_namespaced_role(
            ns,
            k8s.V1Role(
                metadata=k8s.V1ObjectMeta(name="lister"),
                rules=[
                    k8s.V1PolicyRule(api_groups=["apps"], resources=["deployments"], verbs=["list"])
                ],
            ),
        )
        rbac.create_namespaced_role_binding(
            ns,
            k8s.V1RoleBinding(
                metadata=k8s.V1ObjectMeta(name="sam-lists"),
                role_ref=k8s.V1RoleRef(
                    api_group="rbac.authorization.k8s.io", kind="Role", name="lister"
                ),
                subjects=[
                    k8s.RbacV1Subject(
                        kind="User", name="sam", api_group="rbac.authorization.k8s.io"
                    )
                ],
            ),
        )
        names = [r.metadata.name for r in rbac.list_namespaced_role_binding(ns).items]
        assert names == ["sam-lists"]
        review = k8s.V1SubjectAccessReview(
            spec=k8s.V1SubjectAccessReviewSpec(
                user="sam",
                resource_attributes=k8s.V1ResourceAttributes(
                    namespace=ns, verb="list", group="apps", resource="deployments"
                ),
            )
        )
        answer = k8s.AuthorizationV1Api(admin).create_subject_access_review(review)
        assert answer.status.allowed is True
        assert answer.status.reason == (
            f'RBAC: allowed by RoleBinding "sam-lists/{ns}" of Role "lister" to User "sam"'
        )
    finally:
        admin.close()
    sam = _client(rbac_server.kubeconfig_for("sam"))
    try:
        assert k8s.AppsV1Api(sam).list_namespaced_deployment(ns).items == []
        with pytest.raises(ApiException) as caught:
            k8s.CoreV1Api(sam).list_namespaced_pod(ns)
        assert caught.value.status == 403
    finally:
        sam.close()
