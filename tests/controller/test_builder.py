"""Builder and event mapping: for_ / owns / watches, predicates, and validation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubeforge.cache import InformerFactory, metadata_kind
from kubeforge.controller import (
    Builder,
    Controller,
    EnqueueHandler,
    GenerationChanged,
    ResourceVersionChanged,
    enqueue_object,
    enqueue_owner,
)
from kubeforge.core.clock import FakeClock
from kubeforge.core.resource import ResourceInfo
from kubeforge.models.core_v1 import ConfigMap, Secret
from kubeforge.reconcile import Request
from watch.kf_fakes import FakeSource, obj

WIDGET = ResourceInfo(group="example.com", version="v1", kind="Widget", plural="widgets")
CLUSTER_WIDGET = ResourceInfo(
    group="example.com", version="v1", kind="Widget", plural="widgets", namespaced=False
)


def owned(name: str, *refs: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
    o = obj(name, namespace)
    o["metadata"]["ownerReferences"] = list(refs)
    return o


def ref(name: str, kind: str = "Widget", api_version: str = "example.com/v1", **extra: Any):
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": f"uid-{name}", **extra}


class Host:
    """The parts of a Manager the builder uses."""

    def __init__(self) -> None:
        self.source = FakeSource()
        self.clock = FakeClock()
        self.cache = InformerFactory(self.source, clock=self.clock)
        self.controllers: list[Controller] = []

    def add(self, controller: Controller) -> None:
        self.controllers.append(controller)


async def noop(request: Request) -> None:
    return None


def test_owner_mapping_takes_the_controller_ref_whose_group_and_kind_match():
    mapper = enqueue_owner(WIDGET)
    dependent = owned(
        "d",
        ref("not-controller"),
        ref("other-kind", kind="Gadget", controller=True),
        ref("other-group", api_version="other.io/v1", controller=True),
        ref("boss", api_version="example.com/v2", controller=True),
    )
    assert list(mapper(dependent)) == [Request("default", "boss")]
    every = enqueue_owner(WIDGET, match_every_owner=True)
    assert list(every(dependent)) == [
        Request("default", "not-controller"),
        Request("default", "boss"),
    ]


def test_a_cluster_scoped_owner_is_requested_without_a_namespace():
    mapper = enqueue_owner(CLUSTER_WIDGET)
    assert list(mapper(owned("d", ref("w", controller=True)))) == [Request("", "w")]


def test_core_group_owners_match_by_bare_version():
    mapper = enqueue_owner(ConfigMap.info)
    dependent = owned("d", ref("cm", kind="ConfigMap", api_version="v1", controller=True))
    assert list(mapper(dependent)) == [Request("default", "cm")]


def test_an_update_queues_owners_of_both_old_and_new_once_each():
    queued: list[Request] = []
    handler = EnqueueHandler(enqueue_owner(WIDGET), queued.append)
    old = owned("d", ref("first", controller=True))
    new = owned("d", ref("second", controller=True))
    handler.on_update(old, new)
    assert queued == [Request("default", "first"), Request("default", "second")]
    queued.clear()
    handler.on_update(new, new)
    assert queued == [Request("default", "second")]


def test_predicates_drop_events_before_anything_is_queued():
    queued: list[Request] = []
    handler = EnqueueHandler(
        lambda o: [Request("default", o["metadata"]["name"])],
        queued.append,
        [ResourceVersionChanged()],
    )
    same = obj("a")
    same["metadata"]["resourceVersion"] = "1"
    handler.on_update(same, same)  # a resync
    assert queued == []
    newer = obj("a")
    newer["metadata"]["resourceVersion"] = "2"
    handler.on_update(same, newer)
    handler.on_add(same)
    handler.on_delete(same)
    assert queued == [Request("default", "a")] * 3


async def test_builder_wires_shared_informers_and_maps_events_to_owner_keys():
    host = Host()
    seen: list[Request] = []

    async def record(request: Request) -> None:
        seen.append(request)

    controller = (
        Builder(host)
        .for_(WIDGET)
        .owns(ConfigMap)
        .watches(Secret, lambda o: [Request("elsewhere", "x")])
        .with_options(max_concurrent_reconciles=3)
        .complete(record)
    )
    assert host.controllers == [controller]
    assert controller.name == "widget"
    assert controller.options.max_concurrent_reconciles == 3
    assert len(host.cache.informers) == 3
    second = Builder(host).named("second").for_(ConfigMap).complete(noop)
    assert len(host.cache.informers) == 3  # ConfigMaps are watched once for both
    assert second.informers[0] is controller.informers[1]
    configmaps = host.source.apis[("ConfigMap", None)]
    configmaps.put(owned("cm", ref("w1", controller=True)))
    secrets = host.source.apis[("Secret", None)]
    secrets.put(obj("s"))
    host.cache.start()
    await host.cache.wait_for_sync()
    await controller.start()
    for _ in range(100):
        await asyncio.sleep(0)
    assert sorted(seen) == [Request("default", "w1"), Request("elsewhere", "x")]
    await controller.stop()
    await host.cache.stop()


def test_builder_mistakes_are_reported_by_complete():
    host = Host()
    with pytest.raises(ValueError, match="only once"):
        Builder(host).for_(ConfigMap).for_(Secret).complete(noop)
    with pytest.raises(ValueError, match="owns\\(\\) needs for_"):
        Builder(host).named("x").owns(ConfigMap).complete(noop)
    with pytest.raises(ValueError, match="watches nothing"):
        Builder(host).named("x").complete(noop)
    with pytest.raises(ValueError, match="for_\\(kind\\) or named"):
        Builder(host).watches(Secret, lambda o: []).complete(noop)
    assert host.controllers == []


def test_metadata_only_watches_use_the_shared_metadata_informer():
    host = Host()
    controller = (
        Builder(host)
        .for_(WIDGET)
        .owns(Secret, metadata_only=True)
        .watches(ConfigMap, lambda o: [], metadata_only=True)
        .complete(noop)
    )
    _, secrets, configmaps = controller.informers
    assert secrets is host.cache.informer(Secret, metadata_only=True)
    assert configmaps is host.cache.informer(metadata_kind(ConfigMap.info))
    assert secrets is not host.cache.informer(Secret)


def test_only_a_handler_queueing_the_object_itself_without_predicates_skips_the_old_state():
    queued: list[Request] = []
    assert not EnqueueHandler(enqueue_object, queued.append).reads_old_state
    assert EnqueueHandler(enqueue_owner(WIDGET), queued.append).reads_old_state
    assert EnqueueHandler(enqueue_object, queued.append, [GenerationChanged()]).reads_old_state
