"""Runs a process's controllers: ``Manager``.

One ``Client``, one shared cache (``InformerFactory``) and the controllers built
on them, plus what a controller process needs around them: Prometheus metrics
(``ManagerMetrics``, served on ``/metrics``), health probes (``/healthz``,
``/readyz``) and leader election on a Lease, all started and stopped in
controller-runtime's order.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import TYPE_CHECKING, Any, Protocol

from kubeforge.cache.cached_client import CachedClient
from kubeforge.cache.factory import InformerFactory
from kubeforge.client import Client
from kubeforge.config import ClientConfig
from kubeforge.controller.controller import Controller
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.runtime.health import Check, HealthChecks, ping
from kubeforge.runtime.metrics import ManagerMetrics
from kubeforge.runtime.options import ManagerOptions
from kubeforge.runtime.servers import metrics_server, probe_server

if TYPE_CHECKING:
    from kubeforge.controller.events import EventRecorder
    from kubeforge.runtime.leader import LeaderElector
    from kubeforge.webhook.server import WebhookServer

__all__ = ["Manager", "Runnable"]

log = logging.getLogger("kubeforge.runtime")


class Runnable(Protocol):
    """Something the manager starts after the caches synced and stops before them.

    A runnable runs only while this process leads (when leader election is on)
    unless it has a ``need_leader_election()`` method answering ``False``;
    controllers need it.
    """

    async def start(self) -> None:
        """Begin running in the background; return once started."""
        ...

    async def stop(self, grace_period: float | None = 30.0) -> None:
        """Finish within ``grace_period`` seconds and return once stopped."""
        ...


def _needs_leader(runnable: Runnable) -> bool:
    need = getattr(runnable, "need_leader_election", None)
    return bool(need()) if callable(need) else True


class Manager:
    """Owns the client, the shared caches, the controllers and the process services.

    ``run()`` goes through controller-runtime's order: the metrics and probe
    servers, then every informer; leader election (if on) contends meanwhile.
    Once the caches synced (``CacheSyncTimeout`` after ``options.cache_sync_timeout``)
    runnables that need no leader start, and once this process leads the
    controllers start. It runs until ``stop()``, then shuts down: controllers
    (running reconciles get ``graceful_shutdown_timeout``), informers, the lease
    (released, so a standby takes over at once), the servers, the client.
    ``run_until_signal()`` does the same and turns SIGINT/SIGTERM into ``stop()``.

    If leadership is lost, running reconciles are cancelled at once (another
    replica may already lead), everything stops, and ``run()`` raises
    ``LeaderElectionLost``: the process should exit, as controller-runtime's does.

    Every reconcile, queue and API request is counted in ``metrics`` (a registry
    of this manager's own), whether or not ``/metrics`` is served.

    Example::

        mgr = Manager(load_config(), options=ManagerOptions(metrics_bind_address=":8080"))
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
        """Raises ``ValueError`` for a malformed bind address or leader-election setting."""
        self.options = options or ManagerOptions()
        self._clock = clock or MonotonicClock()
        self.metrics = ManagerMetrics()
        self.client = Client(config, observer=self.metrics)
        self.cache = InformerFactory(
            self.client,
            resync_period=self.options.resync_period,
            default_transform=self.options.default_transform,
            transforms=self.options.transforms,
            clock=self._clock,
            options=self.options.cache,
        )
        # Reads from the shared cache, writes to the server: controller-runtime's
        # mgr.GetClient(). self.client is the direct one (GetAPIReader() and more).
        self.cached_client = CachedClient(
            self.client, self.cache, sync_timeout=self.options.cache_sync_timeout
        )
        self._recorders: dict[str, EventRecorder] = {}
        self.healthz = HealthChecks("healthz")
        self.readyz = HealthChecks("readyz")
        self.healthz.add("ping", ping)
        self.readyz.add("ping", ping)
        self.readyz.add("informer-sync", self._informers_synced)
        self.metrics_server = metrics_server(self.options, self.client, self._clock, self.metrics)
        self.probe_server = probe_server(self.options, self.healthz, self.readyz)
        self.elector: LeaderElector | None = None
        election = self.options.leader_election
        if election is not None:
            from kubeforge.runtime.leader import LeaderElector  # loaded only when it elects

            name = election.lease_name
            self.elector = LeaderElector(
                self.client,
                election,
                clock=self._clock,
                on_change=lambda leading: self.metrics.set_leader(name, leading),
            )
            self.metrics.set_leader(name, False)
        self._webhook_server: WebhookServer | None = None
        self._runnables: list[Runnable] = []
        self._launched: set[int] = set()  # id() of every runnable started
        self._names: set[str] = set()
        self._stop = asyncio.Event()
        self._leading = asyncio.Event()
        self._election: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self._lost = False
        self._ran = False
        self._synced = False
        self._started = False

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def started(self) -> bool:
        """True from the moment every runnable has started until shutdown begins."""
        return self._started

    @property
    def is_leader(self) -> bool:
        """True while this process may run controllers (always, without leader election)."""
        return self.elector is None or self.elector.is_leader

    @property
    def controllers(self) -> list[Controller]:
        return [r for r in self._runnables if isinstance(r, Controller)]

    @property
    def webhook_server(self) -> WebhookServer:
        """The HTTPS server of this manager's webhooks (controller-runtime's ``GetWebhookServer``).

        Created on first use from ``options.webhook`` and checked in ``/readyz``; it
        starts before the caches (a conversion webhook may be needed to list its kind)
        and stops after them.
        """
        if self._webhook_server is None:
            # Imported here: aiohttp's server side and the webhook handlers are paid for
            # only by a process that serves webhooks.
            from kubeforge.webhook.server import WebhookServer

            self._webhook_server = WebhookServer(
                self.options.webhook, registry=self.metrics.registry
            )
            self.readyz.add("webhook", self._webhook_server.started_check)
        return self._webhook_server

    def add(self, runnable: Runnable) -> None:
        """Run ``runnable`` (a ``Controller``, usually from ``Builder.complete``) with the manager.

        Controller names must be unique; controllers report to ``metrics`` unless
        built with metrics of their own. Added while running, it starts at once
        (a controller: once this process leads).
        """
        if isinstance(runnable, Controller):
            if runnable.name in self._names:
                raise ValueError(f"a controller named {runnable.name!r} is already registered")
            self._names.add(runnable.name)
            if not runnable.instrumented:
                runnable.use_metrics(self.metrics)
        self._runnables.append(runnable)
        ready = self._started if _needs_leader(runnable) else self._synced
        if ready:
            self._launched.add(id(runnable))
            task = asyncio.get_running_loop().create_task(runnable.start())
            task.add_done_callback(self._late_start_done)

    def add_healthz_check(self, name: str, check: Check) -> None:
        """A liveness check served on ``/healthz`` (and ``/healthz/<name>``)."""
        self.healthz.add(name, check)

    def add_readyz_check(self, name: str, check: Check) -> None:
        """A readiness check served on ``/readyz`` (and ``/readyz/<name>``)."""
        self.readyz.add(name, check)

    def stop(self) -> None:
        """Ask ``run()`` to shut down and return (safe to call from handlers and signals)."""
        self._stop.set()

    async def run(self) -> None:
        """Start everything, run until ``stop()``, then shut down in order.

        Raises ``CacheSyncTimeout`` (after shutting down) if the caches do not sync,
        ``LeaderElectionLost`` if the lease could not be renewed, and ``OSError``
        if a server's address is taken.
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
        if self._failure is not None:
            raise self._failure
        if self._lost:
            assert self.elector is not None
            from kubeforge.runtime.leader import LeaderElectionLost

            raise LeaderElectionLost(
                f"leader election lost: lease {self.elector.namespace}/"
                f"{self.elector.lease_name} was not renewed in time"
            )

    async def _start_all(self) -> None:
        for server in (self.metrics_server, self.probe_server):
            if server is not None:
                await server.start()
        if self._webhook_server is not None:
            await self._webhook_server.start()
        self.cache.start()
        if self.elector is not None:
            self._election = asyncio.create_task(self._elect(self.elector), name="leader election")
        await self.cache.wait_for_sync(self.options.cache_sync_timeout)
        self._synced = True
        await self._start_group(leader=False)
        if self.elector is not None:
            await self._leading.wait()
        await self._start_group(leader=True)
        self._started = True
        log.info("manager: started %d runnable(s)", len(self._runnables))

    async def _start_group(self, *, leader: bool) -> None:
        # Loop: a runnable added while others start is picked up by the next round.
        while True:
            batch = [
                r
                for r in self._runnables
                if id(r) not in self._launched and _needs_leader(r) == leader
            ]
            if not batch:
                return
            self._launched.update(id(r) for r in batch)
            await asyncio.gather(*(runnable.start() for runnable in batch))

    async def _elect(self, elector: LeaderElector) -> None:
        try:
            await elector.acquire()
            self._leading.set()
            await elector.hold()
            self._lost = True
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a bug in election must stop the manager, not vanish
            log.exception("manager: leader election failed")
            self._failure = err
        self.stop()

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
        # After a lost lease another replica may already reconcile: no grace at all
        # (controller-runtime sets its graceful shutdown timeout to 0 then).
        grace = 0.0 if self._lost else self.options.graceful_shutdown_timeout
        try:
            await asyncio.gather(*(runnable.stop(grace) for runnable in self._runnables))
            await asyncio.gather(*(recorder.close() for recorder in self._recorders.values()))
            await self.cache.stop()
            await self._end_election()
        finally:
            if self._webhook_server is not None:
                await self._webhook_server.stop()
            for server in (self.probe_server, self.metrics_server):
                if server is not None:
                    await server.stop()
            await self.client.close()
            log.info("manager: stopped")

    async def _end_election(self) -> None:
        task, self._election = self._election, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
        elector = self.elector
        # Only now, with every controller stopped, may another replica start.
        if elector is not None and elector.is_leader and elector.options.release_on_cancel:
            await elector.release()

    def event_recorder(self, component: str) -> EventRecorder:
        """The recorder of Events from ``component`` (one per name, flushed on shutdown);
        controller-runtime's ``mgr.GetEventRecorderFor(name)``."""
        recorder = self._recorders.get(component)
        if recorder is None:
            from kubeforge.controller.events import EventRecorder  # its correlator, on demand

            recorder = EventRecorder(self.client, component, clock=self._clock)
            self._recorders[component] = recorder
        return recorder

    @property
    def event_recorders(self) -> list[EventRecorder]:
        """Every recorder handed out by ``event_recorder`` (each one needs to write Events)."""
        return list(self._recorders.values())

    def _informers_synced(self) -> None:
        pending = [informer.name for informer in self.cache.informers if not informer.has_synced]
        if pending:
            raise RuntimeError(f"caches not synced yet: {', '.join(sorted(pending))}")

    def _late_start_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("manager: a runnable added late failed to start", exc_info=task.exception())
            self.stop()
