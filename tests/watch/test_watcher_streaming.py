"""The watcher's streaming initial list (``initial_list="streaming"``), driven by an in-memory Api.

Written from client-go 1.32's reflector: the state comes as ``ADDED`` events of a
watch with ``sendInitialEvents=true`` up to the bookmark annotated
``k8s.io/initial-events-end``; any failure before that bookmark falls back to a
paged list for that sync, and the next sync tries streaming again.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.core.clock import FakeClock
from kubeforge.watch import InitDone, WatcherConfig

from .kf_fakes import Event, FakeApi, gone, obj
from .test_watcher import names, start, take

STREAMING = WatcherConfig(initial_list="streaming")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


async def test_the_state_streams_in_then_the_watch_resumes_from_its_bookmark(api, clock):
    api.put(obj("a"))
    api.put(obj("b"))
    stream = start(api, clock, STREAMING)
    first = await take(stream, 4)
    assert names(first) == ["Init", "+a", "+b", "Done"]
    assert first[-1] == InitDone(resource_version="2")
    api.put(obj("c"))
    api.remove("a")
    assert names(await take(stream, 2)) == ["~c", "-a"]
    assert api.streaming_calls == [""]  # the latest state, not whatever a cache holds
    assert api.list_calls == []
    assert api.watch_calls == ["2"]
    await stream.aclose()
    assert api.open_watches == 0


async def test_a_server_refusing_streaming_lists_is_listed_in_pages(api, clock):
    api.put(obj("a"))
    api.refuse_streaming_lists = True
    stream = start(api, clock, STREAMING)
    assert names(await take(stream, 4)) == ["Init", "Init", "+a", "Done"]
    assert len(api.list_calls) == 1
    api.put(obj("b"))
    assert names(await take(stream, 1)) == ["~b"]
    await stream.aclose()


async def test_a_relist_after_gone_streams_again(api, clock):
    api.put(obj("a"))
    stream = start(api, clock, STREAMING)
    assert names(await take(stream, 3)) == ["Init", "+a", "Done"]
    api.put(obj("b"))
    assert names(await take(stream, 1)) == ["~b"]
    api.fail_watches(gone())
    assert names(await take(stream, 4)) == ["Init", "+a", "+b", "Done"]
    assert api.streaming_calls == ["", ""]
    assert api.list_calls == []
    await stream.aclose()


class _NoEndBookmark(FakeApi):
    """A server that ignores ``sendInitialEvents``' bookmark (never ends the initial events)."""

    def _initial_events(self) -> list[Event]:
        return [e for e in super()._initial_events() if e.type != "BOOKMARK"]


async def test_a_stream_ending_before_its_bookmark_falls_back_to_a_paged_list(clock):
    api = _NoEndBookmark()
    api.put(obj("a"))
    stream = start(api, clock, STREAMING)
    assert names(await take(stream, 2)) == ["Init", "+a"]
    await api.watching()
    api.end_watches()
    events: list[Any] = await take(stream, 3)
    assert names(events) == ["Init", "+a", "Done"]
    assert len(api.list_calls) == 1
    await stream.aclose()
