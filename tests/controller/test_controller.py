"""Controller: workers, one key at a time, and controller-runtime's outcome policy."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kubeforge.cache import Informer
from kubeforge.controller import Controller, ControllerOptions
from kubeforge.core.clock import FakeClock
from kubeforge.core.errors import TransportError
from kubeforge.reconcile import Request, Result, TerminalError
from kubeforge.workqueue import ItemExponentialFailureRateLimiter
from watch.kf_fakes import FakeApi, obj

A, B = Request("default", "a"), Request("default", "b")


async def settle(condition: Callable[[], bool]) -> None:
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never held")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def make(clock: FakeClock) -> Any:
    """Build and start a controller around a reconciler; stopped after the test."""
    started: list[Controller] = []

    async def make(
        reconciler: Callable[[Request], Awaitable[Result | None]], workers: int = 1
    ) -> Controller:
        options = ControllerOptions(
            max_concurrent_reconciles=workers,
            # 1 s doubling: delays easy to step through on the fake clock.
            rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0),
        )
        controller = Controller("test", reconciler, options=options, clock=clock)
        await controller.start()
        started.append(controller)
        return controller

    yield make
    for controller in started:
        await controller.stop(grace_period=None)


async def test_success_forgets_the_key_and_runs_it_once(make):
    calls: list[Request] = []

    async def reconcile(request: Request) -> None:
        calls.append(request)

    controller = await make(reconcile)
    controller.queue.add(A)
    await settle(lambda: calls == [A])
    assert controller.queue.num_requeues(A) == 0


async def test_an_exception_is_logged_with_the_key_and_retried_with_backoff(make, clock, caplog):
    calls: list[Request] = []

    async def reconcile(request: Request) -> Result:
        calls.append(request)
        if len(calls) < 3:
            raise RuntimeError("flaky dependency")
        return Result()

    controller = await make(reconcile)
    controller.queue.add(A)
    await settle(lambda: len(calls) == 1)
    await clock.wait_for_sleepers(1)
    assert clock.next_deadline == pytest.approx(1.0)
    clock.advance(1.0)
    await settle(lambda: len(calls) == 2)
    await clock.wait_for_sleepers(1)
    assert clock.next_deadline == pytest.approx(3.0)  # the second failure waits 2 s
    clock.advance(2.0)
    await settle(lambda: len(calls) == 3)
    await settle(lambda: controller.queue.num_requeues(A) == 0)  # success forgot the history
    assert "reconcile default/a failed" in caplog.text
    assert "flaky dependency" in caplog.text


async def test_a_terminal_error_is_not_retried(make, clock, caplog):
    calls: list[Request] = []

    async def reconcile(request: Request) -> None:
        calls.append(request)
        raise TerminalError("spec is invalid")

    controller = await make(reconcile)
    controller.queue.add(A)
    await settle(lambda: len(calls) == 1)
    await settle(lambda: len(controller.queue._processing) == 0)
    assert clock.sleepers == 0
    assert controller.queue.waiting == 0
    assert "spec is invalid" in caplog.text


async def test_requeue_after_forgets_the_backoff_and_runs_again_after_the_delay(make, clock):
    calls: list[Request] = []

    async def reconcile(request: Request) -> Result:
        calls.append(request)
        if len(calls) == 1:
            raise RuntimeError("first attempt fails")
        return Result(requeue_after=30.0) if len(calls) == 2 else Result()

    controller = await make(reconcile)
    controller.queue.add(A)
    await clock.wait_for_sleepers(1)
    clock.advance(1.0)
    await settle(lambda: len(calls) == 2)
    await settle(lambda: controller.queue.waiting == 1)
    assert controller.queue.num_requeues(A) == 0
    await clock.wait_for_sleepers(1)
    assert clock.next_deadline == pytest.approx(31.0)
    clock.advance(30.0)
    await settle(lambda: len(calls) == 3)


async def test_requeue_keeps_the_backoff_growing(make, clock):
    calls: list[Request] = []

    async def reconcile(request: Request) -> Result:
        calls.append(request)
        return Result(requeue=len(calls) < 3)

    controller = await make(reconcile)
    controller.queue.add(A)
    await clock.wait_for_sleepers(1)
    assert controller.queue.num_requeues(A) == 1
    clock.advance(1.0)
    await settle(lambda: len(calls) == 2)
    await clock.wait_for_sleepers(1)
    assert controller.queue.num_requeues(A) == 2
    clock.advance(2.0)
    await settle(lambda: len(calls) == 3)
    await settle(lambda: controller.queue.num_requeues(A) == 0)


async def test_two_workers_run_different_keys_in_parallel_but_never_one_key_twice(make):
    running: set[Request] = set()
    overlaps: list[Request] = []
    peak = 0
    release = asyncio.Event()
    calls: list[Request] = []

    async def reconcile(request: Request) -> None:
        nonlocal peak
        if request in running:
            overlaps.append(request)
        running.add(request)
        peak = max(peak, len(running))
        calls.append(request)
        await release.wait()
        running.discard(request)

    controller = await make(reconcile, workers=2)
    controller.queue.add(A)
    controller.queue.add(B)
    await settle(lambda: len(running) == 2)
    controller.queue.add(A)  # while A runs: merged into one more run afterwards
    controller.queue.add(A)
    for _ in range(50):
        await asyncio.sleep(0)
    assert calls == [A, B]
    release.set()
    await settle(lambda: len(calls) == 3)
    assert calls[2] == A
    assert overlaps == []
    assert peak == 2


async def test_stop_lets_the_running_reconcile_finish_and_drops_queued_keys(make):
    calls: list[Request] = []
    finished: list[Request] = []
    release = asyncio.Event()

    async def reconcile(request: Request) -> None:
        calls.append(request)
        await release.wait()
        finished.append(request)

    controller = await make(reconcile)
    controller.queue.add(A)
    controller.queue.add(B)
    await settle(lambda: calls == [A])
    stopping = asyncio.ensure_future(controller.stop(grace_period=None))
    await asyncio.sleep(0)
    assert not stopping.done()
    release.set()
    await stopping
    assert finished == [A]
    assert calls == [A]  # B was queued but never handed to the reconciler


async def test_stop_cancels_reconciles_still_running_after_the_grace_period(make, clock):
    cancelled = asyncio.Event()

    async def reconcile(request: Request) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    controller = await make(reconcile)
    controller.queue.add(A)
    await settle(lambda: len(controller.queue._processing) == 1)
    stopping = asyncio.ensure_future(controller.stop(grace_period=5))
    await clock.wait_for_sleepers(1)
    clock.advance(5)
    await stopping
    assert cancelled.is_set()


async def test_workers_start_only_after_the_sources_synced(clock):
    api = FakeApi()
    api.put(obj("a"))
    api.fail_next_list(TransportError("connection refused"))
    calls: list[Request] = []

    async def reconcile(request: Request) -> None:
        calls.append(request)

    informer: Informer[dict[str, Any]] = Informer(api, clock=clock, name="widgets")
    controller = Controller("test", reconcile, clock=clock)
    controller.watch(informer)
    starting = asyncio.ensure_future(controller.start())
    await clock.wait_for_sleepers(2)  # the list's backoff and the sync timeout
    assert not starting.done()
    assert controller.queue.waiting == 0 and len(controller.queue) == 0
    clock.advance(2)  # past any jittered first backoff
    await starting
    await settle(lambda: calls == [A])
    await controller.stop()
    await informer.stop()


async def test_watches_cannot_be_added_once_started(make):
    async def reconcile(request: Request) -> None:
        return None

    controller = await make(reconcile)
    with pytest.raises(RuntimeError, match="before start"):
        controller.watch(Informer(FakeApi()))
