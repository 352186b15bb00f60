"""Informer: store first, then handlers, in order; relist diffs; resync; late handlers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubeforge.cache import CacheSyncTimeout, Informer
from kubeforge.core.clock import FakeClock
from kubeforge.core.errors import TransportError
from kubeforge.watch import ExponentialBackoff
from watch.kf_fakes import FakeApi, gone, obj

Obj = dict[str, Any]


class Recorder:
    """Handlers that log what they saw, as ``verb name@rv``."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.objects: list[Obj] = []

    @staticmethod
    def _id(o: Obj) -> str:
        return f"{o['metadata']['name']}@{o['metadata'].get('resourceVersion')}"

    def on_add(self, o: Obj) -> None:
        self.objects.append(o)
        self.seen.append(f"add {self._id(o)}")

    def on_update(self, old: Obj, new: Obj) -> None:
        tag = "resync" if old is new else "update"
        self.seen.append(f"{tag} {self._id(old)}->{self._id(new)}")

    def on_delete(self, o: Obj) -> None:
        self.seen.append(f"delete {self._id(o)}")

    def register(self, informer: Informer[Obj], **kwargs: Any) -> Any:
        return informer.add_handler(
            on_add=self.on_add, on_update=self.on_update, on_delete=self.on_delete, **kwargs
        )


async def settle(condition: Any) -> None:
    """Let the loop run until ``condition()`` holds (bounded, no wall-clock waits)."""
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never held")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


@pytest.fixture
async def informer(api: FakeApi, clock: FakeClock) -> Any:
    informer: Informer[Obj] = Informer(
        api, clock=clock, backoff=ExponentialBackoff(clock=clock, jitter=0), name="test"
    )
    yield informer
    await informer.stop()


async def test_handlers_see_the_list_then_each_change_in_order_after_the_store(api, informer):
    api.put(obj("a"))
    api.put(obj("b"))
    recorder = Recorder()
    in_store_when_called: list[bool] = []
    recorder.register(informer)
    informer.add_handler(
        on_add=lambda o: in_store_when_called.append(
            informer.store.get("default/" + o["metadata"]["name"]) is not None
        )
    )
    informer.start()
    await informer.wait_for_sync()
    await api.watching()
    api.put(obj("a", data=1))
    api.remove("b")
    api.put(obj("c"))
    await settle(lambda: len(recorder.seen) == 5)
    assert recorder.seen == [
        "add a@1",
        "add b@2",
        "update a@1->a@3",
        "delete b@4",
        "add c@5",
    ]
    assert in_store_when_called == [True, True, True]
    assert sorted(o["metadata"]["name"] for o in informer.store.list()) == ["a", "c"]


async def test_a_relist_after_gone_reports_vanished_objects_as_deleted_and_changes_as_updated(
    api, informer
):
    api.put(obj("keep"))
    api.put(obj("change"))
    api.put(obj("vanish"))
    recorder = Recorder()
    recorder.register(informer)
    informer.start()
    await informer.wait_for_sync()
    await api.watching()
    # The watch misses these, then the history it would resume from is compacted away.
    api.put_silently(obj("change", data=2))
    api.remove_silently("vanish")
    api.put_silently(obj("new"))
    api.compact()
    api.fail_watches(gone())
    await settle(lambda: len(recorder.seen) == 7)
    assert recorder.seen[3:] == [
        "update change@2->change@4",
        "update keep@1->keep@1",
        "add new@6",
        "delete vanish@3",
    ]
    assert sorted(o["metadata"]["name"] for o in informer.store.list()) == [
        "change",
        "keep",
        "new",
    ]


async def test_a_handler_added_after_start_first_gets_synthetic_adds(api, informer):
    api.put(obj("a"))
    api.put(obj("b"))
    informer.start()
    await informer.wait_for_sync()
    late = Recorder()
    late.register(informer)
    assert late.seen == ["add a@1", "add b@2"]
    await api.watching()
    api.put(obj("c"))
    await settle(lambda: len(late.seen) == 3)
    assert late.seen[-1] == "add c@3"


async def test_resync_redelivers_every_object_as_an_update_to_itself(api, informer, clock):
    api.put(obj("a"))
    resyncing, quiet = Recorder(), Recorder()
    resyncing.register(informer, resync_period=30)
    quiet.register(informer)
    informer.start()
    await informer.wait_for_sync()
    await clock.wait_for_sleepers(1)
    clock.advance(30)
    await settle(lambda: len(resyncing.seen) == 2)
    assert resyncing.seen == ["add a@1", "resync a@1->a@1"]
    assert quiet.seen == ["add a@1"]
    clock.advance(30)
    await settle(lambda: len(resyncing.seen) == 3)


async def test_a_handler_with_a_shorter_period_added_later_is_resynced_on_its_own_period(
    api, informer, clock
):
    api.put(obj("a"))
    slow, fast = Recorder(), Recorder()
    slow.register(informer, resync_period=3600)
    informer.start()
    await informer.wait_for_sync()
    await clock.wait_for_sleepers(1)
    fast.register(informer, resync_period=10)
    await settle(lambda: clock.next_deadline == 10)
    clock.advance(10)
    await settle(lambda: len(fast.seen) == 2)
    assert fast.seen == ["add a@1", "resync a@1->a@1"]
    assert slow.seen == ["add a@1"]


async def test_resync_periods_below_one_second_are_raised_to_one_second(api, informer, clock):
    registration = informer.add_handler(on_update=lambda old, new: None, resync_period=0.01)
    assert registration.resync_period == 1.0


async def test_each_handler_gets_its_own_copy(api, informer):
    api.put(obj("a", data={"k": "v"}))
    first, second = Recorder(), Recorder()

    def vandal(o: Obj) -> None:
        o["data"]["k"] = "vandalised"
        first.on_add(o)

    informer.add_handler(on_add=vandal)
    second.register(informer)
    informer.start()
    await informer.wait_for_sync()
    await settle(lambda: len(second.objects) == 1)
    assert second.objects[0]["data"] == {"k": "v"}
    assert informer.store.list()[0]["data"] == {"k": "v"}


async def test_a_failing_handler_is_logged_and_others_still_run(api, informer, caplog):
    api.put(obj("a"))

    def broken(o: Obj) -> None:
        raise RuntimeError("handler bug")

    informer.add_handler(on_add=broken)
    recorder = Recorder()
    recorder.register(informer)
    informer.start()
    await informer.wait_for_sync()
    await api.watching()
    api.put(obj("b"))
    await settle(lambda: len(recorder.seen) == 2)
    assert "handler bug" in caplog.text


async def test_a_removed_handler_is_not_called_again(api, informer):
    recorder = Recorder()
    registration = recorder.register(informer)
    informer.start()
    await informer.wait_for_sync()
    informer.remove_handler(registration)
    await api.watching()
    api.put(obj("a"))
    await settle(lambda: len(informer.store) == 1)
    assert recorder.seen == []


async def test_waiting_for_sync_times_out_on_the_clock(api, informer, clock):
    api.fail_next_list(*(TransportError("connection refused") for _ in range(3)))
    informer.start()
    waiting = asyncio.ensure_future(informer.wait_for_sync(timeout=10))
    await clock.wait_for_sleepers(2)  # the sync timer and the list's backoff
    clock.advance(10)
    with pytest.raises(CacheSyncTimeout, match="test"):
        await waiting
    assert isinstance(CacheSyncTimeout("x"), TimeoutError)


async def test_a_delete_missed_by_the_watch_reaches_on_missed_delete_with_the_cached_state(
    api, informer
):
    api.put(obj("seen-go"))
    api.put(obj("missed-go", data="cached"))
    deleted: list[str] = []
    missed: list[Obj] = []
    informer.add_handler(
        on_delete=lambda o: deleted.append(o["metadata"]["name"]), on_missed_delete=missed.append
    )
    fallback: list[str] = []
    informer.add_handler(on_delete=lambda o: fallback.append(o["metadata"]["name"]))
    informer.start()
    await informer.wait_for_sync()
    await api.watching()
    api.remove("seen-go")
    await settle(lambda: deleted == ["seen-go"])
    api.remove_silently("missed-go")
    api.compact()
    api.fail_watches(gone())
    await settle(lambda: len(missed) == 1)
    assert deleted == ["seen-go"]  # the missed one went to on_missed_delete only
    assert missed[0]["metadata"]["name"] == "missed-go"
    assert missed[0]["data"] == "cached"  # the last state the cache knew, not the final one
    assert fallback == ["seen-go", "missed-go"]  # without on_missed_delete: on_delete


async def test_a_transform_runs_before_the_cache_and_every_handler(api, clock):
    def slim(o: Obj) -> Obj:
        o["metadata"].pop("managedFields", None)
        o["metadata"]["annotations"] = {"transformed": "yes"}
        return o

    informer: Informer[Obj] = Informer(api, transform=slim, clock=clock, name="slim")
    recorder = Recorder()
    recorder.register(informer)
    api.put(obj("a") | {"metadata": {"name": "a", "namespace": "default", "managedFields": [{}]}})
    informer.start()
    try:
        await informer.wait_for_sync()
        await api.watching()
        api.put(obj("b") | {"metadata": {"name": "b", "namespace": "default", "managedFields": []}})
        await settle(lambda: len(recorder.objects) == 2)
        for seen in [*recorder.objects, *informer.store.list()]:
            assert "managedFields" not in seen["metadata"]
            assert seen["metadata"]["annotations"] == {"transformed": "yes"}
    finally:
        await informer.stop()


async def test_handlers_see_a_relist_after_the_store_has_swapped(api, informer):
    api.put(obj("a"))
    informer.start()
    await informer.wait_for_sync()
    await api.watching()
    api.put_silently(obj("b"))
    api.compact()
    store_sizes: list[int] = []
    informer.add_handler(on_update=lambda old, new: store_sizes.append(len(informer.store)))
    api.fail_watches(gone())
    await settle(lambda: len(store_sizes) == 1)
    assert store_sizes == [2]  # b was already in the store when a's update was reported


async def test_a_handler_without_old_state_gets_the_new_object_twice_beside_one_with_it(
    api, informer
):
    api.put(obj("a"))
    with_old: list[tuple[Obj, Obj]] = []
    without_old: list[tuple[Obj, Obj]] = []
    informer.add_handler(on_update=lambda old, new: with_old.append((old, new)))
    informer.add_handler(on_update=lambda old, new: without_old.append((old, new)), old_state=False)
    informer.start()
    await informer.wait_for_sync()
    await api.watching()
    api.put(obj("a", data=1))
    await settle(lambda: with_old and without_old)
    (old, new), (same, again) = with_old[0], without_old[0]
    assert old["metadata"]["resourceVersion"] != new["metadata"]["resourceVersion"]
    assert same is again and same == new  # the new state, in both places
    assert same is not new  # still a private copy per handler
