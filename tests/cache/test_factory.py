"""InformerFactory: one informer per (kind, namespace, selectors), started with the factory."""

from __future__ import annotations

from kubeforge.cache import InformerFactory
from kubeforge.core.clock import FakeClock
from kubeforge.core.resource import ResourceInfo
from kubeforge.models.core_v1 import ConfigMap, Secret
from watch.fakes import FakeApi, FakeSource, obj

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
