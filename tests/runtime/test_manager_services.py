"""What a Manager hands its controllers: a cached client, event recorders, cache transforms."""

from __future__ import annotations

import asyncio
from typing import Any

from kubeforge.cache.transforms import drop_managed_fields
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core import errors
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap, Event
from kubeforge.runtime import Manager, ManagerOptions
from watch.kf_server import fresh_namespace, own


async def _running(manager: Manager) -> asyncio.Task[None]:
    task = asyncio.create_task(manager.run())
    async with asyncio.timeout(10):
        while not manager.started:
            await asyncio.sleep(0.01)
    return task


async def test_the_cached_client_reads_through_the_cache_and_writes_to_the_server(
    kube_apiserver: Any, client: Client
) -> None:
    namespace = await fresh_namespace(client, "mgr-services")
    manager = Manager(load_config(kube_apiserver.kubeconfig))
    running = await _running(manager)
    try:
        written = await manager.cached_client.create(
            ConfigMap(metadata=ObjectMeta(name="c", namespace=namespace), data={"k": "v"})
        )
        assert written.metadata.uid
        async with asyncio.timeout(10):
            while True:
                try:
                    read = await manager.cached_client.get(ConfigMap, "c", namespace=namespace)
                    break
                except errors.NotFound:  # until the new informer has seen it
                    await asyncio.sleep(0.02)
        assert read.data == {"k": "v"}
        assert manager.cache.find(ConfigMap) is not None  # the read started an informer
    finally:
        manager.stop()
        await running


def _drop_data(obj: ConfigMap) -> ConfigMap:
    obj.data = None
    return obj


async def test_transforms_run_before_objects_are_cached(
    kube_apiserver: Any, client: Client
) -> None:
    namespace = await fresh_namespace(client, "mgr-services")
    await client.api(ConfigMap, namespace=namespace).create(
        ConfigMap(metadata=ObjectMeta(name="m"), data={"big": "value"})
    )
    options = ManagerOptions(
        default_transform=drop_managed_fields, transforms={ConfigMap: _drop_data}
    )
    manager = Manager(load_config(kube_apiserver.kubeconfig), options=options)
    store = manager.cache.store(ConfigMap, namespace=namespace)
    running = await _running(manager)
    try:
        cached = store.list()
        assert [(c.metadata.name, c.data) for c in own(cached)] == [("m", None)]
        assert all(c.data is None for c in cached)  # kube-root-ca.crt's too
        assert (await client.api(ConfigMap, namespace=namespace).get("m")).data == {"big": "value"}
    finally:
        manager.stop()
        await running


async def test_an_event_recorder_is_shared_per_component_and_flushed_on_shutdown(
    kube_apiserver: Any, client: Client
) -> None:
    namespace = await fresh_namespace(client, "mgr-services")
    subject = await client.api(ConfigMap, namespace=namespace).create(
        ConfigMap(metadata=ObjectMeta(name="subject"))
    )
    manager = Manager(load_config(kube_apiserver.kubeconfig))
    recorder = manager.event_recorder("podtoip-controller")
    assert manager.event_recorder("podtoip-controller") is recorder
    running = await _running(manager)
    recorder.event(subject, "Normal", "Mirrored", "made a copy")
    manager.stop()
    await running

    events = (await client.api(Event, namespace=namespace).list()).items
    assert [(e.reason, e.message, e.involved_object.name) for e in events] == [
        ("Mirrored", "made a copy", "subject")
    ]
    assert events[0].source is not None
    assert events[0].source.component == "podtoip-controller"
