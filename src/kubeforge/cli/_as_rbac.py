"""Become the project's manager as deployed: its ServiceAccount, bound only to config/rbac.

Entry point: ``as_manager_account(client, project)``: with an admin ``client``,
applies the project's CRDs, namespace(s), ServiceAccount and everything under
``config/rbac`` (as ``kubectl apply`` would), asks the API server for a token of the
ServiceAccount (a TokenRequest, what the kubelet mounts into the manager's pod),
and returns a ``ClientConfig`` that authenticates with that token alone. A
manager using it may do exactly what the generated roles grant, so a missing
permission fails with the server's own 403. Used by the pytest plugin's
``kube_manager`` fixture and by ``kubeforge run --as-generated-rbac``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kubeforge.cli._cluster import Cluster
from kubeforge.cli._generate import CRD_BASES
from kubeforge.cli._project import Project
from kubeforge.cli._rbac import rbac_objects
from kubeforge.client import Client
from kubeforge.config import ClientConfig
from kubeforge.crd import install_crds, load_manifests

__all__ = ["as_manager_account", "manager_account_config"]

_TOKEN_SECONDS = 3600


async def as_manager_account(client: Client, project: Project) -> ClientConfig:
    """Apply the project's RBAC (and CRDs) with ``client``; the manager account's config."""
    crds = project.root / CRD_BASES
    if crds.is_dir() and any(crds.glob("*.yaml")):
        await install_crds(client, load_manifests(crds))
    cluster = Cluster(client)
    objects = rbac_objects(project)
    for namespace in sorted(_namespaces(project, objects)):
        await cluster.apply(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
    for obj in objects:
        await cluster.apply(obj)
    return await manager_account_config(client, project)


async def manager_account_config(client: Client, project: Project) -> ClientConfig:
    """A config authenticating as the project's manager ServiceAccount (which must exist)."""
    path = f"/api/v1/namespaces/{project.namespace}/serviceaccounts/{project.manager_name}/token"
    body = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": _TOKEN_SECONDS},
    }
    answer = await client.request("POST", path, body=body)
    token = str(answer["status"]["token"])
    return _only_token(client.config, token, project)


def _only_token(config: ClientConfig, token: str, project: Project) -> ClientConfig:
    # Every other credential and any impersonation is dropped: the manager must be
    # exactly the ServiceAccount, nothing more.
    return dataclasses.replace(
        config,
        token=token,
        token_file=None,
        client_cert_data=None,
        client_cert_file=None,
        client_key_data=None,
        client_key_file=None,
        username=None,
        password=None,
        exec_plugin=None,
        impersonate_user=None,
        impersonate_uid=None,
        impersonate_groups=(),
        impersonate_extra={},
        namespace=project.namespace,
    )


def _namespaces(project: Project, objects: list[dict[str, Any]]) -> set[str]:
    found = {project.namespace}
    for obj in objects:
        namespace = (obj.get("metadata") or {}).get("namespace")
        if namespace:
            found.add(str(namespace))
    return found
