"""Controller: what it counts (controller-runtime metrics) and the context reconciles run in."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from kubeforge.controller import Controller, ControllerOptions
from kubeforge.controller.controller import ReconcileContext, current_reconcile
from kubeforge.core.clock import FakeClock
from kubeforge.core.errors import ApiError
from kubeforge.core.status import failure
from kubeforge.reconcile import Request, Result, TerminalError
from kubeforge.runtime.logs import ReconcileContextFilter
from kubeforge.runtime.metrics import ManagerMetrics
from kubeforge.workqueue import ItemExponentialFailureRateLimiter

A, B = Request("default", "a"), Request("default", "b")
NAME = "widgets"


async def settle(condition: Callable[[], bool]) -> None:
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never held")


def value(metrics: ManagerMetrics, metric: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(metric, labels)


def total(metrics: ManagerMetrics, result: str) -> float | None:
    return value(metrics, "controller_runtime_reconcile_total", controller=NAME, result=result)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def metrics() -> ManagerMetrics:
    return ManagerMetrics()


@pytest.fixture
async def make(clock: FakeClock, metrics: ManagerMetrics) -> AsyncIterator[Any]:
    started: list[Controller] = []

    async def make(
        reconciler: Callable[[Request], Awaitable[Result | None]], workers: int = 1
    ) -> Controller:
        options = ControllerOptions(
            max_concurrent_reconciles=workers,
            rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0),
        )
        controller = Controller(NAME, reconciler, options=options, clock=clock, metrics=metrics)
        await controller.start()
        started.append(controller)
        return controller

    yield make
    for controller in started:
        await controller.stop(grace_period=None)


async def test_every_counter_exists_at_zero_once_the_controller_starts(make, metrics):
    async def reconcile(request: Request) -> None:
        return None

    await make(reconcile, workers=3)
    for result in ("success", "error", "requeue", "requeue_after"):
        assert total(metrics, result) == 0
    for name in (
        "controller_runtime_reconcile_errors_total",
        "controller_runtime_terminal_reconcile_errors_total",
        "controller_runtime_reconcile_panics_total",
        "controller_runtime_active_workers",
    ):
        assert value(metrics, name, controller=NAME) == 0, name
    assert value(metrics, "controller_runtime_max_concurrent_reconciles", controller=NAME) == 3


async def test_each_outcome_is_counted_under_its_result_label(make, metrics):
    outcomes: list[Result | None] = [Result(), Result(requeue=True), Result(requeue_after=60.0)]
    calls: list[Request] = []

    async def reconcile(request: Request) -> Result | None:
        calls.append(request)
        return outcomes[len(calls) - 1] if len(calls) <= len(outcomes) else None

    controller = await make(reconcile)
    for n in range(3):
        controller.queue.add(Request("default", f"k{n}"))
    await settle(lambda: len(calls) == 3)
    await settle(lambda: total(metrics, "requeue_after") == 1)
    assert total(metrics, "success") == 1
    assert total(metrics, "requeue") == 1
    assert total(metrics, "error") == 0
    count = "controller_runtime_reconcile_time_seconds_count"
    assert value(metrics, count, controller=NAME) == 3


async def test_terminal_errors_and_panics_are_errors_counted_apart(make, metrics):
    failures: dict[str, BaseException] = {
        "terminal": TerminalError("spec is invalid"),
        "api": ApiError.from_status(failure(409, "Conflict", "the object has been modified")),
        "bug": KeyError("status"),
    }

    async def reconcile(request: Request) -> None:
        raise failures[request.name]

    controller = await make(reconcile)
    for name in failures:
        controller.queue.add(Request("default", name))
    await settle(lambda: total(metrics, "error") == 3)
    assert value(metrics, "controller_runtime_reconcile_errors_total", controller=NAME) == 3
    terminal = "controller_runtime_terminal_reconcile_errors_total"
    assert value(metrics, terminal, controller=NAME) == 1
    # Only the KeyError is a bug; a kubeforge error is an expected failure.
    assert value(metrics, "controller_runtime_reconcile_panics_total", controller=NAME) == 1
    assert total(metrics, "success") == 0


async def test_reconcile_time_is_measured_on_the_controller_clock(make, metrics, clock):
    async def reconcile(request: Request) -> None:
        await clock.sleep(3.0)

    controller = await make(reconcile)
    controller.queue.add(A)
    await settle(lambda: clock.sleepers >= 1)
    clock.advance(3.0)
    await settle(lambda: total(metrics, "success") == 1)
    seconds = "controller_runtime_reconcile_time_seconds"
    assert value(metrics, seconds + "_sum", controller=NAME) == pytest.approx(3.0)
    assert value(metrics, seconds + "_bucket", controller=NAME, le="2.5") == 0
    assert value(metrics, seconds + "_bucket", controller=NAME, le="3.0") == 1


async def test_active_workers_counts_the_reconciles_in_flight(make, metrics):
    release = asyncio.Event()
    running: list[Request] = []

    async def reconcile(request: Request) -> None:
        running.append(request)
        await release.wait()

    controller = await make(reconcile, workers=2)
    controller.queue.add(A)
    controller.queue.add(B)
    await settle(lambda: len(running) == 2)
    assert value(metrics, "controller_runtime_active_workers", controller=NAME) == 2
    release.set()
    await settle(lambda: total(metrics, "success") == 2)
    await settle(lambda: value(metrics, "controller_runtime_active_workers", controller=NAME) == 0)


async def test_the_work_queue_reports_under_the_controller_name(make, metrics, clock):
    calls: list[Request] = []

    async def reconcile(request: Request) -> None:
        calls.append(request)
        if len(calls) == 1:
            raise RuntimeError("retry me")

    controller = await make(reconcile)
    controller.queue.add(A)
    await settle(lambda: total(metrics, "error") == 1)
    await settle(lambda: clock.sleepers >= 1)
    clock.advance(1.0)  # the retry's backoff
    await settle(lambda: total(metrics, "success") == 1)
    labels = {"name": NAME, "controller": NAME}
    assert value(metrics, "workqueue_adds_total", **labels) == 2
    assert value(metrics, "workqueue_retries_total", **labels) == 1
    assert value(metrics, "workqueue_depth", **labels) == 0
    assert value(metrics, "workqueue_work_duration_seconds_count", **labels) == 2
    assert value(metrics, "workqueue_queue_duration_seconds_count", **labels) == 2


async def test_metrics_cannot_be_attached_once_started_or_once_keys_are_queued(clock, metrics):
    async def reconcile(request: Request) -> None:
        return None

    queued = Controller("queued", reconcile, clock=clock)
    queued.queue.add(A)
    with pytest.raises(RuntimeError, match="before queueing"):
        queued.use_metrics(metrics)
    running = Controller("running", reconcile, clock=clock)
    await running.start()
    try:
        with pytest.raises(RuntimeError, match="before start"):
            running.use_metrics(metrics)
    finally:
        await running.stop(grace_period=None)
    assert not running.instrumented


async def test_the_reconciler_and_the_tasks_it_spawns_see_the_reconcile_context(make):
    seen: list[ReconcileContext | None] = []

    async def child() -> None:
        seen.append(current_reconcile())

    async def reconcile(request: Request) -> None:
        seen.append(current_reconcile())
        await asyncio.create_task(child())

    controller = await make(reconcile)
    controller.queue.add(A)
    controller.queue.add(B)
    await settle(lambda: len(seen) == 4)
    first, spawned, second, _ = seen
    assert first is not None and second is not None
    assert (first.controller, first.namespace, first.name) == (NAME, "default", "a")
    assert spawned == first
    assert first.reconcile_id != second.reconcile_id  # a fresh ID per reconcile
    assert current_reconcile() is None


async def test_log_lines_written_during_a_reconcile_carry_its_context(make, caplog):
    user_log = logging.getLogger("my_operator")
    caplog.handler.addFilter(ReconcileContextFilter())
    done = asyncio.Event()

    async def reconcile(request: Request) -> None:
        user_log.warning("looking at %s", request)
        done.set()

    controller = await make(reconcile)
    user_log.warning("outside")
    controller.queue.add(A)
    await asyncio.wait_for(done.wait(), 10)
    outside, inside = (r for r in caplog.records if r.name == "my_operator")
    assert outside.reconcile == {}
    assert outside.reconcile_fields == ""
    assert inside.reconcile["controller"] == NAME
    assert (inside.reconcile["namespace"], inside.reconcile["name"]) == ("default", "a")
    assert inside.reconcile_fields.startswith(f" controller={NAME} namespace=default name=a ")
    assert f"reconcileID={inside.reconcile['reconcileID']}" in inside.reconcile_fields
