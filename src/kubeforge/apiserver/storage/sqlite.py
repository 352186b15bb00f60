"""Durable objects and watch history: an in-memory index over a SQLite write-ahead log.

Design (see ``Storage`` for the entry point):

* One global revision counter is every object's ``resourceVersion``, as etcd's is.
* SQLite is the durable copy: table ``objects`` (current state), ``events`` (a
  bounded history of changes, so watches can resume, even across a restart) and
  ``meta`` (the compaction mark). WAL mode with ``synchronous=NORMAL``: a
  committed write is in the WAL file before ``commit()`` returns, so it survives
  SIGKILL of the server; an OS crash or power loss may lose the last writes.
* The whole state is also held in memory (loaded at start): reads, lists and
  selector filtering never touch SQLite, and SQLite is only written.
* Writes run synchronously on the event-loop thread: revision order == commit
  order == event order for free, with no lock (a thread hop alone measured more
  than a whole write). Inside a running event loop, the SQLite transaction stays
  open until the end of the loop iteration, so writes arriving together share one
  commit (group commit: one WAL append instead of one per write). Nothing leaves
  the server before its commit: HTTP answers wait for ``durable()`` (the app's
  middleware), and watch streams only see events through ``subscribe_durable``.
  Outside a loop (bootstrap, scripts) each write commits at once.
* A commit that fails (a full disk, an I/O error) is undone in memory as well: its
  writes are answered with ``WriteFailedError`` and never seen by a client, and the
  server's own listeners get compensating events. Reads and watches go on;
  ``write_failure`` says why (``/readyz``), and writes are tried again once a short
  pause has passed, so they resume when space returns. Nothing acknowledged is lost,
  because nothing is acknowledged before its commit.
* The data directory's guards (a lock, the revision mark that catches a lost WAL,
  refusing a damaged file) are in ``datadir``.
* Each event keeps the object's previous state too: watch filters need it for
  selector transitions, and ``at_revision`` undoes recent events to serve paginated
  lists at a consistent revision.
* Each resource's objects are kept in key order (``Bucket``), as etcd's keys are, so
  a list page starts where the last one ended without sorting the resource again.

Stored objects are shared: callers must treat returned dicts as read-only and
``clone`` before changing them.
"""

from __future__ import annotations

import logging
import sqlite3
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson
from sortedcontainers import SortedDict

from kubeforge.apiserver.storage.checkpointer import Checkpointer
from kubeforge.apiserver.storage.datadir import (
    MARK_FILE,
    RevisionMark,
    behind_error,
    damaged_error,
    open_database,
)
from kubeforge.apiserver.storage.journal import (
    DEFAULT_RETRY_PAUSE,
    Event,
    Journal,
    ResourceKey,
    WriteFailedError,
)
from kubeforge.apiserver.storage.listeners import Listeners

__all__ = [
    "DEFAULT_HISTORY",
    "Bucket",
    "Event",
    "ExpiredError",
    "ResourceKey",
    "Storage",
    "WriteFailedError",
    "clone",
]

log = logging.getLogger("kubeforge.apiserver.storage")

DEFAULT_HISTORY = 5000
"""Events kept for watch resumption; the real watch cache keeps 100..100000."""


Bucket = SortedDict[tuple[str, str], dict[str, Any]]
"""One resource's objects by ``(namespace, name)``, kept in key order as etcd keeps its
keys: a list page reads from a key on without sorting the whole resource again."""


def clone(obj: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a JSON object (orjson round trip: several times faster than deepcopy)."""
    result: dict[str, Any] = orjson.loads(orjson.dumps(obj))
    return result


class ExpiredError(Exception):
    """The requested revision is older than the kept history."""

    def __init__(self, requested: int, compacted: int) -> None:
        super().__init__(f"too old resource version: {requested} ({compacted})")
        self.requested = requested
        self.compacted = compacted


def namespace_range(namespace: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """Keys from the first (inclusive) to the end (exclusive) of ``namespace``'s objects."""
    return (namespace, ""), (namespace + "\x00", "")


def _ns_name(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj["metadata"]
    return meta.get("namespace") or "", meta["name"]


class Storage:
    """Objects by resource and ``(namespace, name)``, a revision counter and a bounded event log.

    ``path=None`` keeps everything in an in-memory SQLite database (same code path).
    Listeners registered with ``subscribe`` are called synchronously, in revision
    order, as each write is applied (the server's own control loops); those
    registered with ``subscribe_durable`` once it is committed (what clients see).
    ``revision`` is the newest write, ``committed`` the newest durable one.
    ``repair=True`` accepts a database that ends before the revision mark (see
    ``datadir``) instead of refusing it.

    >>> storage = Storage(None)
    >>> storage.create(("", "configmaps"), {"metadata": {"name": "a", "namespace": "x"}})
    {'metadata': {'name': 'a', 'namespace': 'x', 'resourceVersion': '1'}}
    """

    def __init__(
        self,
        path: Path | None,
        *,
        history: int = DEFAULT_HISTORY,
        repair: bool = False,
        retry_pause: float = DEFAULT_RETRY_PAUSE,
    ) -> None:
        self._history_size = max(1, history)
        self._db = open_database(path)
        mark = RevisionMark(path.with_name(MARK_FILE)) if path is not None else None
        self._objects: dict[ResourceKey, Bucket] = {}
        self._history: deque[Event] = deque()
        self._listeners: Listeners[Event] = Listeners()
        self._durable_listeners: Listeners[Event] = Listeners()
        self.revision = 0
        self.compacted = 0  # events with revision <= compacted are no longer kept
        try:
            trimmed = self._load()
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError) as error:
            self._db.close()
            assert path is not None  # an in-memory database loads nothing
            raise damaged_error(path, error) from None
        self._journal = Journal(
            self._db,
            mark,
            committed=self.revision,
            trimmed=trimmed,
            on_commit=self._committed,
            on_abort=self._undo,
            retry_pause=retry_pause,
        )
        self._checkpointer: Checkpointer | None = None
        if path is not None and mark is not None:
            self._check_mark(path, mark, repair)
            self._checkpointer = Checkpointer(path)
            self._checkpointer.start()

    @property
    def committed(self) -> int:
        """The newest durable revision (``revision`` may be ahead, uncommitted)."""
        return self._journal.committed

    @property
    def write_failure(self) -> WriteFailedError | None:
        """Why the last write failed, until one succeeds again; ``None`` when healthy."""
        return self._journal.failure

    # --- loading and closing ---------------------------------------------------------------

    def _load(self) -> int:
        """Read the stored state; returns the revision up to which SQLite's history is trimmed."""
        meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        self.revision = int(meta.get("revision", 0))
        self.compacted = trimmed = int(meta.get("compacted", 0))
        (newest,) = self._db.execute("SELECT MAX(rv) FROM events").fetchone()
        self.revision = max(self.revision, int(newest or 0))
        for grp, resource, rv, data in self._db.execute(
            "SELECT grp, resource, rv, data FROM objects"
        ):
            obj = orjson.loads(data)
            self._bucket((grp, resource))[_ns_name(obj)] = obj
            self.revision = max(self.revision, rv)
        rows = self._db.execute(
            "SELECT rv, type, grp, resource, data, prev FROM events ORDER BY rv DESC LIMIT ?",
            (self._history_size,),
        ).fetchall()
        for rv, type_, grp, resource, data, prev in reversed(rows):
            previous = orjson.loads(prev) if prev is not None else None
            self._history.append(Event(rv, type_, (grp, resource), orjson.loads(data), previous))
        if self._history:
            self.compacted = max(self.compacted, self._history[0].revision - 1)
            self.revision = max(self.revision, self._history[-1].revision)
        else:
            # Nothing kept: only watches from the current revision can be served.
            self.compacted = self.revision
        return trimmed

    def _check_mark(self, path: Path, mark: RevisionMark, repair: bool) -> None:
        """Refuse a database that ends before the newest revision it acknowledged."""
        marked = mark.read()
        if marked is not None and marked > self.revision:
            if not repair:
                loaded = self.revision
                self.close()
                raise behind_error(path, loaded, marked)
            self._start_after(marked)
        mark.write(self.revision)

    def _start_after(self, marked: int) -> None:
        """Keep what is stored, hand out only revisions above every one acknowledged
        before, and let no watch resume from before: clients get 410 Gone and relist."""
        log.warning(
            "repairing the data directory: revisions %d..%d were lost; "
            "continuing from %d with what is left",
            self.revision + 1,
            marked,
            marked + 1,
        )
        self.revision = self.compacted = self._journal.committed = marked + 1
        self._history.clear()
        with self._db:  # one transaction
            self._db.execute("DELETE FROM events")
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('revision', ?)", (self.revision,))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('compacted', ?)", (marked + 1,))

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
        self._journal.close()

    # --- reads -----------------------------------------------------------------------------

    def get(self, resource: ResourceKey, namespace: str, name: str) -> dict[str, Any] | None:
        bucket = self._objects.get(resource)
        return None if bucket is None else bucket.get((namespace, name))

    def index(self, resource: ResourceKey) -> Bucket | None:
        """The live key-ordered objects of ``resource`` (read-only), ``None`` if none ever were."""
        return self._objects.get(resource)

    @property
    def history(self) -> deque[Event]:
        """The kept events, oldest first (read-only)."""
        return self._history

    def objects(self, resource: ResourceKey, namespace: str | None = None) -> list[dict[str, Any]]:
        """Current objects in key order (namespace, then name), like etcd's range reads."""
        bucket = self._objects.get(resource)
        if bucket is None:
            return []
        if namespace is None:
            return list(bucket.values())
        return [bucket[k] for k in bucket.irange(*namespace_range(namespace))]

    def count(self, resource: ResourceKey, namespace: str | None = None) -> int:
        bucket = self._objects.get(resource)
        if bucket is None:
            return 0
        if namespace is None:
            return len(bucket)
        low, high = namespace_range(namespace)
        return int(bucket.bisect_left(high) - bucket.bisect_left(low))

    def _bucket(self, resource: ResourceKey) -> Bucket:
        bucket = self._objects.get(resource)
        if bucket is None:
            bucket = self._objects[resource] = SortedDict()
        return bucket

    def events_after(self, revision: int) -> list[Event]:
        """Kept events with a revision above ``revision``; ``ExpiredError`` if some are gone."""
        if revision < self.compacted:
            raise ExpiredError(revision, self.compacted)
        if not self._history or revision >= self.revision:
            return []
        # History is in revision order; scan from the end since resumes are usually recent.
        out: list[Event] = []
        for event in reversed(self._history):
            if event.revision <= revision:
                break
            out.append(event)
        out.reverse()
        return out

    def check_writable(self) -> WriteFailedError | None:
        """``None`` when writes work; after a failure, finds out (with a tiny write, at
        most once per retry pause) whether the disk has room again. For ``/readyz``."""
        return self._journal.check_writable(self.revision)

    # --- writes ----------------------------------------------------------------------------

    def subscribe(
        self, listener: Callable[[Event], None], resources: Iterable[ResourceKey] | None = None
    ) -> Callable[[], None]:
        """Call ``listener(event)`` as each write is applied (before its commit, which
        is at the latest at the end of the loop iteration), for writes of ``resources``
        only when given; returns the unsubscribe function. For the server's own loops:
        anything a client sees goes through ``subscribe_durable`` or ``durable()``. A
        commit that fails is followed by events undoing its writes (revision: the last
        committed one)."""
        return self._listeners.subscribe(listener, resources)

    def subscribe_durable(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Call ``listener(event)`` once the event is committed, in revision order."""
        return self._durable_listeners.subscribe(listener)

    async def durable(self, revision: int | None = None) -> None:
        """Return once every write up to ``revision`` (default: every write so far) is
        committed; raises ``WriteFailedError`` if its commit failed."""
        await self._journal.durable(self.revision if revision is None else revision)

    def create(self, resource: ResourceKey, obj: dict[str, Any]) -> dict[str, Any]:
        """Store a new object (caller checked it is absent); sets ``resourceVersion``."""
        return self._write(resource, "ADDED", obj, None)

    def update(
        self, resource: ResourceKey, obj: dict[str, Any], previous: dict[str, Any]
    ) -> dict[str, Any]:
        """Replace an existing object; sets a new ``resourceVersion``."""
        return self._write(resource, "MODIFIED", obj, previous)

    def delete(
        self, resource: ResourceKey, obj: dict[str, Any], previous: dict[str, Any]
    ) -> dict[str, Any]:
        """Remove an object; ``obj`` is its last state, stamped with the deletion's revision."""
        return self._write(resource, "DELETED", obj, previous)

    def _write(
        self,
        resource: ResourceKey,
        type_: str,
        obj: dict[str, Any],
        previous: dict[str, Any] | None,
    ) -> dict[str, Any]:
        revision = self.revision + 1
        obj["metadata"]["resourceVersion"] = str(revision)
        namespace, name = _ns_name(obj)
        data = orjson.dumps(obj)
        prev = orjson.dumps(previous) if previous is not None else None
        event = Event(revision, type_, resource, obj, previous)
        self._journal.record(event, namespace, name, data, prev)
        self.revision = revision
        bucket = self._bucket(resource)
        if type_ == "DELETED":
            bucket.pop((namespace, name), None)
        else:
            bucket[(namespace, name)] = obj
        self._history.append(event)
        while len(self._history) > self._history_size:
            self.compacted = self._history.popleft().revision
        self._journal.forget_until(self.compacted)
        self._journal.schedule()  # first: a listener that raises must not leave it uncommitted
        for listener in self._listeners.of(resource):
            listener(event)
        return obj

    def _committed(self, events: list[Event]) -> None:
        for event in events:
            for listener in self._durable_listeners.of(event.resource):
                listener(event)

    def _undo(self, staged: list[Event], failure: WriteFailedError) -> None:
        """A transaction failed: put memory back to the last commit and tell the server's
        own listeners with events that undo each write."""
        undone: list[Event] = []
        committed = self._journal.committed
        for event in reversed(staged):
            bucket = self._bucket(event.resource)
            key = _ns_name(event.object)
            if event.type == "ADDED":
                bucket.pop(key, None)
                undone.append(Event(committed, "DELETED", event.resource, event.object, None))
            elif event.previous is not None:
                bucket[key] = event.previous
                again = "ADDED" if event.type == "DELETED" else "MODIFIED"
                undone.append(Event(committed, again, event.resource, event.previous, None))
        while self._history and self._history[-1].revision > committed:
            self._history.pop()
        self.revision = committed
        if not self._history:
            self.compacted = committed
        for event in undone:
            for listener in self._listeners.of(event.resource):
                listener(event)

    def resources(self) -> Iterable[ResourceKey]:
        return list(self._objects)
