"""An operator that manages a Deployment and waits for it, end to end on the local server.

The operator (written here with kubeforge, as a user would) turns each ConfigMap
labelled ``web=true`` into a Deployment it owns, and marks the ConfigMap
``example.com/available: "true"`` once the Deployment's ``Available`` condition is True —
which only happens because the server's Deployment and ReplicaSet controllers, scheduler
and kubelets run the pods, as a cluster would.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubeforge import Builder, Manager, Request, Result
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta, OwnerReference
from kubeforge.models.apps_v1 import Deployment, DeploymentSpec
from kubeforge.models.core_v1 import ConfigMap, Container, Namespace, PodSpec, PodTemplateSpec
from kubeforge.models.meta_v1 import LabelSelector

from .conftest import eventually

AVAILABLE = "example.com/available"
_namespaces = itertools.count()


def desired_deployment(config: ConfigMap) -> Deployment:
    name = config.metadata.name or ""
    labels = {"app": name}
    owner = OwnerReference(
        api_version="v1",
        kind="ConfigMap",
        name=name,
        uid=config.metadata.uid or "",
        controller=True,
        block_owner_deletion=True,
    )
    return Deployment(
        metadata=ObjectMeta(
            name=name, namespace=config.metadata.namespace, owner_references=[owner]
        ),
        spec=DeploymentSpec(
            replicas=int((config.data or {}).get("replicas", "1")),
            selector=LabelSelector(match_labels=labels),
            template=PodTemplateSpec(
                metadata=ObjectMeta(labels=labels),
                spec=PodSpec(containers=[Container(name="web", image="nginx:1.27")]),
            ),
        ),
    )


def available(deployment: Deployment | None) -> bool:
    conditions = (deployment.status.conditions or []) if deployment and deployment.status else []
    return any(c.type == "Available" and c.status == "True" for c in conditions)


def setup(mgr: Manager) -> None:
    configs = mgr.cache.store(ConfigMap)
    deployments = mgr.cache.store(Deployment)

    async def reconcile(request: Request) -> Result:
        config = configs.get(request.key)
        if config is None or (config.metadata.labels or {}).get("web") != "true":
            return Result()
        deployment = deployments.get(request.key)
        if deployment is None:
            await mgr.client.api(Deployment, namespace=request.namespace).create(
                desired_deployment(config)
            )
            return Result()
        ready = "true" if available(deployment) else "false"
        if (config.metadata.annotations or {}).get(AVAILABLE) != ready:
            patch = {"metadata": {"annotations": {AVAILABLE: ready}}}
            await mgr.client.api(ConfigMap, namespace=request.namespace).patch(
                request.name, patch, patch_type="merge"
            )
        return Result()

    Builder(mgr).named("web").for_(ConfigMap).owns(Deployment).complete(reconcile)


@pytest.fixture
async def operator(kube_apiserver: Any) -> AsyncIterator[Client]:
    manager = Manager(load_config(kube_apiserver.kubeconfig))
    setup(manager)
    task = asyncio.create_task(manager.run())
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        yield client
    manager.stop()
    await task


async def test_the_operator_sees_its_deployment_become_available(operator: Client) -> None:
    client = operator
    namespace = f"e2e-web-{next(_namespaces)}"
    await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=namespace)))
    config = ConfigMap(
        metadata=ObjectMeta(name="shop", namespace=namespace, labels={"web": "true"}),
        data={"replicas": "2"},
    )
    await client.api(ConfigMap, namespace=namespace).create(config)

    async def marked_available() -> list[str]:
        current = await client.api(ConfigMap, namespace=namespace).get("shop")
        value = (current.metadata.annotations or {}).get(AVAILABLE)
        return [] if value == "true" else [f"annotation is {value!r}"]

    await eventually(marked_available, timeout=60.0)
    deployment = await client.api(Deployment, namespace=namespace).get("shop")
    assert deployment.status is not None
    assert deployment.status.available_replicas == 2
    assert deployment.status.ready_replicas == 2
    (owner,) = deployment.metadata.owner_references or []
    assert (owner.kind, owner.name) == ("ConfigMap", "shop")
