"""The fan-out asks a watch filed under an index value only about events on objects that
have (or had) that value, and every watch still gets exactly what its filter selects."""

from __future__ import annotations

import asyncio
from typing import Any

from kubeforge.apiserver.storage.fanout import WatchHub, WatchRequest
from kubeforge.apiserver.storage.sqlite import Storage
from kubeforge.apiserver.storage.watch_log import WatchGroup
from kubeforge.apiserver.storage.watch_routes import Routes, WatchIndex, namespace_index

PODS = ("", "pods")


def _pod(namespace: str, name: str, node: str = "") -> dict[str, Any]:
    return {"metadata": {"namespace": namespace, "name": name}, "spec": {"nodeName": node}}


def _node(obj: dict[str, Any]) -> str:
    node: str = obj["spec"].get("nodeName", "")
    return node


def _group() -> WatchGroup:
    return WatchGroup(lambda obj: True, lambda type_, obj: b"", lambda late: 0.01)


def test_an_event_concerns_the_groups_of_its_old_and_new_values_and_the_unfiled_ones() -> None:
    routes = Routes()
    on_a, on_b, elsewhere, unfiled = _group(), _group(), _group(), _group()
    routes.add(WatchIndex("node", _node, "a"), "ka", on_a)
    routes.add(WatchIndex("node", _node, "b"), "kb", on_b)
    routes.add(WatchIndex("node", _node, "c"), "kc", elsewhere)
    routes.add(None, "k", unfiled)

    moved = routes.concerned(_pod("ns", "p", "b"), _pod("ns", "p", "a"))
    stayed = routes.concerned(_pod("ns", "p", "a"), _pod("ns", "p", "a"))
    created = routes.concerned(_pod("ns", "p", "b"), None)

    assert sorted(map(id, moved)) == sorted(map(id, [unfiled, on_a, on_b]))
    assert sorted(map(id, stayed)) == sorted(map(id, [unfiled, on_a]))
    assert sorted(map(id, created)) == sorted(map(id, [unfiled, on_b]))
    assert sorted(map(id, routes)) == sorted(map(id, [on_a, on_b, elsewhere, unfiled]))


def test_removing_the_last_group_of_a_value_forgets_the_value() -> None:
    routes = Routes()
    group, other = _group(), _group()
    index = namespace_index("ns")
    routes.add(index, "k", group)
    routes.remove(index, "k", other)  # not the group filed there: kept
    assert routes.get(index, "k") is group
    routes.remove(index, "k", group)
    assert not routes
    assert routes.concerned(_pod("ns", "p"), None) == []


async def test_the_hub_filters_only_the_watches_an_event_can_concern() -> None:
    storage = Storage(None)
    hub = WatchHub()
    hub.attach(storage)
    asked: dict[str, int] = {}

    def watch(namespace: str) -> WatchRequest:
        def matches(obj: dict[str, Any]) -> bool:
            asked[namespace] = asked.get(namespace, 0) + 1
            return bool(obj["metadata"]["namespace"] == namespace)

        return WatchRequest(PODS, "Pod", "v1", matches, index=namespace_index(namespace))

    members = {ns: hub.join(watch(ns), object()) for ns in ("ns-1", "ns-2", "ns-3")}
    storage.create(PODS, _pod("ns-2", "p"))
    await storage.durable()

    assert asked == {"ns-2": 1}
    assert [m.pending() for m, _ in members.values()] == [False, True, False]
    for _, leave in members.values():
        leave()
    assert hub.watcher_count() == 0
    storage.create(PODS, _pod("ns-2", "q"))
    await storage.durable()
    assert asked == {"ns-2": 1}
    await asyncio.sleep(0)
    storage.close()
