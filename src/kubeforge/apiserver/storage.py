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
  A commit that fails leaves memory ahead of the disk, so the storage refuses
  everything afterwards (fail-stop: a restart reloads what was committed). Outside
  a loop (bootstrap, scripts) each write commits at once.
* Each event keeps the object's previous state too: watch filters need it for
  selector transitions, and ``snapshot`` undoes recent events to serve paginated
  lists at a consistent revision.

Stored objects are shared: callers must treat returned dicts as read-only and
``clone`` before changing them.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

__all__ = ["DEFAULT_HISTORY", "Event", "ExpiredError", "ResourceKey", "Storage", "clone"]

ResourceKey = tuple[str, str]
"""``(group, plural)``: objects of every served version share one storage key."""

DEFAULT_HISTORY = 5000
"""Events kept for watch resumption; the real watch cache keeps 100..100000."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    grp TEXT NOT NULL, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
    rv INTEGER NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (grp, resource, namespace, name)
);
CREATE TABLE IF NOT EXISTS events (
    rv INTEGER PRIMARY KEY, type TEXT NOT NULL, grp TEXT NOT NULL, resource TEXT NOT NULL,
    data BLOB NOT NULL, prev BLOB
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""

log = logging.getLogger("kubeforge.apiserver.storage")

# Delete trimmed history from SQLite in batches: one DELETE per this many events.
_TRIM_BATCH = 256


def clone(obj: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a JSON object (orjson round trip: several times faster than deepcopy)."""
    result: dict[str, Any] = orjson.loads(orjson.dumps(obj))
    return result


@dataclass(frozen=True, slots=True)
class Event:
    """One committed change. ``object`` is the new state (for DELETED: the last state, new RV)."""

    revision: int
    type: str
    resource: ResourceKey
    object: dict[str, Any]
    previous: dict[str, Any] | None


class ExpiredError(Exception):
    """The requested revision is older than the kept history."""

    def __init__(self, requested: int, compacted: int) -> None:
        super().__init__(f"too old resource version: {requested} ({compacted})")
        self.requested = requested
        self.compacted = compacted


def _subscribe(
    listeners: list[Callable[[Event], None]], listener: Callable[[Event], None]
) -> Callable[[], None]:
    listeners.append(listener)

    def unsubscribe() -> None:
        if listener in listeners:
            listeners.remove(listener)

    return unsubscribe


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
    """

    def __init__(self, path: Path | None, *, history: int = DEFAULT_HISTORY) -> None:
        self._history_size = max(1, history)
        target = str(path) if path is not None else ":memory:"
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per write.
        self._db = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._objects: dict[ResourceKey, dict[tuple[str, str], dict[str, Any]]] = {}
        self._history: deque[Event] = deque()
        self._listeners: list[Callable[[Event], None]] = []
        self._durable_listeners: list[Callable[[Event], None]] = []
        self._staged: list[Event] = []  # applied, in the open transaction, not yet committed
        self._commit_scheduled = False
        self._waiters: list[asyncio.Future[None]] = []
        self._failure: BaseException | None = None
        self.revision = 0
        self.committed = 0
        self.compacted = 0  # events with revision <= compacted are no longer kept
        self._trimmed_in_db = 0
        self._load()

    # --- loading and closing ---------------------------------------------------------------

    def _load(self) -> None:
        meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        self.revision = int(meta.get("revision", 0))
        self.compacted = int(meta.get("compacted", 0))
        self._trimmed_in_db = self.compacted
        (newest,) = self._db.execute("SELECT MAX(rv) FROM events").fetchone()
        self.revision = max(self.revision, int(newest or 0))
        for grp, resource, rv, data in self._db.execute(
            "SELECT grp, resource, rv, data FROM objects"
        ):
            obj = orjson.loads(data)
            self._objects.setdefault((grp, resource), {})[_ns_name(obj)] = obj
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
        self.committed = self.revision

    def close(self) -> None:
        try:
            if self._staged and self._failure is None:
                self._commit()
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()

    # --- reads -----------------------------------------------------------------------------

    def get(self, resource: ResourceKey, namespace: str, name: str) -> dict[str, Any] | None:
        return self._objects.get(resource, {}).get((namespace, name))

    def objects(self, resource: ResourceKey, namespace: str | None = None) -> list[dict[str, Any]]:
        """Current objects in key order (namespace, then name), like etcd's range reads."""
        objects = self._objects.get(resource, {})
        keys = sorted(k for k in objects if namespace is None or k[0] == namespace)
        return [objects[k] for k in keys]

    def count(self, resource: ResourceKey, namespace: str | None = None) -> int:
        objects = self._objects.get(resource, {})
        if namespace is None:
            return len(objects)
        return sum(1 for ns, _ in objects if ns == namespace)

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

    def snapshot(self, resource: ResourceKey, revision: int) -> list[dict[str, Any]]:
        """Objects of ``resource`` as they were at ``revision``, in key order."""
        current = dict(self._objects.get(resource, {}))
        if revision >= self.revision:
            return [current[k] for k in sorted(current)]
        for event in reversed(self.events_after(revision)):
            if event.resource != resource:
                continue
            key = _ns_name(event.object)
            if event.type == "ADDED":
                current.pop(key, None)
            elif event.previous is not None:
                current[key] = event.previous
        return [current[k] for k in sorted(current)]

    # --- writes ----------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Call ``listener(event)`` as each write is applied (before its commit, which
        is at the latest at the end of the loop iteration); returns the unsubscribe
        function. For the server's own loops: anything a client sees goes through
        ``subscribe_durable`` or ``durable()``."""
        return _subscribe(self._listeners, listener)

    def subscribe_durable(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Call ``listener(event)`` once the event is committed, in revision order."""
        return _subscribe(self._durable_listeners, listener)

    async def durable(self, revision: int | None = None) -> None:
        """Return once every write up to ``revision`` (default: every write so far) is
        committed; raises the commit's error if it failed."""
        target = self.revision if revision is None else revision
        while self.committed < target:
            if self._failure is not None:
                raise self._failure
            # A future per waiter: a cancelled waiter then cancels only its own.
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter

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
        if self._failure is not None:
            raise self._failure
        revision = self.revision + 1
        obj["metadata"]["resourceVersion"] = str(revision)
        namespace, name = _ns_name(obj)
        data = orjson.dumps(obj)
        prev = orjson.dumps(previous) if previous is not None else None
        db = self._db
        if not self._staged:
            db.execute("BEGIN")
        try:
            if type_ == "DELETED":
                db.execute(
                    "DELETE FROM objects WHERE grp=? AND resource=? AND namespace=? AND name=?",
                    (*resource, namespace, name),
                )
            else:
                db.execute(
                    "INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?, ?, ?)",
                    (*resource, namespace, name, revision, data),
                )
            # The revision itself is not stored separately: the newest event always stays
            # in ``events`` (trimming keeps at least one), so loading recovers it.
            db.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                (revision, type_, *resource, data, prev),
            )
        except BaseException as error:
            if self._staged:
                self._fail(error)  # earlier writes of this transaction are lost with it
            else:
                db.execute("ROLLBACK")
            raise
        self.revision = revision
        bucket = self._objects.setdefault(resource, {})
        if type_ == "DELETED":
            bucket.pop((namespace, name), None)
        else:
            bucket[(namespace, name)] = obj
        event = Event(revision, type_, resource, obj, previous)
        self._history.append(event)
        self._staged.append(event)
        try:
            self._trim()
        except BaseException as error:
            self._fail(error)
            raise
        self._schedule_commit()  # first: a listener that raises must not leave it uncommitted
        for listener in list(self._listeners):
            listener(event)
        return obj

    def _schedule_commit(self) -> None:
        if self._commit_scheduled or not self._staged:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._commit()  # no loop (bootstrap, scripts): durable before returning
            return
        self._commit_scheduled = True
        # call_soon runs after everything already queued in this loop iteration, so the
        # writes of requests that arrived together share this commit.
        loop.call_soon(self._commit)

    def _commit(self) -> None:
        self._commit_scheduled = False
        staged, self._staged = self._staged, []
        if not staged or self._failure is not None:
            return
        try:
            self._db.execute("COMMIT")
        except BaseException as error:
            self._fail(error)
            return
        # Only now, with the writes durable, does anyone outside get to see them.
        self.committed = staged[-1].revision
        self._wake_waiters()
        for event in staged:
            for listener in list(self._durable_listeners):
                listener(event)

    def _fail(self, error: BaseException) -> None:
        """A transaction could not be written: memory is ahead of the disk from here on."""
        log.critical("storage: a write could not be committed; refusing every request: %s", error)
        self._failure = error
        self._staged = []
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        self._wake_waiters()

    def _wake_waiters(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _trim(self) -> None:
        while len(self._history) > self._history_size:
            self.compacted = self._history.popleft().revision
        if self.compacted - self._trimmed_in_db >= _TRIM_BATCH:
            # Inside the write's transaction: committed (or lost) with it.
            self._db.execute("DELETE FROM events WHERE rv <= ?", (self.compacted,))
            self._db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('compacted', ?)", (self.compacted,)
            )
            self._trimmed_in_db = self.compacted

    def resources(self) -> Iterable[ResourceKey]:
        return list(self._objects)
