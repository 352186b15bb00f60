"""``StorageLoop`` and ``KeyedLoop``: the skeletons of the control loops inside the server.

``StorageLoop`` wakes on storage events that matter to it (``wants``), and however many
arrive, runs one ``reconcile()`` pass later: never from inside the storage
listener, so it never writes in the middle of another write. A ``reconcile`` that is a
coroutine runs eagerly; while one waits on admission no other pass starts, and one
more runs after it if events asked for it. ``KeyedLoop`` is the per-object
loop the workload controllers, scheduler and kubelets share (see its docstring).
"""

from __future__ import annotations

import asyncio
import logging
import types
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, cast

from kubeforge.apiserver.controllers.admitting import controller_user
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.eager import run_eagerly
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.storage.journal import ResourceKey
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["ControllerLoop", "Key", "KeyMapper", "KeyedLoop", "StorageLoop", "key_of", "own_key"]

log = logging.getLogger("kubeforge.apiserver.controllers")


class StorageLoop:
    """Subclasses implement ``wants(event)`` and ``reconcile()``; ``delay`` coalesces bursts."""

    delay: float = 0.0

    def __init__(self, engine: Engine, registry: Registry) -> None:
        self._engine = engine
        self._registry = registry
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = False
        self._unsubscribe: Callable[[], None] | None = None
        self._running: asyncio.Task[None] | None = None
        self._again = False

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self._engine.storage.subscribe(self._on_event)
        self._schedule()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._running is not None:
            self._running.cancel()

    def wants(self, event: Event) -> bool:
        raise NotImplementedError

    def reconcile(self) -> Coroutine[Any, Any, None] | None:
        raise NotImplementedError

    def _on_event(self, event: Event) -> None:
        if self.wants(event):
            self._schedule()

    def _schedule(self) -> None:
        if self._pending or self._loop is None:
            return
        self._pending = True
        self._loop.call_later(self.delay, self._pass)

    def _pass(self) -> None:
        self._pending = False
        if self._running is not None:  # a pass waits on admission: one more after it
            self._again = True
            return
        outcome = self.reconcile()
        if isinstance(outcome, types.CoroutineType):
            ran = run_eagerly(cast(Coroutine[Any, Any, None], outcome))
            if isinstance(ran, asyncio.Task):
                self._running = ran
                ran.add_done_callback(self._passed)

    def _passed(self, task: asyncio.Task[None]) -> None:
        self._running = None
        if task.cancelled():
            return
        if task.exception() is not None:
            log.error("%s: pass failed", type(self).__name__, exc_info=task.exception())
        if self._again:
            self._again = False
            self._schedule()


Key = tuple[str, str]
"""``(namespace, name)`` of the object a keyed loop reconciles."""

KeyMapper = Callable[[Event], Iterable[Key]]
"""The keys one storage event of a resource concerns."""

_RETRY_CONFLICT = 0.05
_RETRY_FAILURE = 1.0


class KeyedLoop:
    """The informer-and-workqueue shape of a kube-controller-manager controller, in-process.

    Subclasses map storage events to keys (``key_mappers``: per resource heard, the keys
    one of its events concerns) and reconcile one key at a time
    (``sync``), which may ask to be called again after some seconds (its return value):
    the level-triggered loop of the real controllers, with ``requeue_after``. A key is
    queued once however many events name it; a sync that meets a conflict or a racing
    delete runs again shortly, as a real controller's rate-limited requeue does.

    ``sync`` may be a coroutine (its writes wait for admission webhooks): it runs at once
    and becomes a task only when it has to wait; meanwhile its key is not synced again
    (a workqueue hands a key to one worker at a time) but is run once it is done.
    """

    resource: ResourceKey = ("", "")
    """The kind whose objects are the keys; ``start()`` queues each existing one."""

    def __init__(self, engine: Engine, registry: Registry) -> None:
        self._engine = engine
        self._registry = registry
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timers: dict[Key, tuple[float, asyncio.TimerHandle]] = {}
        self._unsubscribe: Callable[[], None] | None = None
        self._waiting: dict[Key, asyncio.Task[float | None]] = {}
        self._dirty: dict[Key, float] = {}
        self._table: dict[ResourceKey, KeyMapper] | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        mapped = type(self)._on_event is KeyedLoop._on_event and self.watched() is not None
        listener = self._dispatch if mapped else self._on_event
        self._unsubscribe = self._engine.storage.subscribe(listener, self.watched())
        for obj in self._engine.storage.objects(self.resource):
            self.enqueue(key_of(obj))

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for _, timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in self._waiting.values():
            task.cancel()
        self._waiting.clear()

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        """Per resource this loop hears, the keys one of its events concerns. The storage
        calls the loop for these resources alone (``watched``), so what it maps and what it
        hears cannot disagree. By default: ``resource``, each object its own key."""
        return {self.resource: own_key}

    def watched(self) -> frozenset[ResourceKey] | None:
        """The resources whose events the loop reads (None: any): those of
        ``key_mappers``, unless a subclass reads events in a ``keys_for`` of its own."""
        if type(self).keys_for is not KeyedLoop.keys_for:
            return None
        return frozenset(self._mappers())

    def keys_for(self, event: Event) -> Iterable[Key]:
        """Keys an event concerns: what its resource's mapper says."""
        mapper = self._mappers().get(event.resource)
        return mapper(event) if mapper is not None else ()

    def _mappers(self) -> dict[ResourceKey, KeyMapper]:
        if self._table is None:
            self._table = self.key_mappers()
        return self._table

    def sync(self, key: Key) -> float | Coroutine[Any, Any, float | None] | None:
        """Reconcile ``key``; return seconds after which to look again, or None (or a
        coroutine giving that)."""
        raise NotImplementedError

    def enqueue(self, key: Key, delay: float = 0.0) -> None:
        """Reconcile ``key`` after ``delay`` seconds, or sooner if already due sooner."""
        if self._loop is None:
            return
        due = self._loop.time() + max(delay, 0.0)
        queued = self._timers.get(key)
        if queued is not None:
            if queued[0] <= due:
                return
            queued[1].cancel()
        self._timers[key] = (due, self._loop.call_at(due, self._run, key))

    def _on_event(self, event: Event) -> None:
        for key in self.keys_for(event):
            self.enqueue(key)

    def _dispatch(self, event: Event) -> None:
        """``_on_event`` for a loop that maps events only through ``key_mappers``: the
        storage calls it for every write of the resources it hears, so it goes straight
        to the resource's mapper."""
        mapper = self._mappers().get(event.resource)
        if mapper is not None:
            for key in mapper(event):
                self.enqueue(key)

    def _run(self, key: Key) -> None:
        self._timers.pop(key, None)
        if key in self._waiting:  # its sync waits on admission: run again once it is done
            self._dirty[key] = 0.0
            return
        try:
            outcome = self.sync(key)
            if isinstance(outcome, types.CoroutineType):
                ran = run_eagerly(cast(Coroutine[Any, Any, float | None], outcome))
                if isinstance(ran, asyncio.Task):
                    self._waiting[key] = ran
                    ran.add_done_callback(lambda task: self._done(key, task))
                    return
                outcome = ran
            again = cast(float | None, outcome)
        except StatusError:
            again = _RETRY_CONFLICT  # a racing write: read the new state and try again
        except Exception:  # a bug must not stop the control plane; say so and retry later
            log.exception("%s: sync of %s/%s failed", type(self).__name__, *key)
            again = _RETRY_FAILURE
        if again is not None:
            self.enqueue(key, again)

    def _done(self, key: Key, task: asyncio.Task[float | None]) -> None:
        """A sync that waited has finished: its requeue, and any run asked for meanwhile."""
        if self._waiting.get(key) is not task or task.cancelled():
            return
        del self._waiting[key]
        error = task.exception()
        if isinstance(error, StatusError):
            again: float | None = _RETRY_CONFLICT
        elif error is not None:
            log.error("%s: sync of %s/%s failed", type(self).__name__, *key, exc_info=error)
            again = _RETRY_FAILURE
        else:
            again = task.result()
        if key in self._dirty:
            again = min(self._dirty.pop(key), again if again is not None else 0.0)
        if again is not None:
            self.enqueue(key, again)


def key_of(obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"])


def own_key(event: Event) -> tuple[Key]:
    """The key of the event's object: a loop's mapper for the kind it reconciles."""
    return (key_of(event.object),)


class ControllerLoop(KeyedLoop):
    """A ``KeyedLoop`` of the simulated control plane: reads go through ``self.cluster``,
    writes through ``self.api`` as the ServiceAccount ``account`` (admission sees them);
    ``owned_keys`` maps an object to the owner of ``kind`` it names."""

    account = ""
    """The controller's ServiceAccount in kube-system (``controller_policy.go``'s names)."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster.engine, cluster.registry)
        self.cluster = cluster
        self.api = ControllerRequests(cluster, controller_user(self.account))

    @staticmethod
    def controllers_of(event: Event, kind: str) -> set[Key]:
        """The keys of the ``kind`` controllers of the event's object, before and after."""
        keys = set()
        for obj in (event.object, event.previous):
            if obj is not None:
                keys.update(ControllerLoop.owned_keys(obj, kind))
        return keys

    @staticmethod
    def owned_keys(obj: dict[str, Any] | None, kind: str) -> list[Key]:
        """The key of ``obj``'s controller if it is a ``kind`` (same namespace)."""
        if obj is None:
            return []
        for ref in obj["metadata"].get("ownerReferences") or []:
            if isinstance(ref, dict) and ref.get("controller") and ref.get("kind") == kind:
                return [(obj["metadata"].get("namespace") or "", str(ref.get("name")))]
        return []
