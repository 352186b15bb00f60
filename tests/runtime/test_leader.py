"""LeaderElector against the real local API server, on fake clocks: client-go's lease protocol."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.clock import FakeClock
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.coordination_v1 import Lease, LeaseSpec
from kubeforge.runtime.leader import (
    JITTER_FACTOR,
    LeaderElectionOptions,
    LeaderElector,
    default_identity,
)
from watch.kf_server import fresh_namespace

MICRO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
LEASE = "operator-lock"


@pytest.fixture
async def namespace(client: Client) -> str:
    return await fresh_namespace(client, "lease")


def elector(client: Client, namespace: str, identity: str, **options: Any) -> LeaderElector:
    opts = LeaderElectionOptions(LEASE, namespace=namespace, identity=identity, **options)
    return LeaderElector(client, opts, clock=FakeClock())


def clock_of(candidate: LeaderElector) -> FakeClock:
    clock = candidate._clock
    assert isinstance(clock, FakeClock)
    return clock


async def spec(client: Client, namespace: str) -> LeaseSpec:
    lease = await client.api(Lease, namespace=namespace).get(LEASE)
    assert lease.spec is not None
    return lease.spec


async def finish(task: asyncio.Task[Any], clock: FakeClock) -> float:
    """Step ``clock`` from sleep to sleep until ``task`` ends; the clock's time then."""
    while not task.done():
        sleeping = asyncio.ensure_future(clock.wait_for_sleepers(1))
        await asyncio.wait({task, sleeping}, return_when=asyncio.FIRST_COMPLETED)
        sleeping.cancel()
        if not task.done() and clock.next_deadline is not None:
            clock.advance(clock.next_deadline - clock.now())
    await task
    return clock.now()


def test_the_defaults_are_controller_runtimes() -> None:
    options = LeaderElectionOptions("my-operator")
    assert (options.lease_duration, options.renew_deadline, options.retry_period) == (15, 10, 2)
    assert JITTER_FACTOR == 1.2
    assert options.namespace is None and options.identity is None
    host, _, uid = default_identity().rpartition("_")
    assert host == socket.gethostname()
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", uid)
    assert default_identity() != default_identity()


@pytest.mark.parametrize(
    ("timings", "complaint"),
    [
        ({"lease_duration": 10, "renew_deadline": 10}, "longer than the renew deadline"),
        ({"renew_deadline": 2.4, "retry_period": 2}, "1.2 x the retry period"),
        ({"lease_duration": 0.5, "renew_deadline": 0.3, "retry_period": 0.1}, "whole seconds"),
        ({"retry_period": 0}, "positive"),
    ],
)
def test_timings_client_go_would_reject_are_rejected(timings: dict[str, float], complaint: str):
    with pytest.raises(ValueError, match=complaint):
        LeaderElectionOptions("lock", **timings)


async def test_a_missing_lease_is_created_with_this_holder_and_microtime_stamps(client, namespace):
    alpha = elector(client, namespace, "alpha")
    await alpha.acquire()
    assert alpha.is_leader
    got = await spec(client, namespace)
    assert (got.holder_identity, got.lease_duration_seconds, got.lease_transitions) == (
        "alpha",
        15,
        0,
    )
    assert got.acquire_time is not None and MICRO_TIME.fullmatch(got.acquire_time)
    assert got.renew_time == got.acquire_time


async def test_renewing_keeps_the_acquire_time_and_moves_the_renew_time(client, namespace):
    alpha = elector(client, namespace, "alpha")
    await alpha.acquire()
    first = await spec(client, namespace)
    await asyncio.sleep(0.002)  # the stamps are wall-clock microseconds
    assert await alpha.try_acquire_or_renew()
    second = await spec(client, namespace)
    assert second.acquire_time == first.acquire_time
    assert second.renew_time is not None and first.renew_time is not None
    assert second.renew_time > first.renew_time
    assert second.lease_transitions == 0


async def test_a_held_lease_is_taken_over_only_after_it_went_unchanged_for_its_duration(
    client, namespace
):
    alpha, beta = elector(client, namespace, "alpha"), elector(client, namespace, "beta")
    await alpha.acquire()
    assert not await beta.try_acquire_or_renew()  # beta starts its observation now
    clock_of(beta).advance(14.9)
    assert not await beta.try_acquire_or_renew()
    clock_of(beta).advance(0.2)
    assert await beta.try_acquire_or_renew()
    got = await spec(client, namespace)
    assert (got.holder_identity, got.lease_transitions) == ("beta", 1)


async def test_an_old_renew_time_in_the_lease_does_not_shorten_the_wait(client, namespace):
    # Another machine's clock may be far off: only the local observation counts.
    stale = "2001-01-01T00:00:00.000000Z"
    lease = Lease(
        metadata=ObjectMeta(name=LEASE, namespace=namespace),
        spec=LeaseSpec(
            holder_identity="elsewhere",
            lease_duration_seconds=15,
            acquire_time=stale,
            renew_time=stale,
            lease_transitions=4,
        ),
    )
    await client.api(Lease, namespace=namespace).create(lease)
    beta = elector(client, namespace, "beta")
    assert not await beta.try_acquire_or_renew()
    clock_of(beta).advance(14.9)
    assert not await beta.try_acquire_or_renew()
    clock_of(beta).advance(0.2)
    assert await beta.try_acquire_or_renew()
    assert (await spec(client, namespace)).lease_transitions == 5


async def test_a_renewal_the_candidate_sees_restarts_its_wait(client, namespace):
    alpha, beta = elector(client, namespace, "alpha"), elector(client, namespace, "beta")
    await alpha.acquire()
    assert not await beta.try_acquire_or_renew()
    clock_of(beta).advance(10)
    assert await alpha.try_acquire_or_renew()  # the leader renews
    assert not await beta.try_acquire_or_renew()  # beta sees the change: wait anew
    clock_of(beta).advance(10)
    assert not await beta.try_acquire_or_renew()
    clock_of(beta).advance(5.1)
    assert await beta.try_acquire_or_renew()


class _ReadThenYield:
    """The lease API, but a competitor writes between this candidate's read and write."""

    def __init__(self, api: Any, competitor: Callable[[], Awaitable[Any]]) -> None:
        self._api = api
        self._competitor = competitor

    async def get(self, name: str) -> Lease:
        lease = await self._api.get(name)
        await self._competitor()
        return lease  # now stale

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)


async def test_a_write_over_a_lease_changed_since_it_was_read_is_a_lost_race(
    client, namespace, caplog
):
    caplog.set_level(logging.INFO, "kubeforge.runtime.leader")
    gamma = elector(client, namespace, "gamma")
    await gamma.acquire()
    await gamma.release()  # free, so both others would take it
    alpha, beta = elector(client, namespace, "alpha"), elector(client, namespace, "beta")
    alpha._api = _ReadThenYield(alpha._api, beta.try_acquire_or_renew)  # type: ignore[assignment]
    assert not await alpha.try_acquire_or_renew()  # its write carried a stale resourceVersion
    assert "lost the race" in caplog.text  # the server's 409
    assert beta.is_leader is False  # try_acquire_or_renew alone never flips is_leader
    assert (await spec(client, namespace)).holder_identity == "beta"


async def test_release_hands_the_lease_over_at_once(client, namespace):
    alpha, beta = elector(client, namespace, "alpha"), elector(client, namespace, "beta")
    await alpha.acquire()
    assert not await beta.try_acquire_or_renew()
    assert await alpha.release()
    assert not alpha.is_leader
    got = await spec(client, namespace)
    assert (got.holder_identity, got.lease_duration_seconds, got.lease_transitions) == ("", 1, 0)
    assert got.renew_time is not None and MICRO_TIME.fullmatch(got.renew_time)
    assert await beta.try_acquire_or_renew()  # no waiting: nobody holds it
    assert (await spec(client, namespace)).lease_transitions == 1
    assert not await alpha.release()  # nothing to release any more


async def test_a_candidate_retries_with_jitter_and_never_sleeps_past_the_expiry(client, namespace):
    alpha, beta = elector(client, namespace, "alpha"), elector(client, namespace, "beta")
    await alpha.acquire()
    clock = clock_of(beta)
    acquiring = asyncio.create_task(beta.acquire())
    waits = []
    while not acquiring.done():
        sleeping = asyncio.ensure_future(clock.wait_for_sleepers(1))
        await asyncio.wait({acquiring, sleeping}, return_when=asyncio.FIRST_COMPLETED)
        sleeping.cancel()
        if clock.next_deadline is not None and not acquiring.done():
            waits.append(clock.next_deadline - clock.now())
            clock.advance(waits[-1])
    await acquiring
    assert beta.is_leader
    *retries, last = waits
    assert retries and all(2.0 <= wait <= 2.0 * (1 + JITTER_FACTOR) for wait in retries)
    assert last <= 2.0 * (1 + JITTER_FACTOR)
    assert 15.0 <= clock.now() <= 15.01  # taken over as soon as the lease expired


async def test_a_leader_that_cannot_renew_within_the_deadline_stops_leading(
    kube_apiserver_factory,
):
    server = kube_apiserver_factory()
    changes: list[bool] = []
    async with Client(load_config(server.kubeconfig)) as client:
        options = LeaderElectionOptions(LEASE, namespace="default", identity="alpha")
        clock = FakeClock()
        alpha = LeaderElector(client, options, clock=clock, on_change=changes.append)
        await alpha.acquire()
        server.kill()
        started = clock.now()
        lost_at = await finish(asyncio.create_task(alpha.hold()), clock)
    assert changes == [True, False]
    assert not alpha.is_leader
    # Gave up after the renew deadline, and before the lease could expire for others.
    assert 10.0 <= lost_at - started < 15.0
