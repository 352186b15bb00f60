"""EventRecorder against the real local API server: create, count repeats, recreate, drop."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from kubeforge.client import Client
from kubeforge.controller import EventRecorder
from kubeforge.controller.events import CorrelatorOptions
from kubeforge.core.clock import FakeClock
from kubeforge.models.core_v1 import ConfigMap, Event
from watch.kf_server import configmap, fresh_namespace

pytestmark = pytest.mark.live

NANOS = 1_736_500_000_000_000_000  # 2025-01-10T09:06:40Z


def ticking() -> Any:
    """A wall clock that moves one second per reading."""
    seconds = itertools.count()
    return lambda: NANOS + next(seconds) * 1_000_000_000


async def events_in(client: Client, namespace: str) -> list[Event]:
    page = await client.api(Event, namespace=namespace).list()
    return sorted(page.items, key=lambda e: e.metadata.name or "")


async def test_an_event_names_its_object_and_source(client):
    namespace = await fresh_namespace(client, "events-new")
    owner = await client.api(ConfigMap, namespace=namespace).create(configmap("web", namespace))
    recorder = EventRecorder(client, "widget-controller", host="node-1", wall_clock=ticking())
    recorder.event(owner, "Normal", "Synced", "synced web", field_path="data")
    await recorder.close()
    [event] = await events_in(client, namespace)
    assert re.fullmatch(r"web\.[0-9a-f]+", event.metadata.name or "")
    assert event.metadata.name == f"web.{NANOS:x}"
    ref = event.involved_object
    assert (ref.kind, ref.api_version, ref.name, ref.namespace) == (
        "ConfigMap",
        "v1",
        "web",
        namespace,
    )
    assert (ref.uid, ref.resource_version, ref.field_path) == (
        owner.metadata.uid,
        owner.metadata.resource_version,
        "data",
    )
    assert (event.type, event.reason, event.message, event.count) == (
        "Normal",
        "Synced",
        "synced web",
        1,
    )
    assert event.first_timestamp == event.last_timestamp == "2025-01-10T09:06:40Z"
    assert event.source is not None
    assert (event.source.component, event.source.host) == ("widget-controller", "node-1")
    assert (event.reporting_component, event.reporting_instance) == ("widget-controller", "node-1")


async def test_repeats_patch_count_and_last_timestamp_and_a_new_message_is_a_new_event(client):
    namespace = await fresh_namespace(client, "events-repeat")
    owner = await client.api(ConfigMap, namespace=namespace).create(configmap("web", namespace))
    recorder = EventRecorder(client, "ctl", wall_clock=ticking())
    for _ in range(3):
        recorder.event(owner, "Warning", "Failed", "could not sync")
    recorder.event(owner, "Warning", "Failed", "something else")
    await recorder.flush()
    first, second = await events_in(client, namespace)
    assert (first.message, first.count) == ("could not sync", 3)
    assert first.first_timestamp == "2025-01-10T09:06:40Z"
    assert first.last_timestamp == "2025-01-10T09:06:42Z"  # one tick per recorded event
    assert (second.message, second.count) == ("something else", 1)

    # Events expire on a real cluster: a repeat of a deleted event creates it again.
    await client.api(Event, namespace=namespace).delete(first.metadata.name or "")
    recorder.event(owner, "Warning", "Failed", "could not sync")
    await recorder.close()
    recreated = [e for e in await events_in(client, namespace) if e.message == "could not sync"]
    assert [(e.metadata.name, e.count) for e in recreated] == [(first.metadata.name, 4)]


async def test_cluster_scoped_objects_get_events_in_default(client):
    namespace = await fresh_namespace(client, "events-cluster")
    node_like = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": namespace, "uid": "u"},
    }
    recorder = EventRecorder(client, "ctl", wall_clock=ticking())
    recorder.event(node_like, "Normal", "Seen", f"saw {namespace}")
    await recorder.close()
    found = [e for e in await events_in(client, "default") if e.message == f"saw {namespace}"]
    assert [e.involved_object.kind for e in found] == ["Namespace"]


async def test_unknown_types_and_spam_beyond_the_burst_are_dropped(client, caplog):
    namespace = await fresh_namespace(client, "events-spam")
    owner = await client.api(ConfigMap, namespace=namespace).create(configmap("web", namespace))
    recorder = EventRecorder(
        client,
        "ctl",
        options=CorrelatorOptions(spam_burst=3),
        clock=FakeClock(),
        wall_clock=ticking(),
    )
    recorder.event(owner, "Info", "Odd", "not a valid type")
    for i in range(5):
        recorder.event(owner, "Normal", f"Reason{i}", f"message {i}")
    await recorder.close()
    assert [e.reason for e in await events_in(client, namespace)] == [
        "Reason0",
        "Reason1",
        "Reason2",
    ]
    assert "unsupported event type 'Info'" in caplog.text
    recorder.event(owner, "Normal", "Late", "after close")  # dropped, not an error
