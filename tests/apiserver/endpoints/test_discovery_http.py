"""Discovery, /version, OpenAPI and Table negotiation over HTTP against a real server process."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from multidict import CIMultiDict

from kubeforge.apiserver.endpoints.tables import TABLE_CONTENT_TYPE

KUBECTL_DISCOVERY_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json"
)
AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
KUBECTL_TABLE_ACCEPT = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)


@pytest.fixture
async def http(kube_apiserver: Any) -> AsyncIterator[aiohttp.ClientSession]:
    context = ssl.create_default_context(cafile=str(kube_apiserver.ca_file))
    async with aiohttp.ClientSession(
        base_url=kube_apiserver.url,
        headers={"Authorization": f"Bearer {kube_apiserver.token}"},
        connector=aiohttp.TCPConnector(ssl=context),
    ) as session:
        yield session


async def _get(
    http: aiohttp.ClientSession, path: str, **headers: str
) -> tuple[int, CIMultiDict[str], Any]:
    async with http.get(path, headers=headers) as response:
        body = await response.json(content_type=None) if response.status != 304 else None
        return response.status, response.headers.copy(), body


async def test_version_is_served_as_json_with_or_without_a_trailing_slash(
    http: aiohttp.ClientSession,
) -> None:
    for path in ("/version", "/version/"):
        status, headers, body = await _get(http, path)
        assert status == 200
        assert headers["Content-Type"].startswith("application/json")
        assert (body["major"], body["minor"]) == ("1", "32")


async def test_aggregated_discovery_echoes_the_chosen_media_type(
    http: aiohttp.ClientSession,
) -> None:
    for path in ("/api", "/apis"):
        status, headers, body = await _get(http, path, Accept=KUBECTL_DISCOVERY_ACCEPT)
        assert status == 200
        assert headers["Content-Type"] == AGGREGATED_V2
        assert body["kind"] == "APIGroupDiscoveryList"


async def test_legacy_discovery_is_served_for_plain_json(http: aiohttp.ClientSession) -> None:
    status, _, body = await _get(http, "/api", Accept="application/json")
    assert (status, body["kind"], body["versions"]) == (200, "APIVersions", ["v1"])
    status, _, body = await _get(http, "/apis", Accept="application/json")
    assert (status, body["kind"]) == (200, "APIGroupList")
    status, _, body = await _get(http, "/api/v1")
    assert (status, body["kind"], body["groupVersion"]) == (200, "APIResourceList", "v1")
    status, _, body = await _get(http, "/apis/coordination.k8s.io")
    assert (status, body["kind"], body["name"]) == (200, "APIGroup", "coordination.k8s.io")
    status, _, body = await _get(http, "/apis/apiextensions.k8s.io/v1")
    assert status == 200
    assert "customresourcedefinitions" in [r["name"] for r in body["resources"]]


async def test_unchanged_aggregated_discovery_revalidates_with_not_modified(
    http: aiohttp.ClientSession,
) -> None:
    _, headers, _ = await _get(http, "/apis", Accept=KUBECTL_DISCOVERY_ACCEPT)
    status, _, _ = await _get(
        http, "/apis", Accept=KUBECTL_DISCOVERY_ACCEPT, **{"If-None-Match": headers["ETag"]}
    )
    assert status == 304


async def test_unknown_groups_and_versions_are_not_found_statuses(
    http: aiohttp.ClientSession,
) -> None:
    for path in ("/apis/no.such.group", "/apis/no.such.group/v1", "/apis/apiextensions.k8s.io/v9"):
        status, _, body = await _get(http, path)
        assert status == 404, path
        assert (body["kind"], body["reason"], body["code"]) == ("Status", "NotFound", 404)


async def test_openapi_v3_documents_are_cacheable(http: aiohttp.ClientSession) -> None:
    # /openapi/v2 is served too: tests/apiserver/test_openapi_v2.py covers it.
    status, _, index = await _get(http, "/openapi/v3")
    assert status == 200
    url = index["paths"]["api/v1"]["serverRelativeURL"]
    status, headers, document = await _get(http, url)
    assert status == 200
    assert headers["Cache-Control"] == "public, immutable"
    assert document["openapi"].startswith("3.")
    assert "/api/v1/namespaces/{name}" in document["paths"]
    status, _, _ = await _get(http, url, **{"If-None-Match": headers["ETag"]})
    assert status == 304

    status, _, body = await _get(http, "/openapi/v3/apis/no.such.group/v1")
    assert (status, body["reason"]) == (404, "NotFound")


async def test_kubectl_get_receives_a_table(http: aiohttp.ClientSession) -> None:
    async with http.get("/api/v1/namespaces", headers={"Accept": KUBECTL_TABLE_ACCEPT}) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"] == TABLE_CONTENT_TYPE
        table = await resp.json(content_type=None)
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Status", "Age"]
    names = [row["cells"][0] for row in table["rows"]]
    assert "default" in names
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


async def test_an_unknown_include_object_is_a_bad_request(http: aiohttp.ClientSession) -> None:
    headers = {"Accept": KUBECTL_TABLE_ACCEPT}
    async with http.get("/api/v1/namespaces?includeObject=Everything", headers=headers) as resp:
        body = await resp.json(content_type=None)
    assert (resp.status, body["reason"]) == (400, "BadRequest")
    assert "includeObject" in body["message"]
