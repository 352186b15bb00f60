"""Lists and watches in full: expired continue tokens, resourceVersionMatch, list and watch
option validation, streaming lists, field selectors of each kind, legacy watch paths and
bookmarks that move past changes the watcher does not see."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from kf_http import ROOT_CA, Api, configmap, open_api, without_root_ca
from kf_http import take as _take

from kubeforge.testing import LocalApiServer


def _names(body: dict[str, Any]) -> list[str]:
    return [item["metadata"]["name"] for item in without_root_ca(body["items"])]


async def test_an_expired_continue_token_is_410_with_an_inconsistent_continuation(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(extra_args=["--watch-history", "3"])
    path = "/api/v1/namespaces/default/configmaps"
    async with await open_api(server) as session:
        api = Api(server, session)
        for name in ("a", "b", "c"):
            await api.post(path, configmap(name))
        token = (await api.get(path, limit="1")).body["metadata"]["continue"]
        for i in range(5):  # push the first page's revision out of the kept history
            await api.post(path, configmap(f"later-{i}"))
        expired = await api.get(path, limit="1", **{"continue": token})
        assert expired.status == 410
        assert expired.reason == "Expired"
        message = expired.body["message"]
        assert message.startswith("The provided continue parameter is too old")
        assert message.endswith("may show up in the list.")
        # etcd3's handleCompactedErrorForPaging: the next token is the Status's list metadata.
        fresh = expired.body["metadata"]["continue"]
        rest = await api.get(path, **{"continue": fresh})
        assert rest.status == 200
        assert _names(rest.body) == ["b", "c", *(f"later-{i}" for i in range(5))]


async def test_not_older_than_answers_the_latest_state(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    first = (await api.post(path, configmap("x"))).body["metadata"]["resourceVersion"]
    await api.post(path, configmap("y"))
    reply = await api.get(path, resourceVersion=first, resourceVersionMatch="NotOlderThan")
    assert reply.status == 200
    assert _names(reply.body) == ["x", "y"]
    assert int(reply.body["metadata"]["resourceVersion"]) > int(first)


async def test_list_options_are_validated_as_list_options(api: Api) -> None:
    path = "/api/v1/configmaps"
    cases = [
        ({"resourceVersion": "0", "resourceVersionMatch": "Exact"}, "resourceVersionMatch"),
        ({"resourceVersion": "1", "resourceVersionMatch": "Newest"}, "resourceVersionMatch"),
        ({"sendInitialEvents": "true"}, "sendInitialEvents"),
    ]
    for params, field in cases:
        reply = await api.get(path, **params)
        assert reply.status == 422, params
        assert reply.body["details"]["kind"] == "ListOptions"
        assert reply.body["details"]["group"] == "meta.k8s.io"
        assert reply.body["details"]["causes"][0]["field"] == field
    assert (await api.get(path, resourceVersion="abc")).status == 400
    unlimited = await api.get(path, limit="-1")  # found by the fuzz test: was a 500
    assert unlimited.status == 200
    assert "continue" not in unlimited.body["metadata"]


async def test_watch_options_are_validated_before_the_stream_starts(api: Api) -> None:
    path = "/api/v1/configmaps"
    no_initial = await api.get(path, watch="true", resourceVersionMatch="NotOlderThan")
    assert no_initial.status == 422
    assert no_initial.body["details"]["causes"][0]["field"] == "resourceVersionMatch"
    no_bookmarks = await api.get(
        path, watch="true", sendInitialEvents="true", resourceVersionMatch="NotOlderThan"
    )
    assert no_bookmarks.status == 422
    assert no_bookmarks.body["details"]["causes"][0]["field"] == "allowWatchBookmarks"
    bad_field = await api.get(path, watch="true", fieldSelector="data.x=1")
    assert bad_field.status == 400
    assert bad_field.body["message"] == "field label not supported: data.x"


async def test_a_streaming_list_from_a_resource_version_sends_state_then_the_end_marker(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("one"))
    rv = (await api.post(path, configmap("two"))).body["metadata"]["resourceVersion"]
    stream = api.watch(
        path,
        sendInitialEvents="true",
        resourceVersionMatch="NotOlderThan",
        resourceVersion=rv,
        allowWatchBookmarks="true",
        timeoutSeconds="10",
    )

    async def later() -> None:
        await asyncio.sleep(0.2)
        await api.post(path, configmap("three"))

    writer = asyncio.create_task(later())
    events = await _take(stream, 4)
    await writer
    assert [(e["type"], e["object"]["metadata"].get("name")) for e in events] == [
        ("ADDED", "one"),
        ("ADDED", "two"),
        ("BOOKMARK", None),
        ("ADDED", "three"),
    ]
    marker = events[2]["object"]["metadata"]
    assert marker["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert int(marker["resourceVersion"]) >= int(rv)


async def test_send_initial_events_false_starts_with_changes_only(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("before"))
    stream = api.watch(
        path,
        sendInitialEvents="false",
        resourceVersionMatch="NotOlderThan",
        allowWatchBookmarks="true",
        timeoutSeconds="10",
    )

    async def later() -> None:
        await asyncio.sleep(0.2)
        await api.post(path, configmap("after"))

    writer = asyncio.create_task(later())
    events = await _take(stream, 1)
    await writer
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "after")]


async def test_each_kind_selects_by_its_own_field_labels(api: Api, namespace: str) -> None:
    secrets = f"/api/v1/namespaces/{namespace}/secrets"
    await api.post(secrets, {"metadata": {"name": "plain"}, "stringData": {"a": "b"}})
    # A kubernetes.io/tls Secret needs both keys (ValidateSecret); empty values will do.
    tls_keys = {"tls.crt": "", "tls.key": ""}
    await api.post(
        secrets, {"metadata": {"name": "tls"}, "type": "kubernetes.io/tls", "data": tls_keys}
    )
    tls = await api.get(secrets, fieldSelector="type=kubernetes.io/tls")
    assert _names(tls.body) == ["tls"]
    opaque = await api.get(secrets, fieldSelector="type!=kubernetes.io/tls")
    assert _names(opaque.body) == ["plain"]
    active = await api.get("/api/v1/namespaces", fieldSelector="status.phase=Active")
    assert namespace in _names(active.body)
    nodes = await api.get("/api/v1/nodes", fieldSelector="spec.unschedulable=false")
    assert _names(nodes.body) == ["kubeforge-node-0"]
    events = f"/api/v1/namespaces/{namespace}/events"
    event = {
        "metadata": {"name": "ev"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": namespace},
        "reason": "Started",
        "message": "started",
        "type": "Normal",
    }
    await api.post(events, event)
    selector = f"involvedObject.name=web,involvedObject.namespace={namespace},reason=Started"
    assert _names((await api.get(events, fieldSelector=selector)).body) == ["ev"]
    assert (await api.get(secrets, fieldSelector="data=x")).status == 400


async def test_the_legacy_watch_path_watches_one_object(api: Api, namespace: str) -> None:
    base = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(base, configmap("other"))
    created = (await api.post(base, configmap("me"))).body
    legacy = f"/api/v1/watch/namespaces/{namespace}/configmaps/me"
    stream = api.watch(legacy, resourceVersion=created["metadata"]["resourceVersion"])

    async def later() -> None:
        await asyncio.sleep(0.2)
        await api.put(f"{base}/other", {**configmap("other"), "data": {"v": "1"}})
        await api.put(f"{base}/me", {**created, "data": {"v": "2"}})

    writer = asyncio.create_task(later())
    events = await _take(stream, 1)
    await writer
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("MODIFIED", "me")]


async def test_bookmarks_move_past_changes_the_watcher_does_not_see(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(extra_args=["--bookmark-interval", "0.2"])
    path = "/api/v1/namespaces/default/configmaps"
    async with await open_api(server) as session:
        api = Api(server, session)
        start = (await api.get(path)).body["metadata"]["resourceVersion"]
        marker = configmap("seen")
        marker["metadata"]["labels"] = {"app": "seen"}
        await api.post(path, marker)
        events: list[dict[str, Any]] = []
        written = ""
        stream = api.watch(
            path,
            resourceVersion=start,
            labelSelector="app=seen",
            allowWatchBookmarks="true",
            timeoutSeconds="10",
        )
        async with contextlib.aclosing(stream):
            async for event in stream:
                events.append(event)
                if event["type"] != "ADDED":
                    break
                # The watch is open: a change it does not see.
                reply = await api.post(path, configmap("unseen"))
                written = reply.body["metadata"]["resourceVersion"]
    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
    assert events[1]["object"]["kind"] == "ConfigMap"
    assert int(events[1]["object"]["metadata"]["resourceVersion"]) >= int(written)


async def test_pages_across_namespaces_and_with_selectors_visit_each_object_once(
    api: Api,
) -> None:
    first, second = await api.create_namespace("pg"), await api.create_namespace("pg")
    for namespace in (first, second):
        for i in range(5):
            body = configmap(f"item-{i}")
            body["metadata"]["labels"] = {"parity": "even" if i % 2 == 0 else "odd", "pg": "yes"}
            await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)

    async def walk(path: str, **params: str) -> tuple[list[tuple[str, str]], list[int]]:
        seen: list[tuple[str, str]] = []
        counts: list[int] = []
        token = ""
        while True:
            extra = {"continue": token} if token else {}
            page = (await api.get(path, limit="3", **params, **extra)).body
            seen += [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in page["items"]]
            counts.append(page["metadata"].get("remainingItemCount", -1))
            token = page["metadata"].get("continue", "")
            if not token:
                return seen, counts

    everything, _ = await walk("/api/v1/configmaps", labelSelector="pg=yes")
    ours = [key for key in everything if key[0] in (first, second)]
    assert ours == sorted((ns, f"item-{i}") for ns in (first, second) for i in range(5))
    even, counts = await walk(f"/api/v1/namespaces/{first}/configmaps", labelSelector="parity=even")
    assert even == [(first, "item-0"), (first, "item-2"), (first, "item-4")]
    assert counts == [-1]  # no remainingItemCount with a selector
    plain, counts = await walk(f"/api/v1/namespaces/{second}/configmaps")
    assert [name for _, name in plain] == [*(f"item-{i}" for i in range(5)), ROOT_CA]
    assert counts == [3, -1]
