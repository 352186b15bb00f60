"""Copying the write-ahead log into the database from a thread, not from a commit.

SQLite in WAL mode copies committed pages into the database file at a checkpoint. Left
to itself it runs one inside whichever ``COMMIT`` crossed its threshold, on the event
loop: every request, list page and watch event waited behind it (35-50 ms stalls for a
10,000-page checkpoint at 2,000 writes/s, the whole p99 of the watch fan-out). Here a
thread with a connection of its own runs a *passive* checkpoint about twice a second:
it copies what is committed without blocking the writer, and SQLite releases the GIL
while it works, so the loop goes on. The database's own threshold stays as a backstop
(``datadir``), for a thread that falls behind.

Durability is unchanged: a commit is durable once in the WAL, checkpointed or not.

Entry point: ``Checkpointer(path)``, ``start()`` once the database is open, ``stop()``
before the server's connection closes.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

__all__ = ["Checkpointer"]

log = logging.getLogger(__name__)

_INTERVAL = 0.5  # seconds between passive checkpoints


class Checkpointer:
    """A daemon thread checkpointing the WAL of the database at ``path``."""

    def __init__(self, path: Path, interval: float = _INTERVAL) -> None:
        self._path = path
        self._interval = interval
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop and close the thread's connection (the caller's last checkpoint may then
        truncate the WAL)."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        db = sqlite3.connect(str(self._path), isolation_level=None, check_same_thread=False)
        try:
            while not self._stopping.wait(self._interval):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as error:  # a full disk: the WAL keeps the commits
                    log.debug("WAL checkpoint failed: %s", error)
        finally:
            db.close()
