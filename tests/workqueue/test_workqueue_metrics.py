"""Queue metrics: what each queue transition reports through ``MetricsProvider``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from kubeforge.core.clock import FakeClock
from kubeforge.workqueue import (
    NoopMetricsProvider,
    RateLimitingQueue,
    WorkQueue,
    default_item_based_rate_limiter,
)
from kubeforge.workqueue.metrics import DURATION_BUCKETS

Settle = Callable[[], Awaitable[None]]


@dataclass
class _Metric:
    """Records every call, in the shape of all four metric protocols at once."""

    value: float = 0.0
    observations: list[float] = field(default_factory=list)

    def inc(self) -> None:
        self.value += 1

    def dec(self) -> None:
        self.value -= 1

    def set(self, value: float) -> None:
        self.value = value

    def observe(self, value: float) -> None:
        self.observations.append(value)


@dataclass
class _RecordingProvider:
    names: list[str] = field(default_factory=list)
    depth: _Metric = field(default_factory=_Metric)
    adds: _Metric = field(default_factory=_Metric)
    latency: _Metric = field(default_factory=_Metric)
    work_duration: _Metric = field(default_factory=_Metric)
    unfinished: _Metric = field(default_factory=_Metric)
    longest: _Metric = field(default_factory=_Metric)
    retries: _Metric = field(default_factory=_Metric)

    def new_depth_metric(self, name: str) -> _Metric:
        self.names.append(name)
        return self.depth

    def new_adds_metric(self, name: str) -> _Metric:
        return self.adds

    def new_latency_metric(self, name: str) -> _Metric:
        return self.latency

    def new_work_duration_metric(self, name: str) -> _Metric:
        return self.work_duration

    def new_unfinished_work_seconds_metric(self, name: str) -> _Metric:
        return self.unfinished

    def new_longest_running_processor_seconds_metric(self, name: str) -> _Metric:
        return self.longest

    def new_retries_metric(self, name: str) -> _Metric:
        return self.retries


@pytest.fixture
def provider() -> _RecordingProvider:
    return _RecordingProvider()


async def test_adds_count_only_keys_that_were_not_merged(
    clock: FakeClock, provider: _RecordingProvider
) -> None:
    queue: WorkQueue[str] = WorkQueue(name="podtoip", clock=clock, metrics=provider)
    queue.add("a")
    queue.add("a")
    queue.add("b")
    assert provider.adds.value == 2
    assert provider.depth.value == 2
    await queue.get()
    queue.add("a")  # in flight: becomes dirty again, which counts
    queue.add("a")  # already dirty: merged
    assert provider.adds.value == 3
    assert provider.depth.value == 2
    queue.shut_down()


async def test_queue_latency_runs_from_the_first_add_of_a_dirty_period(
    clock: FakeClock, provider: _RecordingProvider
) -> None:
    queue: WorkQueue[str] = WorkQueue(name="podtoip", clock=clock, metrics=provider)
    queue.add("a")
    clock.advance(1.0)
    queue.add("a")  # merged: does not restart the clock
    clock.advance(1.0)
    await queue.get()
    assert provider.latency.observations == [2.0]
    assert provider.depth.value == 0
    queue.shut_down()


async def test_work_duration_runs_from_get_to_done(
    clock: FakeClock, provider: _RecordingProvider
) -> None:
    queue: WorkQueue[str] = WorkQueue(name="podtoip", clock=clock, metrics=provider)
    queue.add("a")
    await queue.get()
    clock.advance(3.0)
    queue.done("a")
    queue.done("a")  # a stray done() observes nothing
    assert provider.work_duration.observations == [3.0]
    queue.shut_down()


async def test_in_flight_gauges_are_refreshed_every_half_second(
    clock: FakeClock, provider: _RecordingProvider, settle: Settle
) -> None:
    queue: WorkQueue[str] = WorkQueue(name="podtoip", clock=clock, metrics=provider)
    queue.add("a")
    queue.add("b")
    await queue.get()
    await clock.wait_for_sleepers(1)
    clock.advance(1.0)
    await queue.get()
    await settle()
    assert (provider.unfinished.value, provider.longest.value) == (1.0, 1.0)
    clock.advance(0.5)
    await settle()
    assert (provider.unfinished.value, provider.longest.value) == (2.0, 1.5)
    queue.done("a")
    queue.done("b")
    clock.advance(0.5)
    await settle()
    assert (provider.unfinished.value, provider.longest.value) == (0.0, 0.0)
    queue.shut_down()
    await settle()
    assert clock.sleepers == 0  # the refresher stops with the queue


async def test_retries_count_every_delayed_or_rate_limited_add(
    clock: FakeClock, provider: _RecordingProvider
) -> None:
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        default_item_based_rate_limiter(), name="podtoip", clock=clock, metrics=provider
    )
    queue.add_rate_limited("a")
    queue.add_after("b", 1.0)
    queue.add_after("c", 0)
    queue.add("d")
    assert provider.retries.value == 3
    queue.shut_down()
    queue.add_rate_limited("a")
    assert provider.retries.value == 3


def test_a_queue_without_a_name_is_not_instrumented(provider: _RecordingProvider) -> None:
    queue: WorkQueue[str] = WorkQueue(metrics=provider)
    queue.add("a")
    assert provider.names == []
    assert provider.adds.value == 0


def test_the_provider_is_asked_for_metrics_under_the_queues_name(
    provider: _RecordingProvider,
) -> None:
    WorkQueue[str](name="podtoip", metrics=provider)
    assert provider.names == ["podtoip"]


async def test_the_noop_provider_accepts_a_named_queues_traffic(
    clock: FakeClock, settle: Settle
) -> None:
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        name="podtoip", clock=clock, metrics=NoopMetricsProvider()
    )
    queue.add_rate_limited("a")
    queue.add("b")
    assert await queue.get() == "b"
    queue.done("b")
    await settle()
    assert clock.sleepers == 1  # only the delaying timer: no refresher for no-op metrics
    queue.shut_down()


def test_duration_buckets_span_ten_nanoseconds_to_a_thousand_seconds() -> None:
    assert len(DURATION_BUCKETS) == 12
    assert DURATION_BUCKETS[0] == pytest.approx(1e-8)
    assert DURATION_BUCKETS[-1] == pytest.approx(1e3)
