"""``metrics_secure``: /metrics over HTTPS, authenticated by TokenReview and authorized by
SubjectAccessReview against a local API server that enforces RBAC, answering as
controller-runtime's ``filters.WithAuthenticationAndAuthorization`` does."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import yaml

from kubeforge import ObjectMeta
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.models.rbac_v1 import (
    ClusterRole,
    ClusterRoleBinding,
    PolicyRule,
    RoleRef,
    Subject,
)
from kubeforge.runtime import Manager, ManagerOptions
from kubeforge.testing import LocalApiServer

pytestmark = pytest.mark.live

INSECURE = ssl.create_default_context()
INSECURE.check_hostname = False
INSECURE.verify_mode = ssl.CERT_NONE  # the manager's certificate is self-signed


@pytest.fixture(scope="module")
def rbac_server() -> Any:
    with LocalApiServer(authorization="RBAC") as server:
        yield server


@pytest.fixture
async def secure_manager(rbac_server: LocalApiServer) -> AsyncIterator[Manager]:
    options = ManagerOptions(metrics_bind_address="127.0.0.1:0", metrics_secure=True)
    manager = Manager(load_config(rbac_server.kubeconfig), options=options)
    await manager.metrics_server.start()  # type: ignore[union-attr]
    yield manager
    await manager.metrics_server.stop()  # type: ignore[union-attr]
    await manager.client.close()


def token_of(kubeconfig: Any) -> str:
    return str(yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]["token"])


async def get_metrics(manager: Manager, token: str | None) -> tuple[int, str]:
    url = manager.metrics_server.url + "/metrics"  # type: ignore[union-attr]
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        aiohttp.ClientSession() as session,
        session.get(url, headers=headers, ssl=INSECURE) as response,
    ):
        return response.status, await response.text()


async def grant_metrics_reader(server: LocalApiServer, user: str) -> None:
    async with Client(load_config(server.kubeconfig)) as admin:
        role = ClusterRole(
            metadata=ObjectMeta(name="metrics-reader"),
            rules=[PolicyRule(non_resource_urls=["/metrics"], verbs=["get"])],
        )
        await admin.api(ClusterRole).apply(role, field_manager="test", force=True)
        binding = ClusterRoleBinding(
            metadata=ObjectMeta(name=f"metrics-reader-{user}"),
            role_ref=RoleRef(api_group="rbac.authorization.k8s.io", kind="ClusterRole",
                             name="metrics-reader"),
            subjects=[Subject(kind="User", name=user, api_group="rbac.authorization.k8s.io")],
        )  # fmt: skip
        await admin.api(ClusterRoleBinding).apply(binding, field_manager="test", force=True)


async def test_without_a_valid_token_the_answer_is_401(secure_manager: Manager) -> None:
    assert secure_manager.metrics_server.url.startswith("https://")  # type: ignore[union-attr]
    assert await get_metrics(secure_manager, None) == (401, "Unauthorized\n")
    assert await get_metrics(secure_manager, "not-a-token") == (401, "Unauthorized\n")


async def test_an_authenticated_user_without_the_role_gets_403(
    secure_manager: Manager, rbac_server: LocalApiServer
) -> None:
    token = token_of(rbac_server.kubeconfig_for("jane"))

    assert await get_metrics(secure_manager, token) == (403, "Authorization denied for user jane\n")


async def test_a_user_bound_to_metrics_reader_reads_the_metrics(
    secure_manager: Manager, rbac_server: LocalApiServer
) -> None:
    await grant_metrics_reader(rbac_server, "prometheus")
    token = token_of(rbac_server.kubeconfig_for("prometheus"))

    status, text = await get_metrics(secure_manager, token)

    assert status == 200
    # the reviews went through the manager's client, so its request counter has them
    assert 'rest_client_requests_total{code="201",host=' in text
