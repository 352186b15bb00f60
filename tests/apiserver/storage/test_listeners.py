"""Storage listeners that name their resources hear only those writes, in subscription
order, and may leave while being called; those naming none hear every write.

These drive ``Storage`` itself (in memory: the listeners are the same on a data directory);
the last one checks which resources the control loops' ``KeyedLoop`` asks for.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.loop import Key, KeyedLoop
from kubeforge.apiserver.storage.sqlite import Event, Storage

_MAPS, _PODS, _NODES = ("", "configmaps"), ("", "pods"), ("", "nodes")


def _obj(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}}


def test_a_listener_naming_resources_hears_only_their_writes_in_order() -> None:
    storage = Storage(None)
    heard: list[tuple[str, str]] = []
    storage.subscribe(lambda e: heard.append(("all", e.object["metadata"]["name"])))
    storage.subscribe(lambda e: heard.append(("pods", e.object["metadata"]["name"])), [_PODS])
    storage.subscribe(
        lambda e: heard.append(("pods+nodes", e.object["metadata"]["name"])), [_PODS, _NODES]
    )
    storage.create(_MAPS, _obj("m"))
    storage.create(_PODS, _obj("p"))
    storage.create(_NODES, {"metadata": {"name": "n"}})
    assert heard == [
        ("all", "m"),
        ("all", "p"),
        ("pods", "p"),
        ("pods+nodes", "p"),
        ("all", "n"),
        ("pods+nodes", "n"),
    ]


def test_unsubscribing_stops_the_events_and_a_listener_may_leave_while_called() -> None:
    storage = Storage(None)
    heard: list[str] = []
    leave_after_one: list[Any] = []

    def once(event: Event) -> None:
        heard.append(f"once:{event.object['metadata']['name']}")
        leave_after_one[0]()  # leaves during the dispatch of this very event

    leave_after_one.append(storage.subscribe(once, [_PODS]))
    stop = storage.subscribe(lambda e: heard.append(f"after:{e.object['metadata']['name']}"))
    storage.create(_PODS, _obj("a"))
    storage.create(_PODS, _obj("b"))
    stop()
    storage.create(_PODS, _obj("c"))
    # the second listener still heard "a" although the first left in the middle of it
    assert heard == ["once:a", "after:a", "after:b"]


def test_a_subscription_made_later_is_heard_for_a_resource_already_written() -> None:
    storage = Storage(None)
    storage.create(_PODS, _obj("before"))  # who hears pods is worked out and kept here
    heard: list[str] = []
    storage.subscribe(lambda e: heard.append(e.object["metadata"]["name"]), [_PODS])
    storage.create(_PODS, _obj("after"))
    assert heard == ["after"]


def test_a_keyed_loop_hears_its_own_resource_unless_its_keys_for_reads_others() -> None:
    class Own(KeyedLoop):
        resource = _PODS

    class ReadsOthers(KeyedLoop):
        resource = _PODS

        def keys_for(self, event: Event) -> list[Key]:
            return []  # says nothing of what it reads: it hears every write

    assert Own(None, None).watched() == {_PODS}  # type: ignore[arg-type]
    assert ReadsOthers(None, None).watched() is None  # type: ignore[arg-type]
