"""Runs a process's controllers: ``Manager``.

One ``Client``, one shared cache (``InformerFactory``) and the controllers built
on them, started and stopped in the right order (controller-runtime's manager).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from dataclasses import dataclass
from typing import Any, Protocol

from kubeforge.cache.factory import InformerFactory
from kubeforge.client import Client
from kubeforge.config import ClientConfig
from kubeforge.controller.controller import Controller
from kubeforge.core.clock import Clock, MonotonicClock

__all__ = ["Manager", "ManagerOptions", "Runnable"]

log = logging.getLogger("kubeforge.runtime")


@dataclass(frozen=True, slots=True)
class ManagerOptions:
    """How a manager runs; every field has a default."""

    cache_sync_timeout: float = 120.0
    """Seconds to wait for every cache's first list before giving up with
    ``CacheSyncTimeout``. Defaults to 2 minutes (controller-runtime's ``CacheSyncTimeout``)."""

    graceful_shutdown_timeout: float = 30.0
    """Seconds running reconciles get to finish on shutdown before they are
    cancelled. Defaults to 30 s (controller-runtime's ``GracefulShutdownTimeout``)."""

    resync_period: float | None = None
    """Default resync period of every informer: each handler re-sees every cached
    object this often. Defaults to ``None`` (never): a relist or event drives work."""


class Runnable(Protocol):
    """Something the manager starts after the caches synced and stops before them."""

    async def start(self) -> None:
        """Begin running in the background; return once started."""
        ...

    async def stop(self, grace_period: float | None = 30.0) -> None:
        """Finish within ``grace_period`` seconds and return once stopped."""
        ...


class Manager:
    """Owns the client, the shared caches and the controllers of one process.

    ``run()`` starts every informer, waits for all of them to sync
    (``CacheSyncTimeout`` after ``options.cache_sync_timeout``), starts the
    controllers, and runs until ``stop()``. Shutdown then goes in order:
    controllers (running reconciles get ``graceful_shutdown_timeout``), then
    informers, then the client. ``run_until_signal()`` does the same and turns
    SIGINT/SIGTERM into ``stop()``.

    Example::

        mgr = Manager(load_config())
        pods = mgr.cache.store(Pod)
        Builder(mgr).for_(Pod).complete(reconcile)
        await mgr.run_until_signal()
    """

    def __init__(
        self,
        config: ClientConfig,
        *,
        options: ManagerOptions | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.options = options or ManagerOptions()
        self._clock = clock or MonotonicClock()
        self.client = Client(config)
        self.cache = InformerFactory(
            self.client, resync_period=self.options.resync_period, clock=self._clock
        )
        self._runnables: list[Runnable] = []
        self._names: set[str] = set()
        self._stop = asyncio.Event()
        self._ran = False
        self._started = False

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def started(self) -> bool:
        """True from the moment every runnable has started until shutdown begins."""
        return self._started

    @property
    def controllers(self) -> list[Controller]:
        return [r for r in self._runnables if isinstance(r, Controller)]

    def add(self, runnable: Runnable) -> None:
        """Run ``runnable`` (a ``Controller``, usually from ``Builder.complete``) with the manager.

        Controller names must be unique. Added while running, it starts at once.
        """
        if isinstance(runnable, Controller):
            if runnable.name in self._names:
                raise ValueError(f"a controller named {runnable.name!r} is already registered")
            self._names.add(runnable.name)
        self._runnables.append(runnable)
        if self._started:
            task = asyncio.get_running_loop().create_task(runnable.start())
            task.add_done_callback(self._late_start_done)

    def stop(self) -> None:
        """Ask ``run()`` to shut down and return (safe to call from handlers and signals)."""
        self._stop.set()

    async def run(self) -> None:
        """Start everything, run until ``stop()``, then shut down in order.

        Raises ``CacheSyncTimeout`` (after shutting down) if the caches do not sync.
        """
        if self._ran:
            raise RuntimeError("a manager runs once: its client is closed afterwards")
        self._ran = True
        try:
            # A stop() during startup (e.g. while caches sync) must not wait for it to end.
            startup = asyncio.ensure_future(self._start_all())
            stopped = asyncio.ensure_future(self._stop.wait())
            try:
                waiting: set[asyncio.Future[Any]] = {startup, stopped}
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if startup.done():
                    startup.result()  # raises CacheSyncTimeout and other startup failures
                    await stopped
            finally:
                pending = {f for f in (startup, stopped) if not f.done()}
                for future in pending:
                    future.cancel()
                if pending:
                    await asyncio.wait(pending)
                if startup.done() and not startup.cancelled():
                    startup.exception()  # retrieved: raised above or superseded by stop()
        finally:
            await self._shut_down()

    async def _start_all(self) -> None:
        self.cache.start()
        await self.cache.wait_for_sync(self.options.cache_sync_timeout)
        await asyncio.gather(*(runnable.start() for runnable in self._runnables))
        self._started = True
        log.info("manager: started %d runnable(s)", len(self._runnables))

    async def run_until_signal(self) -> None:
        """``run()``, with SIGINT/SIGTERM asking for a graceful stop.

        A second signal exits the process at once, as controller-runtime does.
        """
        loop = asyncio.get_running_loop()
        signals = (signal.SIGINT, signal.SIGTERM)

        def on_signal(signum: int) -> None:
            if self._stop.is_set():
                log.warning("manager: second %s; exiting now", signal.Signals(signum).name)
                os._exit(1)
            log.info("manager: %s received; shutting down", signal.Signals(signum).name)
            self.stop()

        for signum in signals:
            loop.add_signal_handler(signum, on_signal, signum)
        try:
            await self.run()
        finally:
            for signum in signals:
                loop.remove_signal_handler(signum)

    async def _shut_down(self) -> None:
        self._started = False
        grace = self.options.graceful_shutdown_timeout
        try:
            await asyncio.gather(*(runnable.stop(grace) for runnable in self._runnables))
            await self.cache.stop()
        finally:
            await self.client.close()
            log.info("manager: stopped")

    def _late_start_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("manager: a runnable added late failed to start", exc_info=task.exception())
            self.stop()
