"""A list longer than one chunk (``listing_body.ITEMS_PER_CHUNK``) is streamed with chunked
transfer encoding; its JSON, Table and PartialObjectMetadataList bodies are the same
documents a whole body would be; a protobuf list, encoded a chunk at a time, has the
bytes of the whole list. A short list keeps its Content-Length."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from kf_http import Api, configmap, without_root_ca

from kubeforge.apiserver.endpoints.listing_body import ITEMS_PER_CHUNK
from kubeforge.apiserver.endpoints.protobody import PROTOBUF
from kubeforge.apiserver.protobuf import wire

COUNT = ITEMS_PER_CHUNK * 2 + 50
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
PARTIAL_LIST = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"


@pytest.fixture
async def many(api: Api, namespace: str) -> str:
    """``namespace`` holding ``COUNT`` ConfigMaps (plus its ``kube-root-ca.crt``)."""
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    replies = await asyncio.gather(
        *(api.post(path, configmap(f"cm-{i:04d}", i=str(i))) for i in range(COUNT))
    )
    assert {reply.status for reply in replies} == {201}
    return namespace


async def _raw(api: Api, path: str, accept: str = "application/json", **params: str) -> tuple:
    headers = {**api.headers(), "Accept": accept}
    async with api.session.get(api.server.url + path, params=params, headers=headers) as reply:
        assert reply.status == 200, await reply.text()
        return reply.headers, await reply.read()


async def test_a_long_list_is_streamed_and_is_the_whole_list_in_key_order(
    api: Api, many: str
) -> None:
    headers, body = await _raw(api, f"/api/v1/namespaces/{many}/configmaps")
    assert headers.get("Transfer-Encoding") == "chunked"
    assert "Content-Length" not in headers
    assert headers["Content-Type"].startswith("application/json")
    listed = orjson.loads(body)
    assert list(listed) == ["kind", "apiVersion", "metadata", "items"]
    assert listed["kind"] == "ConfigMapList"
    items = without_root_ca(listed["items"])
    assert [item["metadata"]["name"] for item in items] == [f"cm-{i:04d}" for i in range(COUNT)]
    assert [item["data"]["i"] for item in items] == [str(i) for i in range(COUNT)]
    # A typed list's items carry no TypeMeta, streamed or not.
    assert all("kind" not in item and "apiVersion" not in item for item in items)
    # Byte for byte what one encoding of the whole document gives.
    assert body == orjson.dumps(listed)


async def test_a_short_page_keeps_its_content_length(api: Api, many: str) -> None:
    headers, body = await _raw(api, f"/api/v1/namespaces/{many}/configmaps", limit="10")
    assert headers["Content-Length"] == str(len(body))
    page = orjson.loads(body)
    assert len(page["items"]) == 10
    assert page["metadata"]["remainingItemCount"] == COUNT + 1 - 10


async def test_pages_longer_than_a_chunk_continue_where_they_stopped(api: Api, many: str) -> None:
    path = f"/api/v1/namespaces/{many}/configmaps"
    limit = ITEMS_PER_CHUNK + 20
    names: list[str] = []
    token = ""
    while True:
        params = {"limit": str(limit), **({"continue": token} if token else {})}
        _, body = await _raw(api, path, **params)
        page = orjson.loads(body)
        names += [item["metadata"]["name"] for item in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
        assert page["metadata"]["remainingItemCount"] == COUNT + 1 - len(names)
    assert names == sorted(names)
    assert [n for n in names if n.startswith("cm-")] == [f"cm-{i:04d}" for i in range(COUNT)]


async def test_a_long_table_is_streamed_with_every_row(api: Api, many: str) -> None:
    headers, body = await _raw(api, f"/api/v1/namespaces/{many}/configmaps", accept=TABLE)
    assert headers.get("Transfer-Encoding") == "chunked"
    assert headers["Content-Type"] == TABLE
    table = orjson.loads(body)
    assert list(table) == ["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
    rows = [row for row in table["rows"] if row["cells"][0] != "kube-root-ca.crt"]
    assert [row["cells"][0] for row in rows] == [f"cm-{i:04d}" for i in range(COUNT)]
    assert rows[0]["object"]["kind"] == "PartialObjectMetadata"


async def test_a_long_partial_metadata_list_is_streamed(api: Api, many: str) -> None:
    path = f"/api/v1/namespaces/{many}/configmaps"
    headers, body = await _raw(api, path, accept=PARTIAL_LIST)
    assert headers.get("Transfer-Encoding") == "chunked"
    listed = orjson.loads(body)
    assert listed["kind"] == "PartialObjectMetadataList"
    items = without_root_ca(listed["items"])
    assert len(items) == COUNT
    assert {item["kind"] for item in items} == {"PartialObjectMetadata"}
    assert all("data" not in item for item in items)


async def test_a_long_protobuf_list_is_the_whole_list_encoded_at_once(api: Api, many: str) -> None:
    path = f"/api/v1/namespaces/{many}/configmaps"
    listed = orjson.loads((await _raw(api, path))[1])
    # The same revision for both: any write elsewhere moves a list's resourceVersion.
    at = {"resourceVersion": listed["metadata"]["resourceVersion"], "resourceVersionMatch": "Exact"}
    headers, body = await _raw(api, path, accept=PROTOBUF, **at)
    assert headers["Content-Type"] == PROTOBUF
    assert len(listed["items"]) == COUNT + 1
    # The items went out a chunk at a time; the bytes are those of the whole list.
    assert body == wire.encode(listed)
    assert wire.decode(body) == listed
