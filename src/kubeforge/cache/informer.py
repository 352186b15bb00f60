"""A watched, cached resource that calls handlers on every change. See ``Informer``.

``Informer`` = ``watcher()`` + ``Writer`` + handler fan-out + periodic resync:
client-go's shared informer without the DeltaFIFO, because the watcher's
explicit ``Init``/``InitDone`` boundary lets the store diff a relist directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from kubeforge.cache.indexers import IndexFunc
from kubeforge.cache.store import Change, Store, Transform, Writer
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.errors import KubeforgeError
from kubeforge.watch.backoff import Backoff
from kubeforge.watch.events import T
from kubeforge.watch.watcher import ListWatch, WatcherConfig, watcher

__all__ = ["CacheSyncTimeout", "HandlerRegistration", "Informer", "wait_for_sync"]

log = logging.getLogger("kubeforge.cache")

# client-go's minimumResyncPeriod: shorter periods would turn resync into a busy loop.
_MIN_RESYNC = 1.0


class CacheSyncTimeout(KubeforgeError, TimeoutError):
    """Caches did not finish their first list in time; names the ones still waiting."""


@dataclass(eq=False, kw_only=True)
class HandlerRegistration(Generic[T]):
    """One registered set of handlers; pass it to ``Informer.remove_handler``."""

    on_add: Callable[[T], None] | None
    on_update: Callable[[T, T], None] | None
    on_delete: Callable[[T], None] | None
    on_missed_delete: Callable[[T], None] | None
    resync_period: float | None
    old_state: bool = True
    """False: ``on_update`` gets the new object twice (see ``Informer.add_handler``)."""
    next_resync: float | None = field(default=None, repr=False)


class Informer(Generic[T]):
    """Keeps ``store`` equal to the server's state and tells handlers what changed.

    **Guarantees** (client-go's ``SharedInformer`` contract)

    - The store is updated first, then handlers run, one event at a time, in the
      order the watcher saw them; each handler gets its own copy of each object (one
      registered with ``old_state=False`` gets the new object for both sides of an update).
    - A relist reports, after swapping the store: ``on_add`` for new objects,
      ``on_update`` for every object still present (changed or not, as client-go's
      ``Replaced`` deltas), then ``on_missed_delete`` (``on_delete`` if not given)
      for objects that vanished meanwhile, with their last *cached* state: its final
      state is unknown (client-go's ``DeletedFinalStateUnknown`` tombstone).
    - A handler added after objects are cached first gets ``on_add`` for each.
    - Every ``resync_period`` seconds a handler gets ``on_update(obj, obj)`` (the
      same object twice) for every cached object; periods under 1 s are raised to 1 s.
    - A handler that raises is logged; the informer and other handlers go on.
    - ``transform`` runs on every object from the server before it is cached or
      handed to a handler (e.g. ``drop_managed_fields``).

    **Assumptions**: handlers are quick and do not block (they run on the event
    loop; enqueue a key and return). They must not await anything.
    """

    def __init__(
        self,
        api: ListWatch[T],
        config: WatcherConfig | None = None,
        *,
        resync_period: float | None = None,
        indexers: Mapping[str, IndexFunc] | None = None,
        transform: Transform | None = None,
        clock: Clock | None = None,
        backoff: Backoff | None = None,
        name: str | None = None,
    ) -> None:
        self.api = api
        self.config = config or WatcherConfig()
        self.resync_period = resync_period
        """Default resync period of handlers that name none; ``None``: never."""
        self.name = name or repr(api)
        self.store: Store[T] = Store(indexers)
        self._writer = Writer(self.store, transform=transform)
        self._clock = clock or MonotonicClock()
        self._backoff = backoff
        self._handlers: list[HandlerRegistration[T]] = []
        # What each change is dispatched to: a snapshot, so a handler added or removed by
        # a handler takes effect from the next change (and no copy is made per change).
        self._dispatching: tuple[HandlerRegistration[T], ...] = ()
        self._handlers_changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- handlers -------------------------------------------------------------------

    def add_handler(
        self,
        *,
        on_add: Callable[[T], None] | None = None,
        on_update: Callable[[T, T], None] | None = None,
        on_delete: Callable[[T], None] | None = None,
        on_missed_delete: Callable[[T], None] | None = None,
        resync_period: float | None = None,
        old_state: bool = True,
    ) -> HandlerRegistration[T]:
        """Register handlers; ``resync_period`` overrides the informer's default.

        ``on_missed_delete`` gets deletions a relist inferred (the watch never saw
        them) with the last cached state; it defaults to ``on_delete``.
        ``old_state=False`` is for an ``on_update`` that only reads what the object is
        now (a handler queueing its key, say): it is called with the new object in
        both places, which spares decoding a private copy of the old state per update.
        """
        period = resync_period if resync_period is not None else self.resync_period
        if period is not None and period <= 0:
            period = None
        elif period is not None:
            period = max(period, _MIN_RESYNC)
        reg = HandlerRegistration(
            on_add=on_add,
            on_update=on_update,
            on_delete=on_delete,
            on_missed_delete=on_missed_delete or on_delete,
            resync_period=period,
            old_state=old_state,
        )
        if period is not None:
            reg.next_resync = self._clock.now() + period
        # Synthetic adds first; nothing can interleave since this does not await.
        if on_add is not None:
            for data in self.store._packed():
                self._call(on_add, self.store._decode(data))
        self._handlers.append(reg)
        self._dispatching = tuple(self._handlers)
        self._handlers_changed.set()
        return reg

    def remove_handler(self, registration: HandlerRegistration[T]) -> None:
        """Stop calling ``registration``'s handlers (no error if already removed)."""
        with contextlib.suppress(ValueError):
            self._handlers.remove(registration)
        self._dispatching = tuple(self._handlers)
        self._handlers_changed.set()

    # -- lifecycle ------------------------------------------------------------------

    @property
    def has_synced(self) -> bool:
        """True once the first list has been stored and dispatched."""
        return self.store.has_synced

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def wait_for_sync(self, timeout: float | None = None) -> None:
        """Return once synced; ``CacheSyncTimeout`` after ``timeout`` seconds."""
        await wait_for_sync([self], timeout, clock=self._clock)

    def start(self) -> None:
        """Run the informer in a background task of the running loop (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self.run(), name=f"informer {self.name}"
            )
            self._task.add_done_callback(self._log_crash)

    async def stop(self) -> None:
        """Stop watching and wait for the task to end; the store keeps its contents."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            # wait() neither raises the task's CancelledError nor swallows our own.
            await asyncio.wait({task})

    async def run(self) -> None:
        """Watch and dispatch until cancelled (what ``start`` runs in a task)."""
        resync = asyncio.create_task(self._resync_loop(), name=f"resync {self.name}")
        events = watcher(self.api, self.config, clock=self._clock, backoff=self._backoff)
        try:
            async with contextlib.aclosing(events):
                async for event in events:
                    self._dispatch(self._writer.apply(event))
        finally:
            resync.cancel()
            await asyncio.wait({resync})

    # -- internals ------------------------------------------------------------------

    def _dispatch(self, changes: list[Change[T]]) -> None:
        for change in changes:
            handlers = self._dispatching  # read per change: a handler may add or remove one
            if change.is_add:
                for reg in handlers:
                    if reg.on_add is not None:
                        self._call(reg.on_add, change.new())
            elif not change.is_delete:
                for reg in handlers:
                    if reg.on_update is None:
                        continue
                    if not reg.old_state:
                        new = change.new()
                        self._call(reg.on_update, new, new)
                    else:
                        # old first: the new side may be the watcher's object, given once.
                        old = change.old()
                        self._call(reg.on_update, old, change.new())
            else:
                missed = change.final_state_unknown
                for reg in handlers:
                    on_delete = reg.on_missed_delete if missed else reg.on_delete
                    if on_delete is not None:
                        self._call(on_delete, change.old())

    def _call(self, func: Callable[..., None], *args: T | None) -> None:
        try:
            func(*args)
        except Exception:
            log.exception("informer %s: handler %r failed", self.name, func)

    async def _resync_loop(self) -> None:
        while True:
            self._handlers_changed.clear()
            dues = [reg.next_resync for reg in self._handlers if reg.next_resync is not None]
            if not dues:
                await self._handlers_changed.wait()
                continue
            # Sleep until the earliest resync, but wake up when handlers change: a new
            # one may be due sooner than what we were waiting for.
            sleep = asyncio.ensure_future(self._sleep_until(min(dues)))
            changed = asyncio.ensure_future(self._handlers_changed.wait())
            try:
                await asyncio.wait({sleep, changed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for future in (sleep, changed):
                    future.cancel()
                await asyncio.wait({sleep, changed})
            if not sleep.done() or sleep.cancelled():
                continue
            self._resync_due()

    async def _sleep_until(self, deadline: float) -> None:
        # Read the clock when the task runs, not when it was created: time may move between.
        await self._clock.sleep(deadline - self._clock.now())

    def _resync_due(self) -> None:
        now = self._clock.now()
        due = [r for r in self._handlers if r.next_resync is not None and r.next_resync <= now]
        for reg in due:
            assert reg.resync_period is not None
            reg.next_resync = now + reg.resync_period
        # Before the first list there is nothing to resync; the period still runs.
        if not self.store.has_synced:
            return
        for data in self.store._packed():
            for reg in due:
                if reg.on_update is not None and reg in self._handlers:
                    same = self.store._decode(data)
                    self._call(reg.on_update, same, same)

    def _log_crash(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("informer %s crashed", self.name, exc_info=task.exception())

    def __repr__(self) -> str:
        return f"Informer({self.name}, synced={self.has_synced})"


async def wait_for_sync(
    informers: Iterable[Informer[Any]],
    timeout: float | None = None,
    *,
    clock: Clock | None = None,
) -> None:
    """Wait until every informer has synced; ``CacheSyncTimeout`` after ``timeout`` s.

    The timeout runs on ``clock`` (so tests can move it), not on ``asyncio.timeout``.
    """
    pending = [inf for inf in informers if not inf.has_synced]
    if not pending:
        return
    waiting: set[asyncio.Future[None]] = {
        asyncio.ensure_future(inf.store.wait_until_ready()) for inf in pending
    }
    expiry: asyncio.Future[None] | None = None
    if timeout is not None:
        expiry = asyncio.ensure_future((clock or MonotonicClock()).sleep(timeout))
    try:
        while waiting and (expiry is None or not expiry.done()):
            watched = waiting if expiry is None else waiting | {expiry}
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            waiting -= done
    finally:
        leftovers = [f for f in (*waiting, expiry) if f is not None and not f.done()]
        for future in leftovers:
            future.cancel()
        if leftovers:
            await asyncio.wait(leftovers)
    if waiting:
        names = ", ".join(i.name for i in pending if not i.has_synced)
        raise CacheSyncTimeout(f"timed out after {timeout:g} s waiting for caches to sync: {names}")
