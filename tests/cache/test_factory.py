"""InformerFactory: one informer per (kind, namespace, selectors), started with the factory."""

from __future__ import annotations

from typing import Any

from kubeforge.cache import InformerFactory, metadata_kind
from kubeforge.core.clock import FakeClock
from kubeforge.core.resource import ResourceInfo
from kubeforge.models.core_v1 import ConfigMap, Secret
from watch.kf_fakes import FakeApi, FakeSource, obj

WIDGETS = ResourceInfo(group="example.com", version="v1", kind="Widget", plural="widgets")


async def test_the_same_request_shares_one_informer_and_other_requests_get_their_own():
    factory = InformerFactory(FakeSource(), clock=FakeClock())
    pods = factory.informer(ConfigMap)
    assert factory.informer(ConfigMap) is pods
    assert factory.store(ConfigMap) is pods.store
    assert factory.informer(ConfigMap, namespace="a") is not pods
    assert factory.informer(ConfigMap, label_selector="app=web") is not pods
    assert factory.informer(Secret) is not pods
    assert factory.informer(WIDGETS) is factory.informer(WIDGETS)
    assert len(factory.informers) == 5
    assert factory.informer(WIDGETS).name == "widgets.example.com"
    assert factory.informer(ConfigMap, namespace="a").name == "configmaps in a"


async def test_informers_start_with_the_factory_and_later_ones_start_at_once():
    source = FakeSource()
    factory = InformerFactory(source, clock=FakeClock(), resync_period=60)
    early = factory.informer(ConfigMap)
    assert not early.running
    source.apis[("Widget", None)] = FakeApi()
    source.apis[("Widget", None)].put(obj("w"))
    factory.start()
    late = factory.informer(WIDGETS)
    assert early.running and late.running
    assert late.resync_period == 60
    await factory.wait_for_sync(timeout=5)
    assert [o["metadata"]["name"] for o in late.store.list()] == ["w"]
    await factory.stop()
    assert not early.running and not late.running


async def test_metadata_only_informers_are_shared_apart_from_full_ones():
    factory = InformerFactory(FakeSource(), clock=FakeClock())
    full = factory.informer(ConfigMap)
    meta = factory.informer(ConfigMap, metadata_only=True)
    assert meta is not full
    assert meta is factory.informer(metadata_kind(ConfigMap.info))
    assert meta is factory.informer(ConfigMap.info, metadata_only=True)
    assert meta.name == "configmaps (metadata)"


async def test_find_returns_only_informers_already_made():
    factory = InformerFactory(FakeSource(), clock=FakeClock())
    assert factory.find(ConfigMap) is None
    made = factory.informer(ConfigMap, namespace="a")
    assert factory.find(ConfigMap, namespace="a") is made
    assert factory.find(ConfigMap) is None
    assert len(factory.informers) == 1


async def test_transforms_are_chosen_per_kind_with_a_default_for_the_rest():
    source = FakeSource()
    marked: list[str] = []

    def mark(label: str) -> Any:
        def transform(o: dict[str, Any]) -> dict[str, Any]:
            marked.append(f"{label}:{o['metadata']['name']}")
            return o

        return transform

    factory = InformerFactory(
        source,
        clock=FakeClock(),
        default_transform=mark("default"),
        transforms={WIDGETS: mark("widgets")},
    )
    source.dynamic(WIDGETS).put(obj("w"))
    source.api(ConfigMap).put(obj("c"))
    factory.informer(WIDGETS)
    factory.informer(ConfigMap)
    factory.start()
    await factory.wait_for_sync(timeout=5)
    assert sorted(marked) == ["default:c", "widgets:w"]
    await factory.stop()
