"""Queue + N workers + the retry policy: ``Controller``.

Sources (informers plus a mapper) feed keys into a ``RateLimitingQueue``;
``max_concurrent_reconciles`` workers take keys out and call the reconciler;
``_handle_outcome`` is the one place deciding what happens next
(controller-runtime's ``reconcileHandler``).

Each reconcile runs with a ``ReconcileContext`` (controller, key, reconcile ID) in a
context variable, so every log line written during it, the reconciler's own
included, can carry that context (``current_reconcile()``; the runtime's log filter
reads it). What a controller counts is reported through ``ControllerMetricsProvider``,
a protocol the runtime implements with Prometheus, so this layer never imports a
metrics library.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from kubeforge.cache.informer import HandlerRegistration, Informer, wait_for_sync
from kubeforge.controller.blueprint import Blueprint
from kubeforge.controller.handler import EnqueueHandler, Mapper, enqueue_object
from kubeforge.controller.predicate import Predicate
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.errors import KubeforgeError
from kubeforge.reconcile import Reconciler, Request, Result, TerminalError
from kubeforge.workqueue import MetricsProvider, RateLimiter, RateLimitingQueue, ShutDown

__all__ = [
    "RECONCILE_OUTCOMES",
    "Controller",
    "ControllerMetricsProvider",
    "ControllerOptions",
    "ReconcileContext",
    "ReconcileMetrics",
    "ReconcileOutcome",
    "current_reconcile",
]

log = logging.getLogger("kubeforge.controller")

ReconcileOutcome: TypeAlias = Literal["success", "error", "requeue", "requeue_after"]
"""The ``result`` label of ``controller_runtime_reconcile_total``."""

RECONCILE_OUTCOMES: tuple[ReconcileOutcome, ...] = ("success", "error", "requeue", "requeue_after")


@dataclass(frozen=True, slots=True)
class ReconcileContext:
    """Which reconcile is running: set for the duration of each reconciler call."""

    controller: str
    namespace: str
    name: str
    reconcile_id: str
    """A fresh UUID per reconcile (controller-runtime's ``reconcileID``)."""


# RFC 4122 version 4: the version nibble is 4 and the variant's two top bits are 10.
_UUID4_MASK = ~((0xF << 76) | (0x3 << 62)) & ((1 << 128) - 1)
_UUID4_BITS = (0x4 << 76) | (0x2 << 62)
# A private generator, seeded from the OS: a program that seeds ``random`` for its own
# reasons must not make every run hand out the same IDs.
_getrandbits = random.Random().getrandbits

_current: contextvars.ContextVar[ReconcileContext | None] = contextvars.ContextVar(
    "kubeforge_reconcile", default=None
)


def _new_reconcile_id() -> str:
    """A random (version 4) UUID in its text form, as ``str(uuid.uuid4())`` gives.

    A reconcile ID only has to be unique, not unpredictable: drawing it from
    ``random`` and formatting it directly costs a fifth of ``uuid.uuid4()``'s
    ``os.urandom`` call and ``UUID`` object, once per reconcile.
    """
    bits = _getrandbits(128) & _UUID4_MASK | _UUID4_BITS
    text = f"{bits:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def current_reconcile() -> ReconcileContext | None:
    """The reconcile the calling code runs in (tasks it spawns inherit it), else ``None``."""
    return _current.get()


class ReconcileMetrics(Protocol):
    """What one controller reports (controller-runtime's ``controller_runtime_*`` metrics)."""

    def started(self, max_concurrent_reconciles: int) -> None:
        """The workers start: set the worker count and show every counter at 0."""
        ...

    def active_workers(self, delta: int) -> None:
        """A worker took a key (+1) or finished with it (-1)."""
        ...

    def reconciled(self, outcome: ReconcileOutcome, seconds: float) -> None:
        """One reconciler call ended with ``outcome`` after ``seconds``."""
        ...

    def failed(self, *, terminal: bool, panic: bool) -> None:
        """The call raised: ``terminal`` for ``TerminalError``, ``panic`` for a bug."""
        ...


class ControllerMetricsProvider(Protocol):
    """Makes the metric objects of each controller and of its work queue."""

    @property
    def queue_metrics(self) -> MetricsProvider: ...

    def reconcile_metrics(self, controller: str) -> ReconcileMetrics: ...


@dataclass(frozen=True, slots=True)
class ControllerOptions:
    """How a controller runs; every field has a default."""

    max_concurrent_reconciles: int = 1
    """Workers sharing the queue. Defaults to 1, as in controller-runtime. Different
    keys run in parallel; one key never runs twice at once whatever the count."""

    cache_sync_timeout: float = 120.0
    """Seconds to wait for the sources' caches before failing to start. Defaults to
    2 minutes (controller-runtime's ``CacheSyncTimeout``)."""

    rate_limiter: RateLimiter[Request] | None = None
    """Per-key retry delays. Defaults to client-go's controller limiter: 5 ms doubling
    to 1000 s per key, and 10 retries/s (burst 100) overall."""


@dataclass(frozen=True, slots=True)
class _Source:
    informer: Informer[Any]
    mapper: Mapper
    predicates: tuple[Predicate, ...]


class Controller:
    """Runs ``reconciler`` for every key its sources queue.

    **Guarantees**

    - A key is never reconciled by two workers at once; keys queued while it runs
      are merged into one more run afterwards (the workqueue's dirty/processing rule).
    - Workers start only after every source's cache has synced.
    - Outcome policy (controller-runtime's): an exception re-queues the key with
      its rate-limited backoff; ``TerminalError`` is logged and not re-queued;
      ``Result(requeue_after=s)`` forgets the backoff and re-queues after ``s``;
      ``Result(requeue=True)`` re-queues with backoff; anything else forgets the
      backoff. A failing reconciler never stops a worker.
    - Every reconcile is counted (``ReconcileMetrics``) once, with its outcome and
      duration. An exception that is not a ``KubeforgeError`` counts as a *panic*
      too: Python has no separate panic path, so an error the reconciler did not
      mean to raise (``KeyError``, ``AttributeError``, ...) plays Go's recovered
      panic, while kubeforge's own errors (API errors, ``TerminalError``) play a
      returned ``error``.
    - ``stop`` hands out no new keys, lets running reconciles finish within the
      grace period, then cancels what is left.
    """

    def __init__(
        self,
        name: str,
        reconciler: Reconciler,
        *,
        options: ControllerOptions | None = None,
        clock: Clock | None = None,
        metrics: ControllerMetricsProvider | None = None,
    ) -> None:
        self.name = name
        self.reconciler = reconciler
        self.options = options or ControllerOptions()
        if self.options.max_concurrent_reconciles < 1:
            raise ValueError("max_concurrent_reconciles must be at least 1")
        self._clock = clock or MonotonicClock()
        self._metrics: ReconcileMetrics | None = None
        self.queue: RateLimitingQueue[Request] = RateLimitingQueue(
            self.options.rate_limiter, name=name, clock=self._clock
        )
        self._sources: list[_Source] = []
        self._registrations: list[tuple[Informer[Any], HandlerRegistration[Any]]] = []
        self._workers: list[asyncio.Task[None]] = []
        self._started = False
        self._stopping = False
        self.blueprint: Blueprint | None = None
        """What ``Builder`` built it with (``None`` for a controller made by hand)."""
        if metrics is not None:
            self.use_metrics(metrics)

    def watch(
        self,
        informer: Informer[Any],
        mapper: Mapper = enqueue_object,
        *,
        predicates: Sequence[Predicate] = (),
    ) -> None:
        """Queue ``mapper(obj)`` for every event of ``informer`` that passes ``predicates``."""
        if self._started:
            raise RuntimeError(f"controller {self.name}: add watches before start()")
        self._sources.append(_Source(informer, mapper, tuple(predicates)))

    @property
    def informers(self) -> list[Informer[Any]]:
        return [source.informer for source in self._sources]

    def need_leader_election(self) -> bool:
        """Controllers run only while their process leads (when leader election is on)."""
        return True

    @property
    def instrumented(self) -> bool:
        """True once the controller reports metrics (``use_metrics``)."""
        return self._metrics is not None

    def use_metrics(self, metrics: ControllerMetricsProvider) -> None:
        """Report reconciles and queue activity to ``metrics`` (a manager does this on ``add``).

        Raises ``RuntimeError`` once started or once keys are queued: the queue is
        rebuilt with the metrics, and keys in the old one would be lost.
        """
        if self._started:
            raise RuntimeError(f"controller {self.name}: attach metrics before start()")
        old = self.queue
        if len(old) or old.waiting:
            raise RuntimeError(f"controller {self.name}: attach metrics before queueing keys")
        # Reuse the limiter: a default one built by the old queue must not be doubled.
        self.queue = RateLimitingQueue(
            old.rate_limiter, name=self.name, clock=self._clock, metrics=metrics.queue_metrics
        )
        self._metrics = metrics.reconcile_metrics(self.name)

    async def start(self) -> None:
        """Connect the sources, wait for their caches, then start the workers."""
        if self._started:
            raise RuntimeError(f"controller {self.name} was already started")
        self._started = True
        if self._metrics is not None:
            self._metrics.started(self.options.max_concurrent_reconciles)
        for source in self._sources:
            handler = EnqueueHandler(source.mapper, self.queue.add, source.predicates)
            registration = source.informer.add_handler(
                on_add=handler.on_add,
                on_update=handler.on_update,
                on_delete=handler.on_delete,
                old_state=handler.reads_old_state,
            )
            self._registrations.append((source.informer, registration))
        for informer in self.informers:
            informer.start()  # no-op for informers the manager already runs
        await wait_for_sync(self.informers, self.options.cache_sync_timeout, clock=self._clock)
        if self._stopping:
            return
        self._workers = [
            asyncio.create_task(self._worker(), name=f"{self.name} worker {n}")
            for n in range(self.options.max_concurrent_reconciles)
        ]
        log.info(
            "controller %s: started %d worker(s)", self.name, self.options.max_concurrent_reconciles
        )

    async def stop(self, grace_period: float | None = 30.0) -> None:
        """Stop taking keys; wait up to ``grace_period`` s for running reconciles, then cancel."""
        self._stopping = True
        for informer, registration in self._registrations:
            informer.remove_handler(registration)
        self._registrations.clear()
        self.queue.shut_down()
        workers, self._workers = self._workers, []
        if not workers:
            return
        finished = asyncio.ensure_future(asyncio.gather(*workers, return_exceptions=True))
        if grace_period is not None:
            expiry = asyncio.ensure_future(self._clock.sleep(grace_period))
            waiting: set[asyncio.Future[Any]] = {finished, expiry}
            try:
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            finally:
                expiry.cancel()
            if not finished.done():
                log.warning(
                    "controller %s: reconciles still running after %s s; cancelling",
                    self.name,
                    grace_period,
                )
                for worker in workers:
                    worker.cancel()
        await finished  # gather(return_exceptions=True): cancelled workers do not raise here
        log.info("controller %s: stopped", self.name)

    async def _worker(self) -> None:
        while True:
            try:
                request = await self.queue.get()
            except ShutDown:
                return
            metrics = self._metrics
            if metrics is not None:
                metrics.active_workers(1)
            try:
                # After stop() the queue still hands out what was queued; drop it.
                if not self._stopping:
                    await self._reconcile(request)
            finally:
                self.queue.done(request)
                if metrics is not None:
                    metrics.active_workers(-1)

    async def _reconcile(self, request: Request) -> None:
        context = ReconcileContext(self.name, request.namespace, request.name, _new_reconcile_id())
        token = _current.set(context)
        started = self._clock.now()
        try:
            outcome = await self._call_reconciler(request)
        finally:
            _current.reset(token)
        if self._metrics is not None:
            self._metrics.reconciled(outcome, self._clock.now() - started)

    async def _call_reconciler(self, request: Request) -> ReconcileOutcome:
        try:
            result = await self.reconciler(request)
        except TerminalError as err:
            log.error(
                "controller %s: reconcile %s failed terminally (not retried): %s",
                self.name,
                request,
                err,
            )
            self._failed(terminal=True, panic=False)
            return "error"
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this worker is being cancelled: let it end
            log.error("controller %s: reconcile %s was cancelled", self.name, request)
            self._failed(terminal=False, panic=False)
            self.queue.add_rate_limited(request)
            return "error"
        except Exception as err:
            log.exception("controller %s: reconcile %s failed", self.name, request)
            self._failed(terminal=False, panic=not isinstance(err, KubeforgeError))
            self.queue.add_rate_limited(request)
            return "error"
        return self._handle_outcome(request, result)

    def _failed(self, *, terminal: bool, panic: bool) -> None:
        if self._metrics is not None:
            self._metrics.failed(terminal=terminal, panic=panic)

    def _handle_outcome(self, request: Request, result: Result | None) -> ReconcileOutcome:
        if result is not None and result.requeue_after is not None and result.requeue_after > 0:
            self.queue.forget(request)
            self.queue.add_after(request, result.requeue_after)
            return "requeue_after"
        if result is not None and result.requeue:
            self.queue.add_rate_limited(request)
            return "requeue"
        self.queue.forget(request)
        return "success"

    def __repr__(self) -> str:
        return f"Controller({self.name!r}, workers={len(self._workers)})"
