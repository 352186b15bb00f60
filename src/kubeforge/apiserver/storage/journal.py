"""``Journal``: the SQLite side of ``Storage``: one open transaction, group commit, and
what a failed commit does.

Entry point: ``Journal``, created and driven by ``Storage`` (nothing else writes
SQLite). ``record`` adds a write's rows to the open transaction (beginning one if
none is open); ``schedule`` commits it at the end of the loop iteration (at once
outside a loop); ``durable`` waits for a commit. The revision mark (``datadir``) is
rewritten after every commit.

A commit that fails, or a statement the disk refuses, rolls the whole transaction
back and hands its events to ``on_abort`` (``Storage`` undoes them in memory);
everyone waiting on them gets the ``WriteFailedError``. Writes then keep failing
fast for ``retry_pause`` seconds (a control loop retrying on the compensating event
cannot spin) and are tried for real afterwards: they resume when the disk has room.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.storage.datadir import RevisionMark

__all__ = ["DEFAULT_RETRY_PAUSE", "Event", "Journal", "ResourceKey", "WriteFailedError"]

log = logging.getLogger("kubeforge.apiserver.storage")

DEFAULT_RETRY_PAUSE = 1.0
"""Seconds after a failed write during which writes are refused without touching the disk."""

# Delete trimmed history from SQLite in batches: one DELETE per this many events.
_TRIM_BATCH = 256


ResourceKey = tuple[str, str]
"""``(group, plural)``: objects of every served version share one storage key."""


@dataclass(frozen=True, slots=True)
class Event:
    """One committed change. ``object`` is the new state (for DELETED: the last state, new RV)."""

    revision: int
    type: str
    resource: ResourceKey
    object: dict[str, Any]
    previous: dict[str, Any] | None


class WriteFailedError(Exception):
    """Writes could not be made durable (a full disk, an I/O error); none of them is kept."""

    def __init__(self, cause: BaseException) -> None:
        self.cause = cause
        self.disk_full = _disk_full(cause)
        if self.disk_full:
            text = (
                "the disk holding the data directory is full (database or disk is full); "
                "free some space and retry"
            )
        else:
            text = f"the data directory could not be written ({cause})"
        super().__init__(text)


def _disk_full(cause: BaseException) -> bool:
    if isinstance(cause, OSError):
        return cause.errno in (errno.ENOSPC, errno.EDQUOT)
    code = getattr(cause, "sqlite_errorcode", None)
    return (isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_FULL) or (
        "disk is full" in str(cause)
    )


class Journal:
    """The open SQLite transaction of one ``Storage`` and the state of its commits."""

    def __init__(
        self,
        db: sqlite3.Connection,
        mark: RevisionMark | None,
        *,
        committed: int,
        trimmed: int,
        on_commit: Callable[[list[Event]], None],
        on_abort: Callable[[list[Event], WriteFailedError], None],
        retry_pause: float = DEFAULT_RETRY_PAUSE,
    ) -> None:
        self._db = db
        self._mark = mark
        self._on_commit = on_commit
        self._on_abort = on_abort
        self._retry_pause = retry_pause
        self.committed = committed
        """The newest revision that is durable."""
        self.failure: WriteFailedError | None = None
        """Why the last write failed, until one succeeds again; ``None`` when healthy."""
        self._retry_at = 0.0  # monotonic time before which writes are refused outright
        self._staged: list[Event] = []  # applied, in the open transaction, not yet committed
        self._scheduled = False
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._trimmed = trimmed  # events up to here are deleted in SQLite (or in the open
        self._trimmed_at_begin = trimmed  # transaction); and its value when that began

    # --- adding to the open transaction ----------------------------------------------------

    def record(
        self, event: Event, namespace: str, name: str, data: bytes, prev: bytes | None
    ) -> None:
        """Add ``event``'s rows to the open transaction; ``WriteFailedError`` (with the
        whole transaction undone) if the disk refuses them."""
        if self.failure is not None and time.monotonic() < self._retry_at:
            raise self.failure
        db = self._db
        try:
            if not self._staged:
                db.execute("BEGIN")
                self._trimmed_at_begin = self._trimmed
            if event.type == "DELETED":
                db.execute(
                    "DELETE FROM objects WHERE grp=? AND resource=? AND namespace=? AND name=?",
                    (*event.resource, namespace, name),
                )
            elif event.type != "MODIFIED" or not self._updated(event, namespace, name, data):
                db.execute(
                    "INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?, ?, ?)",
                    (*event.resource, namespace, name, event.revision, data),
                )
            # The revision itself is not stored separately: the newest event always stays
            # in ``events`` (trimming keeps at least one), so loading recovers it.
            db.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                (event.revision, event.type, *event.resource, data, prev),
            )
        except BaseException as error:
            raise self.abort(error) from error
        self._staged.append(event)

    def _updated(self, event: Event, namespace: str, name: str, data: bytes) -> bool:
        """Rewrite a modified object's row in place (a quarter less of SQLite's work than
        replacing it, which deletes and re-inserts its key); False if it has no row."""
        cursor = self._db.execute(
            "UPDATE objects SET rv=?, data=? WHERE grp=? AND resource=? AND namespace=? AND name=?",
            (event.revision, data, *event.resource, namespace, name),
        )
        return cursor.rowcount > 0

    def forget_until(self, compacted: int) -> None:
        """Delete history up to ``compacted`` from SQLite, in batches, inside the open
        transaction (committed or lost with it)."""
        if compacted - self._trimmed < _TRIM_BATCH:
            return
        try:
            self._db.execute("DELETE FROM events WHERE rv <= ?", (compacted,))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('compacted', ?)", (compacted,))
        except BaseException as error:
            raise self.abort(error) from error
        self._trimmed = compacted

    # --- committing ------------------------------------------------------------------------

    def schedule(self) -> None:
        """Commit at the end of this loop iteration (so writes arriving together share
        one commit); outside a loop, commit now and raise if that fails."""
        if self._scheduled or not self._staged:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if not self.commit():
                assert self.failure is not None
                raise self.failure from None
            return
        self._scheduled = True
        # call_soon runs after everything already queued in this loop iteration.
        loop.call_soon(self.commit)

    def commit(self) -> bool:
        """Commit the open transaction; ``False`` if it failed (and was undone)."""
        self._scheduled = False
        staged = self._staged
        if not staged:
            return True
        try:
            self._db.execute("COMMIT")
        except BaseException as error:
            self.abort(error)
            return False
        self._staged = []
        self.committed = staged[-1].revision
        if self._mark is not None:
            try:
                self._mark.write(self.committed)
            except OSError as error:  # only the lost-WAL check is weakened: say so
                log.warning("cannot update %s: %s", self._mark.path, error)
        self._recovered()
        self._wake(None)
        # Only now, with the writes durable, does anyone outside get to see them.
        self._on_commit(staged)
        return True

    def abort(self, error: BaseException) -> WriteFailedError:
        """Roll the open transaction back; its events go to ``on_abort``."""
        failure = WriteFailedError(error)
        if self.failure is None:
            log.error("writes are failing: %s", failure)
        self.failure = failure
        self._retry_at = time.monotonic() + self._retry_pause
        staged, self._staged = self._staged, []
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
        self._trimmed = self._trimmed_at_begin
        self._on_abort(staged, failure)
        self._wake(failure)
        return failure

    async def durable(self, revision: int) -> None:
        """Return once ``revision`` is committed; ``WriteFailedError`` if it never will be."""
        if self.committed >= revision:
            return
        # A future per waiter: a cancelled waiter then cancels only its own.
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append((revision, waiter))
        await waiter

    def _wake(self, failure: WriteFailedError | None) -> None:
        """Release the waiters whose writes are committed, or all of them with ``failure``
        (every write past the last commit was just undone)."""
        waiting: list[tuple[int, asyncio.Future[None]]] = []
        for revision, waiter in self._waiters:
            if waiter.done():
                continue
            if failure is not None:
                waiter.set_exception(failure)
            elif revision <= self.committed:
                waiter.set_result(None)
            else:
                waiting.append((revision, waiter))
        self._waiters = waiting

    # --- health ----------------------------------------------------------------------------

    def check_writable(self, revision: int) -> WriteFailedError | None:
        """``None`` when writes work. After a failure, a tiny write (at most once per
        retry pause) finds out whether the disk has room again."""
        if self.failure is None or self._staged or time.monotonic() < self._retry_at:
            return self.failure
        db = self._db
        try:
            db.execute("BEGIN")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('probe', ?)", (revision,))
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            self.failure = WriteFailedError(error)
            self._retry_at = time.monotonic() + self._retry_pause
        else:
            self._recovered()
        return self.failure

    def _recovered(self) -> None:
        if self.failure is not None:
            log.warning("writes work again")
            self.failure = None

    def close(self) -> None:
        """Commit what is open, checkpoint the WAL into the database, close the files."""
        try:
            self.commit()
            with contextlib.suppress(sqlite3.Error):  # a full disk: the WAL keeps it all
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()
            if self._mark is not None:
                self._mark.close()
