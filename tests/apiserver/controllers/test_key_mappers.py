"""A control loop hears exactly the resources it maps to keys.

Each ``KeyedLoop`` names, per resource, the keys one of its events concerns
(``key_mappers``); the storage calls the loop for those resources alone. Mapping a
resource and hearing it are one table, so a loop cannot map what it never hears.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import kubeforge.apiserver.controllers as controllers
from kubeforge.apiserver.controllers.loop import Key, KeyedLoop, KeyMapper, key_of, own_key
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey, Storage

_MAPS, _PODS, _NODES = ("", "configmaps"), ("", "pods"), ("", "nodes")


def _obj(name: str, **meta: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default", **meta}}


class _Engine:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage


class _PodsAndNodes(KeyedLoop):
    resource = _PODS

    def __init__(self, storage: Storage) -> None:
        super().__init__(_Engine(storage), None)  # type: ignore[arg-type]
        self.queued: list[Key] = []

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_PODS: own_key, _NODES: self._node_keys}

    @staticmethod
    def _node_keys(event: Event) -> list[Key]:
        return [("default", f"on-{event.object['metadata']['name']}")]

    def enqueue(self, key: Key, delay: float = 0.0) -> None:
        self.queued.append(key)


def test_a_loop_hears_the_resources_of_its_mappers_and_maps_each_with_its_own() -> None:
    storage = Storage(None)
    loop = _PodsAndNodes(storage)
    assert loop.watched() == {_PODS, _NODES}
    storage.subscribe(loop._on_event, loop.watched())
    storage.create(_PODS, _obj("web"))
    storage.create(_MAPS, _obj("settings"))
    storage.create(_NODES, {"metadata": {"name": "node-a"}})
    assert loop.queued == [("default", "web"), ("default", "on-node-a")]
    assert list(loop.keys_for(Event(9, "ADDED", _MAPS, _obj("x"), None))) == []


def test_no_control_loop_reads_events_outside_its_mappers() -> None:
    # Only the quota controller reads every write (any namespaced kind may count), and it
    # says so by reading events in a keys_for of its own, which makes it hear them all.
    loops = []
    for module in pkgutil.iter_modules(controllers.__path__):
        found = importlib.import_module(f"{controllers.__name__}.{module.name}")
        loops += [
            cls
            for cls in vars(found).values()
            if isinstance(cls, type)
            and issubclass(cls, KeyedLoop)
            and cls.__module__ == found.__name__
        ]
    assert len(loops) > 13
    readers = {cls.__name__ for cls in loops if cls.keys_for is not KeyedLoop.keys_for}
    assert readers == {"ResourceQuotaController"}


def test_the_default_mapper_is_the_object_of_the_loops_own_resource() -> None:
    class Own(KeyedLoop):
        resource = _MAPS

    loop = Own(None, None)  # type: ignore[arg-type]
    event = Event(1, "ADDED", _MAPS, _obj("settings"), None)
    assert loop.watched() == {_MAPS}
    assert list(loop.keys_for(event)) == [key_of(event.object)]
