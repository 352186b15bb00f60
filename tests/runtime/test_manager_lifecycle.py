"""Manager lifecycle without a server: sync timeout, stop during startup, signals, names."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from kubeforge.cache import CacheSyncTimeout
from kubeforge.config import ClientConfig
from kubeforge.controller import Builder
from kubeforge.core.clock import FakeClock
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.reconcile import Request
from kubeforge.runtime import Manager, ManagerOptions

# Nothing listens on port 1: every list fails with a refused connection.
UNREACHABLE = ClientConfig(server="http://127.0.0.1:1")


async def noop(request: Request) -> None:
    return None


async def test_caches_that_never_sync_fail_the_run_after_the_sync_timeout():
    clock = FakeClock()
    mgr = Manager(UNREACHABLE, options=ManagerOptions(cache_sync_timeout=60), clock=clock)
    Builder(mgr).for_(ConfigMap).complete(noop)
    running = asyncio.ensure_future(mgr.run())
    await clock.wait_for_sleepers(2)  # the sync timeout and the failed list's backoff
    clock.advance(60)
    with pytest.raises(CacheSyncTimeout, match="configmaps"):
        await running
    assert not mgr.cache.informers[0].running
    assert mgr.client._closed


async def test_stop_during_startup_ends_the_run_without_waiting_for_the_caches():
    clock = FakeClock()
    mgr = Manager(UNREACHABLE, clock=clock)
    mgr.cache.store(ConfigMap)
    running = asyncio.ensure_future(mgr.run())
    await clock.wait_for_sleepers(1)
    mgr.stop()
    await running
    assert not mgr.cache.informers[0].running


async def test_a_manager_runs_only_once():
    mgr = Manager(UNREACHABLE)
    mgr.stop()
    await mgr.run()
    with pytest.raises(RuntimeError, match="once"):
        await mgr.run()


def test_controller_names_must_be_unique():
    mgr = Manager(UNREACHABLE)
    Builder(mgr).for_(ConfigMap).complete(noop)
    with pytest.raises(ValueError, match="configmap"):
        Builder(mgr).for_(ConfigMap).complete(noop)
    Builder(mgr).named("another").for_(ConfigMap).complete(noop)
    assert [c.name for c in mgr.controllers] == ["configmap", "another"]


async def test_sigterm_stops_a_manager_run_until_signal_and_the_handlers_are_removed():
    mgr = Manager(UNREACHABLE)
    running = asyncio.ensure_future(mgr.run_until_signal())
    for _ in range(10_000):
        if mgr.started:
            break
        await asyncio.sleep(0)
    assert mgr.started  # the handlers are installed before the run starts anything
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(running, 10)
    loop = asyncio.get_running_loop()
    assert not loop.remove_signal_handler(signal.SIGTERM)  # already removed
