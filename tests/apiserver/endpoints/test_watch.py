"""WATCH: initial state, resume, selector transitions, bookmarks, expiry and timeouts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from kf_http import Api, configmap, open_api
from kf_http import take as _collect

from kubeforge.testing import LocalApiServer


def _summary(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["type"], e["object"]["metadata"].get("name", "")) for e in events]


async def test_a_watch_without_resource_version_starts_with_synthetic_added_events(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("a"))
    await api.post(path, configmap("b"))
    events = await _collect(api.watch(path, timeoutSeconds="5"), 2)
    assert _summary(events) == [("ADDED", "a"), ("ADDED", "b")]
    assert events[0]["object"]["kind"] == "ConfigMap"


async def test_a_watch_from_a_resource_version_replays_every_later_change(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    created = (await api.post(path, configmap("w", v="1"))).body
    await api.put(f"{path}/w", {**created, "data": {"v": "2"}})
    await api.delete(f"{path}/w")
    events = await _collect(api.watch(path, resourceVersion=start, timeoutSeconds="5"), 3)
    assert _summary(events) == [("ADDED", "w"), ("MODIFIED", "w"), ("DELETED", "w")]
    revisions = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert revisions == sorted(revisions)
    assert len(set(revisions)) == 3  # the delete got a revision of its own


async def test_live_changes_arrive_one_event_per_line_in_order(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]

    async def writer() -> None:
        for i in range(3):
            await api.post(path, configmap(f"live-{i}"))

    task = asyncio.create_task(writer())
    events = await _collect(api.watch(path, resourceVersion=start, timeoutSeconds="5"), 3)
    await task
    assert _summary(events) == [("ADDED", f"live-{i}") for i in range(3)]


async def test_selector_transitions_become_added_and_deleted(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    body = configmap("t")
    body["metadata"]["labels"] = {"state": "off"}
    created = (await api.post(path, body)).body
    on = {**created, "metadata": {**created["metadata"], "labels": {"state": "on"}}}
    turned_on = (await api.put(f"{path}/t", on)).body
    off = {**turned_on, "metadata": {**turned_on["metadata"], "labels": {"state": "off"}}}
    await api.put(f"{path}/t", off)
    events = await _collect(
        api.watch(path, resourceVersion=start, labelSelector="state=on", timeoutSeconds="5"), 2
    )
    assert _summary(events) == [("ADDED", "t"), ("DELETED", "t")]


async def test_a_single_object_watch_by_field_selector_sees_only_that_object(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("other"))
    await api.post(path, configmap("mine"))
    events = await _collect(
        api.watch(
            path, fieldSelector="metadata.name=mine", resourceVersion="0", timeoutSeconds="5"
        ),
        1,
    )
    assert _summary(events) == [("ADDED", "mine")]


async def test_a_watch_of_two_seconds_or_less_gets_no_bookmark_and_ends_cleanly(
    api: Api, namespace: str
) -> None:
    # 1.32's watch cache sends the last bookmark 2 s before the deadline, none at the end.
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    await api.post(path, configmap("seen"))
    events = [
        e
        async for e in api.watch(
            path, resourceVersion=start, timeoutSeconds="1", allowWatchBookmarks="true"
        )
    ]
    assert _summary(events) == [("ADDED", "seen")]


async def test_the_last_bookmark_comes_before_the_timeout_and_the_stream_goes_on_after_it(
    api: Api, namespace: str
) -> None:
    # This server sends periodic bookmarks a minute apart (1.32's watch cache), so the only
    # one a 6-second watch gets is the one due 2 s before its deadline, once something
    # changed past the version it started from; the stream goes on after it (with the
    # write made once it came) and ends without another.
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    await api.post(path, configmap("first"))
    events = []
    async for event in api.watch(
        path, resourceVersion=start, timeoutSeconds="6", allowWatchBookmarks="true"
    ):
        events.append(event)
        name = event["object"]["metadata"].get("name")
        if name == "first":  # the watch is open: this write is past where it started
            await api.post(path, configmap("second"))
        if event["type"] == "BOOKMARK":
            await api.post(path, configmap("after"))
    assert _summary(events) == [
        ("ADDED", "first"),
        ("ADDED", "second"),
        ("BOOKMARK", ""),
        ("ADDED", "after"),
    ]
    bookmark = events[2]["object"]
    assert bookmark["kind"] == "ConfigMap"
    second = events[1]["object"]["metadata"]["resourceVersion"]
    assert int(bookmark["metadata"]["resourceVersion"]) >= int(second)


async def test_no_bookmark_is_sent_while_nothing_changed_past_the_watched_version(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    # The watch cache sends a bookmark only with a resourceVersion newer than the watch's;
    # without the control plane nothing else writes meanwhile.
    server = kube_apiserver_factory(extra_args=["--bookmark-interval", "0.1", "--no-simulate-node"])
    path = "/api/v1/namespaces/default/configmaps"
    async with await open_api(server) as session:
        api = Api(server, session)
        stream = api.watch(
            path, labelSelector="never=matches", allowWatchBookmarks="true", timeoutSeconds="30"
        )
        opened = asyncio.create_task(_collect(stream, 1))
        await asyncio.sleep(1.0)  # ten bookmark times pass with nothing new
        assert not opened.done()
        opened.cancel()


async def test_periodic_bookmarks_are_sent_when_allowed(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(extra_args=["--bookmark-interval", "0.1"])
    async with await open_api(server) as session:
        api = Api(server, session)
        events = await _collect(
            api.watch(
                "/api/v1/namespaces/default/configmaps",
                allowWatchBookmarks="true",
                resourceVersion="1",
                timeoutSeconds="30",
            ),
            2,
        )
    assert [e["type"] for e in events] == ["BOOKMARK", "BOOKMARK"]


async def test_a_resource_version_older_than_the_history_gets_one_410_error_event(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(extra_args=["--watch-history", "5"])
    async with await open_api(server) as session:
        api = Api(server, session)
        for i in range(10):
            await api.post("/api/v1/namespaces/default/configmaps", configmap(f"h{i}"))
        events = [
            e async for e in api.watch("/api/v1/namespaces/default/configmaps", resourceVersion="2")
        ]
    assert len(events) == 1
    error = events[0]
    assert error["type"] == "ERROR"
    status = error["object"]
    assert status["code"] == 410
    assert status["reason"] == "Expired"
    assert status["message"].startswith("too old resource version: 2 (")


async def test_send_initial_events_ends_with_the_initial_events_end_bookmark(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("s"))
    events = await _collect(
        api.watch(
            path,
            sendInitialEvents="true",
            resourceVersionMatch="NotOlderThan",
            allowWatchBookmarks="true",
            timeoutSeconds="5",
        ),
        2,
    )
    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
    annotations = events[1]["object"]["metadata"]["annotations"]
    assert annotations == {"k8s.io/initial-events-end": "true"}


async def test_watching_all_namespaces_sees_changes_in_each(api: Api) -> None:
    first, second = await api.create_namespace(), await api.create_namespace()
    start = (await api.get("/api/v1/configmaps")).body["metadata"]["resourceVersion"]
    await api.post(f"/api/v1/namespaces/{first}/configmaps", configmap("x"))
    await api.post(f"/api/v1/namespaces/{second}/configmaps", configmap("x"))
    events = await _collect(
        api.watch(
            "/api/v1/configmaps",
            resourceVersion=start,
            fieldSelector="metadata.name=x",
            timeoutSeconds="5",
        ),
        2,
    )
    assert [e["object"]["metadata"]["namespace"] for e in events] == [first, second]
