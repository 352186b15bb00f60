"""Discovery against the real local API server: aggregated and legacy, built-ins, GVK mapping,
CRDs installed later and removed, unknown names."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from kf_widgets import crd_manifest

from kubeforge.client import Client, KindNotFound, discovery
from kubeforge.core.errors import NotFound, ResourceNotFound
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


async def test_the_local_server_is_discovered_through_aggregated_discovery(client: Client) -> None:
    client.discovery.invalidate()
    await client.discovery.resources()
    assert client.discovery.aggregated is True


async def test_legacy_discovery_finds_the_same_resources_as_aggregated(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.discovery.invalidate()
    aggregated = await client.discovery.resources()
    preferred = await client.discovery.preferred()
    # A server that ignores the aggregated media types answers plain JSON, as this Accept asks.
    monkeypatch.setattr(discovery, "AGGREGATED_ACCEPT", "application/json")
    client.discovery.invalidate()
    legacy = await client.discovery.resources()
    assert client.discovery.aggregated is False
    assert set(legacy) == set(aggregated)
    assert set(await client.discovery.preferred()) == set(preferred)


async def test_a_kind_maps_to_its_resource_and_back(client: Client) -> None:
    info = await client.discovery.for_kind("coordination.k8s.io/v1", "Lease")
    assert (info.plural, info.namespaced) == ("leases", True)
    assert await client.discovery.for_kind("v1", "ConfigMap") == ConfigMap.info
    assert await client.discovery.resolve("leases.coordination.k8s.io") == info


async def test_an_unknown_kind_reads_like_the_rest_mapper(client: Client) -> None:
    with pytest.raises(KindNotFound) as info:
        await client.discovery.for_kind("example.com/v9", "Flumph")
    assert str(info.value) == 'no matches for kind "Flumph" in version "example.com/v9"'
    assert isinstance(info.value, ResourceNotFound)


async def test_preferred_versions_list_each_resource_once(client: Client) -> None:
    preferred = await client.discovery.preferred()
    keys = [(info.group, info.plural) for info in preferred]
    assert len(keys) == len(set(keys))
    assert ("coordination.k8s.io", "leases") in keys and ("", "pods") in keys


async def test_a_removed_crd_stops_resolving(client: Client, namespace: str) -> None:
    group = f"g{uuid.uuid4().hex[:8]}.example.com"
    crds = client.dynamic(CustomResourceDefinition.info)
    await crds.create(crd_manifest(group, "Gizmo", "gizmos"))
    info = await client.discovery.for_kind(f"{group}/v1", "Gizmo")
    await client.dynamic(info, namespace=namespace).create({"metadata": {"name": "g"}})
    await crds.delete(f"gizmos.{group}")
    # Using the stale mapping fails on the server, which also tells discovery to forget it.
    with pytest.raises(NotFound):
        for _ in range(100):  # the CRD's removal finishes in the background
            await client.dynamic(info, namespace=namespace).list()
            await asyncio.sleep(0.05)
    with pytest.raises(ResourceNotFound):
        await client.discovery.resolve(f"gizmos.{group}")
    with pytest.raises(KindNotFound):
        await client.discovery.for_kind(f"{group}/v1", "Gizmo")
