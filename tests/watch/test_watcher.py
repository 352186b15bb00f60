"""The watcher's list -> watch -> relist state machine, driven by an in-memory Api."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from kubeforge.core import errors
from kubeforge.core.clock import FakeClock
from kubeforge.watch import (
    Apply,
    Delete,
    Event,
    ExponentialBackoff,
    Init,
    InitApply,
    InitDone,
    WatcherConfig,
    watcher,
)

from .kf_fakes import FakeApi, gone, obj

Stream = AsyncGenerator[Event[dict[str, Any]], None]


def names(events: list[Event[dict[str, Any]]]) -> list[str]:
    """Compact rendering: Init, +a (InitApply), Done, ~a (Apply), -a (Delete)."""
    out = []
    for event in events:
        match event:
            case Init():
                out.append("Init")
            case InitApply(o):
                out.append(f"+{o['metadata']['name']}")
            case InitDone():
                out.append("Done")
            case Apply(o):
                out.append(f"~{o['metadata']['name']}")
            case Delete(o):
                out.append(f"-{o['metadata']['name']}")
    return out


async def take(stream: Stream, count: int) -> list[Event[dict[str, Any]]]:
    return [await asyncio.wait_for(anext(stream), 5) for _ in range(count)]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


def start(api: FakeApi, clock: FakeClock, config: WatcherConfig | None = None) -> Stream:
    backoff = ExponentialBackoff(clock=clock, jitter=0)
    return watcher(api, config, clock=clock, backoff=backoff)


async def test_lists_then_watches_from_the_list_resource_version(api, clock):
    api.put(obj("a"))
    api.put(obj("b"))
    stream = start(api, clock)
    first = await take(stream, 4)
    assert names(first) == ["Init", "+a", "+b", "Done"]
    assert first[-1] == InitDone(resource_version="2")
    api.put(obj("c"))
    api.put(obj("a", data=1))
    api.remove("b")
    assert names(await take(stream, 3)) == ["~c", "~a", "-b"]
    assert api.watch_calls == ["2"]
    await stream.aclose()
    assert api.open_watches == 0


async def test_first_list_reads_any_version_and_most_recent_asks_for_a_consistent_read(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    assert api.list_calls[0].resource_version == "0"
    await stream.aclose()
    stream = start(api, clock, WatcherConfig(list_semantic="most_recent"))
    await take(stream, 2)
    assert api.list_calls[1].resource_version == ""
    await stream.aclose()


async def test_lists_in_pages_that_carry_the_continue_token_and_no_version(api, clock):
    for name in "abcde":
        api.put(obj(name))
    stream = start(api, clock, WatcherConfig(page_size=2))
    assert names(await take(stream, 7)) == ["Init", "+a", "+b", "+c", "+d", "+e", "Done"]
    calls = [(c.resource_version, c.limit, c.continue_) for c in api.list_calls]
    assert calls == [("0", 2, None), (None, 2, "5:2"), (None, 2, "5:4")]
    await stream.aclose()


async def test_a_cleanly_ended_watch_resumes_from_the_last_event_without_relisting(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    api.put(obj("a"))
    await take(stream, 1)
    pending = asyncio.ensure_future(take(stream, 1))
    await api.watching()
    clock.advance(10)  # a long, healthy watch: not a "very short" one
    api.end_watches()
    await api.calls(2)
    api.put(obj("b"))
    assert names(await pending) == ["~b"]
    assert api.watch_calls == ["0", "1"]
    assert len(api.list_calls) == 1


async def test_a_bookmark_moves_the_resume_point_without_an_event(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    pending = asyncio.ensure_future(take(stream, 1))
    await api.watching()
    api.bookmark()
    api.bookmark()
    clock.advance(10)
    api.end_watches()
    await api.calls(2)
    api.put(obj("a"))
    assert names(await pending) == ["~a"]
    assert api.watch_calls == ["0", "2"]


async def test_gone_during_a_watch_relists_at_once_from_the_latest_version(api, clock):
    api.put(obj("a"))
    api.put(obj("b"))
    stream = start(api, clock)
    await take(stream, 4)
    pending = asyncio.ensure_future(take(stream, 4))
    await api.watching()
    # The watch misses "b" being deleted and "c" created, then history is compacted.
    api.remove_silently("b")
    api.put_silently(obj("c"))
    api.compact()
    api.fail_watches(gone())
    relisted = await pending
    assert names(relisted) == ["Init", "+a", "+c", "Done"]
    assert relisted[-1] == InitDone(resource_version="4")
    assert [c.resource_version for c in api.list_calls] == ["0", ""]
    assert clock.sleepers == 0  # no backoff for a first 410


async def test_a_second_gone_in_a_row_backs_off_before_relisting(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    pending = asyncio.ensure_future(take(stream, 2))
    await api.watching()
    api.fail_next_watch(gone())
    api.fail_watches(gone())
    assert names(await pending) == ["Init", "Done"]  # the first 410: relisted at once
    pending = asyncio.ensure_future(take(stream, 2))  # the second 410: backoff first
    await clock.wait_for_sleepers(1)
    assert clock.next_deadline == pytest.approx(0.8)
    assert len(api.list_calls) == 2
    clock.advance(0.8)
    assert names(await pending) == ["Init", "Done"]
    assert [c.resource_version for c in api.list_calls] == ["0", "", ""]


async def test_a_broken_connection_backs_off_then_rewatches_from_the_same_version(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    api.put(obj("a"))
    await take(stream, 1)
    pending = asyncio.ensure_future(take(stream, 1))
    await api.watching()
    api.fail_watches(errors.TransportError("connection reset"))
    api.fail_next_watch(errors.ServiceUnavailable({"code": 503}))
    await clock.wait_for_sleepers(1)
    assert clock.next_deadline == pytest.approx(0.8)
    clock.advance(0.8)
    await clock.wait_for_sleepers(1)  # the re-watch got 503: the delay doubles
    assert clock.next_deadline == pytest.approx(0.8 + 1.6)
    clock.advance(1.6)
    await api.watching()
    api.put(obj("b"))
    assert names(await pending) == ["~b"]
    assert api.watch_calls == ["0", "1", "1"]
    assert len(api.list_calls) == 1


async def test_a_watch_refused_for_good_reason_relists_after_backoff(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    pending = asyncio.ensure_future(take(stream, 2))
    await api.watching()
    api.fail_watches(errors.Forbidden({"code": 403, "message": "no"}))
    await clock.wait_for_sleepers(1)
    clock.advance(0.8)
    assert names(await pending) == ["Init", "Done"]
    assert len(api.list_calls) == 2


async def test_a_relist_after_a_refused_watch_is_no_older_than_what_was_seen(api, clock):
    stream = start(api, clock, WatcherConfig(page_size=2))
    await take(stream, 2)
    api.put(obj("a"))
    await take(stream, 1)
    pending = asyncio.ensure_future(take(stream, 3))
    await api.watching()
    api.fail_watches(errors.Forbidden({"code": 403, "message": "no"}))
    await clock.wait_for_sleepers(1)
    clock.advance(0.8)
    assert names(await pending) == ["Init", "+a", "Done"]
    # The relist names the last version seen ("not older than"), in a single page.
    calls = [(c.resource_version, c.limit) for c in api.list_calls]
    assert calls == [("0", 2), ("1", None)]


async def test_a_failed_list_is_retried_with_backoff_from_a_fresh_init(api, clock):
    api.put(obj("a"))
    api.fail_next_list(errors.TransportError("refused"), errors.InternalError({"code": 500}))
    stream = start(api, clock)
    pending = asyncio.ensure_future(take(stream, 5))
    await clock.wait_for_sleepers(1)
    clock.advance(0.8)
    await clock.wait_for_sleepers(1)
    clock.advance(1.6)
    assert names(await pending) == ["Init", "Init", "Init", "+a", "Done"]


async def test_an_expired_continue_token_relists_from_the_latest_version(api, clock):
    for name in "abc":
        api.put(obj(name))
    api.expire_continue_tokens = True
    stream = start(api, clock, WatcherConfig(page_size=2))
    events = names(await take(stream, 8))
    assert events == ["Init", "+a", "+b", "Init", "+a", "+b", "+c", "Done"]
    calls = [(c.resource_version, c.continue_) for c in api.list_calls]
    assert calls == [("0", None), (None, "3:2"), ("", None), (None, "3:2")]
    assert clock.sleepers == 0


async def test_a_watch_that_ends_at_once_without_events_backs_off(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    pending = asyncio.ensure_future(take(stream, 1))
    await api.watching()
    api.end_watches()
    await clock.wait_for_sleepers(1)
    assert len(api.watch_calls) == 1
    clock.advance(0.8)
    await api.watching()
    api.put(obj("a"))
    assert names(await pending) == ["~a"]


async def test_selectors_are_passed_to_list_and_watch(api, clock):
    api.put(
        obj("a", **{"metadata": {"name": "a", "namespace": "default", "labels": {"app": "web"}}})
    )
    api.put(obj("b"))
    stream = start(api, clock, WatcherConfig(label_selector="app=web"))
    assert names(await take(stream, 3)) == ["Init", "+a", "Done"]
    assert api.list_calls[0].label_selector == "app=web"
    await stream.aclose()


async def test_objects_of_another_kind_are_skipped_and_do_not_move_the_resume_point(api, clock):
    stream = start(api, clock)
    await take(stream, 2)
    pending = asyncio.ensure_future(take(stream, 1))
    await api.watching()
    api.inject("ADDED", {"kind": "Pod", "apiVersion": "v1", **obj("intruder")})
    api.inject("ADDED", {"kind": "Widget", "apiVersion": "other.io/v1", **obj("intruder-2")})
    api.put({"kind": "Widget", "apiVersion": "example.com/v1", **obj("a")})
    assert names(await pending) == ["~a"]
