"""Error bodies shaped as a 1.32 server shapes them, and lists of built-ins as Go types them.

Each case names the source it follows: ``IsConfigMapKey`` at the key's own path, the
storage versioner's ``strconv.ParseUint`` and the parameter codec's ``ParseInt`` (a 400,
never a 500), ``NewTooLargeResourceVersionError`` (504, retry after 1 s). The expired
continue token is tested in ``test_listing_watch_full``.
"""

from __future__ import annotations

import pytest
from kf_http import Api, configmap, without_root_ca

_OUT_OF_RANGE = "9" * 5000


async def test_an_invalid_configmap_key_is_reported_at_its_own_path(
    api: Api, namespace: str
) -> None:
    body = configmap("keys") | {"data": {"bad key!": "1", "..x": "2"}}
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 422 and reply.reason == "Invalid"
    causes = {(c["field"], c["message"]) for c in reply.body["details"]["causes"]}
    assert ("data[..x]", "Invalid value: \"..x\": must not start with '..'") in causes
    assert any(field == "data[bad key!]" and "valid config key" in m for field, m in causes)


@pytest.mark.parametrize(
    ("rv", "error"),
    [("²", "invalid syntax"), ("-1", "invalid syntax"), (_OUT_OF_RANGE, "value out of range")],
)
async def test_a_resource_version_go_cannot_parse_is_a_400(
    api: Api, namespace: str, rv: str, error: str
) -> None:
    for watch in ("false", "true"):
        path = f"/api/v1/namespaces/{namespace}/configmaps"
        reply = await api.request("GET", path, params={"resourceVersion": rv, "watch": watch})
        assert reply.status == 400 and reply.reason == "BadRequest"
        assert reply.body["message"] == (
            f'Invalid value: "{rv}": strconv.ParseUint: parsing "{rv}": {error}'
        )


async def test_timeout_seconds_of_400_digits_is_the_codecs_400(api: Api, namespace: str) -> None:
    digits = "4" * 400
    for watch in ("false", "true"):
        path = f"/api/v1/namespaces/{namespace}/configmaps"
        reply = await api.request("GET", path, params={"timeoutSeconds": digits, "watch": watch})
        assert reply.status == 400
        assert reply.body["message"] == f'strconv.ParseInt: parsing "{digits}": value out of range'


async def test_a_list_ahead_of_the_store_is_too_large_with_a_retry(
    api: Api, namespace: str
) -> None:
    ahead = "999999999"
    reply = await api.get(f"/api/v1/namespaces/{namespace}/configmaps", resourceVersion=ahead)
    assert reply.status == 504 and reply.reason == "Timeout"
    assert reply.body["message"].startswith(f"Timeout: Too large resource version: {ahead}, ")
    assert reply.body["details"]["retryAfterSeconds"] == 1
    assert reply.body["details"]["causes"] == [
        {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
    ]


async def test_lists_of_builtins_carry_no_type_meta_on_items(api: Api, namespace: str) -> None:
    await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("typed"))
    listed = await api.get(f"/api/v1/namespaces/{namespace}/configmaps")
    assert listed.body["kind"] == "ConfigMapList" and listed.body["apiVersion"] == "v1"
    items = listed.body["items"]
    assert [i["metadata"]["name"] for i in without_root_ca(items)] == ["typed"]
    assert all("kind" not in item and "apiVersion" not in item for item in items)
    single = await api.get(f"/api/v1/namespaces/{namespace}/configmaps/typed")
    assert single.body["kind"] == "ConfigMap"


async def test_a_watch_list_ahead_of_the_store_ends_with_a_too_large_error_event(
    api: Api, namespace: str
) -> None:
    # The cacher waits up to 3 s for the store, then its errWatcher sends one ERROR event.
    params = {
        "sendInitialEvents": "true",
        "allowWatchBookmarks": "true",
        "resourceVersionMatch": "NotOlderThan",
        "resourceVersion": "999999999",
    }
    events = [e async for e in api.watch(f"/api/v1/namespaces/{namespace}/configmaps", **params)]
    (event,) = events
    assert event["type"] == "ERROR"
    assert (event["object"]["code"], event["object"]["reason"]) == (504, "Timeout")
    assert event["object"]["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"
