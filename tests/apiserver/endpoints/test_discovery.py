"""Discovery documents built from the registry: legacy, aggregated, /version, negotiation."""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.resources import BUILTIN_RESOURCES
from kubeforge.apiserver.endpoints import discovery
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.core.resource import ResourceInfo

KUBECTL_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json"
)


def _podtoip(version: str = "v1", *, storage: bool = True) -> ServedResource:
    info = ResourceInfo(
        group="example.com",
        version=version,
        kind="PodToIp",
        plural="podtoips",
        namespaced=True,
        short_names=("ptp",),
        singular="podtoip",
    )
    return ServedResource(
        info=info,
        subresources=("status", "scale"),
        categories=("all",),
        schema={"type": "object"},
        storage=storage,
        builtin=False,
        crd_name="podtoips.example.com",
    )


def _registry_with_crd(*served: ServedResource) -> Registry:
    registry = Registry(BUILTIN_RESOURCES)
    registry.add_crd("podtoips.example.com", list(served) or [_podtoip()])
    return registry


def _by_name(resources: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(r for r in resources if r.get("name", r.get("resource")) == name)


def test_kubectl_accept_header_selects_aggregated_v2() -> None:
    assert discovery.negotiate_discovery(KUBECTL_ACCEPT) == "v2"


def test_protobuf_entries_are_skipped_in_favour_of_the_json_ones_behind_them() -> None:
    accept = (
        "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
    )
    assert discovery.negotiate_discovery(accept) == "v2beta1"


def test_plain_json_or_no_accept_header_gets_legacy_discovery() -> None:
    assert discovery.negotiate_discovery("application/json, */*") is None
    assert discovery.negotiate_discovery(None) is None
    assert discovery.negotiate_discovery("") is None


def test_plain_json_listed_first_wins_over_aggregated_listed_later() -> None:
    accept = "application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    assert discovery.negotiate_discovery(accept) is None


def test_version_reads_like_a_real_1_32_server() -> None:
    info = discovery.version_info()
    assert (info["major"], info["minor"]) == ("1", "32")
    assert info["gitVersion"].startswith("v1.32.")
    assert len(info["gitCommit"]) == 40
    assert int(info["gitCommit"], 16) >= 0
    for key in ("buildDate", "goVersion", "compiler", "platform", "gitTreeState"):
        assert info[key]
    assert "/" in info["platform"]


def test_api_versions_names_the_address_the_client_used() -> None:
    body = discovery.api_versions("127.0.0.1:6443")
    assert body["kind"] == "APIVersions"
    assert body["versions"] == ["v1"]
    assert body["serverAddressByClientCIDRs"][0]["serverAddress"] == "127.0.0.1:6443"


def test_group_list_has_named_groups_only_with_first_version_preferred() -> None:
    registry = _registry_with_crd(_podtoip("v1"), _podtoip("v1beta1", storage=False))
    body = discovery.api_group_list(registry)
    names = [g["name"] for g in body["groups"]]
    assert "" not in names
    assert {"apiextensions.k8s.io", "coordination.k8s.io", "example.com"} <= set(names)
    example = next(g for g in body["groups"] if g["name"] == "example.com")
    assert [v["version"] for v in example["versions"]] == ["v1", "v1beta1"]
    assert example["preferredVersion"] == {"groupVersion": "example.com/v1", "version": "v1"}


def test_a_crd_group_disappears_from_discovery_when_its_crd_is_removed() -> None:
    registry = _registry_with_crd()
    assert discovery.api_resource_list(registry, "example.com", "v1") is not None
    registry.remove_crd("podtoips.example.com")
    assert discovery.api_resource_list(registry, "example.com", "v1") is None
    names = [g["name"] for g in discovery.api_group_list(registry)["groups"]]
    assert "example.com" not in names


def test_core_resource_list_describes_pods_and_their_status_subresource() -> None:
    body = discovery.api_resource_list(Registry(BUILTIN_RESOURCES), "", "v1")
    assert body is not None
    assert body["groupVersion"] == "v1"
    pods = _by_name(body["resources"], "pods")
    assert pods["kind"] == "Pod"
    assert pods["namespaced"] is True
    assert pods["singularName"] == "pod"
    assert "po" in pods["shortNames"]
    assert {"get", "list", "watch", "create", "delete", "patch", "update"} <= set(pods["verbs"])
    assert pods["storageVersionHash"]
    status = _by_name(body["resources"], "pods/status")
    assert status == {
        "name": "pods/status",
        "singularName": "",
        "namespaced": True,
        "kind": "Pod",
        "verbs": ["get", "patch", "update"],
    }
    namespaces = _by_name(body["resources"], "namespaces")
    assert namespaces["namespaced"] is False


def test_resources_are_listed_in_plural_order() -> None:
    body = discovery.api_resource_list(Registry(BUILTIN_RESOURCES), "", "v1")
    assert body is not None
    names = [r["name"] for r in body["resources"] if "/" not in r["name"]]
    assert names == sorted(names)


def test_crd_resource_list_carries_short_names_categories_and_scale_as_autoscaling() -> None:
    body = discovery.api_resource_list(_registry_with_crd(), "example.com", "v1")
    assert body is not None
    assert body["groupVersion"] == "example.com/v1"
    main = _by_name(body["resources"], "podtoips")
    assert main["shortNames"] == ["ptp"]
    assert main["categories"] == ["all"]
    scale = _by_name(body["resources"], "podtoips/scale")
    assert (scale["group"], scale["version"], scale["kind"]) == ("autoscaling", "v1", "Scale")


def test_unknown_group_version_has_no_resource_list() -> None:
    assert discovery.api_resource_list(Registry(BUILTIN_RESOURCES), "example.com", "v1") is None
    assert discovery.api_resource_list(Registry(BUILTIN_RESOURCES), "", "v2") is None


def test_every_served_version_reports_the_storage_versions_hash() -> None:
    registry = _registry_with_crd(_podtoip("v1"), _podtoip("v1beta1", storage=False))
    v1 = discovery.api_resource_list(registry, "example.com", "v1")
    beta = discovery.api_resource_list(registry, "example.com", "v1beta1")
    assert v1 is not None and beta is not None
    hashes = {_by_name(doc["resources"], "podtoips")["storageVersionHash"] for doc in (v1, beta)}
    assert len(hashes) == 1


def test_aggregated_core_document_has_one_unnamed_group() -> None:
    body = discovery.aggregated_discovery(Registry(BUILTIN_RESOURCES), core=True, version="v2")
    assert body["kind"] == "APIGroupDiscoveryList"
    assert body["apiVersion"] == "apidiscovery.k8s.io/v2"
    [core] = body["items"]
    assert "name" not in core["metadata"]
    [v1] = core["versions"]
    assert v1["version"] == "v1"
    assert v1["freshness"] == "Current"
    pods = _by_name(v1["resources"], "pods")
    assert pods["scope"] == "Namespaced"
    assert pods["responseKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert pods["subresources"][0]["subresource"] == "status"


def test_aggregated_groups_document_describes_a_crd_like_the_legacy_one() -> None:
    registry = _registry_with_crd()
    body = discovery.aggregated_discovery(registry, core=False, version="v2beta1")
    assert body["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    assert all(item["metadata"]["name"] for item in body["items"])
    example = next(i for i in body["items"] if i["metadata"]["name"] == "example.com")
    resource = _by_name(example["versions"][0]["resources"], "podtoips")
    assert resource["singularResource"] == "podtoip"
    assert resource["shortNames"] == ["ptp"]
    assert resource["categories"] == ["all"]
    scale = next(s for s in resource["subresources"] if s["subresource"] == "scale")
    assert scale["responseKind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    crds = next(i for i in body["items"] if i["metadata"]["name"] == "apiextensions.k8s.io")
    assert _by_name(crds["versions"][0]["resources"], "customresourcedefinitions")["scope"] == (
        "Cluster"
    )
