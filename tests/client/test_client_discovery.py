"""Discovery against the real local API server: built-ins, CRDs installed later, unknown names."""

from __future__ import annotations

import uuid

import pytest
from kf_widgets import crd_manifest

from kubeforge.client import Client
from kubeforge.core.errors import ResourceNotFound
from kubeforge.models import ConfigMap, CustomResourceDefinition


@pytest.mark.parametrize("typed", ["configmaps", "configmap", "ConfigMap", "cm", "CM"])
async def test_a_built_in_resolves_by_plural_singular_kind_or_short_name(
    client: Client, typed: str
) -> None:
    assert await client.discovery.resolve(typed) == ConfigMap.info


async def test_plural_dot_group_picks_the_grouped_resource(client: Client) -> None:
    info = await client.discovery.resolve("leases.coordination.k8s.io")
    assert (info.group, info.version, info.kind, info.namespaced) == (
        "coordination.k8s.io",
        "v1",
        "Lease",
        True,
    )


async def test_cluster_scoped_resources_are_known_as_such(client: Client) -> None:
    assert (await client.discovery.resolve("ns")).namespaced is False


async def test_an_unknown_resource_reads_like_kubectl(client: Client) -> None:
    with pytest.raises(ResourceNotFound) as info:
        await client.discovery.resolve("flumphs")
    assert str(info.value) == 'the server doesn\'t have a resource type "flumphs"'
    assert info.value.resource == "flumphs"


async def test_a_crd_installed_after_the_first_lookup_is_found(
    client: Client, namespace: str
) -> None:
    group = f"g{uuid.uuid4().hex[:8]}.example.com"
    with pytest.raises(ResourceNotFound):
        await client.discovery.resolve(f"podtoips.{group}")
    await client.dynamic(CustomResourceDefinition.info).create(
        crd_manifest(group, "PodToIp", "podtoips", short_names=("ptp",))
    )
    for typed in (f"podtoips.{group}", f"podtoip.{group}", f"PodToIp.{group}"):
        info = await client.discovery.resolve(typed)
        assert (info.group, info.plural, info.kind) == (group, "podtoips", "PodToIp")
    # Other tests may install their own "ptp"; whichever comes first, it is one of them.
    assert "ptp" in (await client.discovery.resolve("ptp")).short_names

    # The resolved mapping is directly usable by the dynamic face.
    ptps = client.dynamic(info, namespace=namespace)
    created = await ptps.create(
        {"apiVersion": info.api_version, "kind": info.kind, "metadata": {"name": "p"}}
    )
    assert created["metadata"]["namespace"] == namespace
    assert [i["metadata"]["name"] for i in (await ptps.list()).items] == ["p"]


async def test_subresources_are_not_resource_types(client: Client) -> None:
    plurals = [info.plural for info in await client.discovery.resources()]
    assert "pods" in plurals
    assert not [p for p in plurals if "/" in p]
