"""The data directory's guards: one server per directory, and a database that is whole.

Entry points: ``DirectoryLock.acquire(directory)`` (held for the server's life),
``open_database(path)`` (the SQLite file, mode 0600, refusing a damaged one) and
``RevisionMark`` (the newest committed revision, kept beside the database). Every
refusal is a ``DataDirError`` whose message is one line saying what is wrong and how
to recover; ``kubeforge apiserver`` prints it and exits.

Why a lock: two servers on one directory each hold their own in-memory copy, so the
second serves stale reads and fights the first over the database.

Why a revision mark: SQLite keeps recent commits in ``kubeforge.db-wal`` until a
checkpoint copies them into the database. If that file is deleted or truncated after
a crash, or the database is replaced by an empty one, SQLite opens what is left
without complaint: fewer objects and a revision counter that went backwards, so every
client's resourceVersion is from the future and its watches silently see nothing.
The mark is a 21-byte file rewritten in place after each commit (one ``pwrite``, no
fsync: as durable as the WAL under ``synchronous=NORMAL``), so a database that ends
before it is caught at start. ``--repair-data-dir`` then accepts what is left and
moves the revision past every one handed out, as ``etcdutl snapshot restore
--bump-revision --mark-compacted`` does after an etcd restore: every client's next
watch gets 410 Gone and it relists.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from pathlib import Path

__all__ = [
    "LOCK_FILE",
    "MARK_FILE",
    "DataDirError",
    "DirectoryLock",
    "RevisionMark",
    "behind_error",
    "damaged_error",
    "open_database",
]

LOCK_FILE = "kubeforge.lock"
MARK_FILE = "kubeforge.revision"
REPAIR_FLAG = "--repair-data-dir"

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


# Pages the WAL grows to before a COMMIT copies them into the database itself (SQLite's
# default: 1,000, 4 MB). A file database is checkpointed by ``checkpointer`` off the event
# loop, so this is only the backstop for a checkpoint thread that falls behind: a WAL of
# up to 40 MB (truncated when the server stops).
_CHECKPOINT_PAGES = 10_000


class DataDirError(Exception):
    """The data directory cannot be used as it is; the message says why and what to do."""


class DirectoryLock:
    """An exclusive ``flock`` on ``DIR/kubeforge.lock``, released when the process ends
    (even by SIGKILL: the kernel drops it with the descriptor)."""

    def __init__(self, fd: int, directory: Path) -> None:
        self._fd = fd
        self.directory = directory

    @classmethod
    def acquire(cls, directory: Path) -> DirectoryLock:
        """Lock ``directory`` (created 0700 if missing); ``DataDirError`` if another
        server holds it."""
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise DataDirError(
                f"the data directory {directory} is in use by another kubeforge apiserver"
                f"{who}; stop that one first or give another --data-dir"
            ) from None
        # The holder's pid, for the refusal above; the file is never removed, since
        # unlinking a lock file lets two servers lock two different files.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd, directory)

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class RevisionMark:
    """The newest committed revision, in ``DIR/kubeforge.revision`` (mode 0600)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def read(self) -> int | None:
        """The revision last written, or ``None`` for a new (or unreadable) mark."""
        text = os.pread(self._fd, 64, 0).decode(errors="replace").strip()
        return int(text) if text.isdigit() else None

    def write(self, revision: int) -> None:
        # Fixed width: an in-place overwrite of the same bytes needs no new disk space,
        # so it works on a full disk too.
        os.pwrite(self._fd, f"{revision:020d}\n".encode(), 0)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def open_database(path: Path | None) -> sqlite3.Connection:
    """The SQLite database at ``path`` (``None``: in memory) with the schema, in WAL mode.

    The file is created (or tightened to) mode 0600: it holds every Secret, and SQLite
    gives its ``-wal`` and ``-shm`` files the database's mode. A file that is not a
    database, or whose pages fail SQLite's ``quick_check``, is a ``DataDirError``.
    """
    if path is not None:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
        for companion in (
            path,
            path.with_name(path.name + "-wal"),
            path.with_name(path.name + "-shm"),
        ):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(companion, 0o600)
    target = str(path) if path is not None else ":memory:"
    # isolation_level=None: Storage issues BEGIN/COMMIT itself, one transaction per batch.
    db = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA wal_autocheckpoint={_CHECKPOINT_PAGES}")
        (verdict,) = db.execute("PRAGMA quick_check(1)").fetchone()
        if verdict != "ok":
            raise sqlite3.DatabaseError(str(verdict))
        db.executescript(_SCHEMA)
    except sqlite3.DatabaseError as error:
        db.close()
        assert path is not None  # an in-memory database is never damaged
        raise damaged_error(path, error) from None
    return db


def damaged_error(path: Path, cause: BaseException) -> DataDirError:
    """The refusal for a database SQLite cannot read (truncated, overwritten, not one)."""
    # SQLite's integrity reports span lines ("*** in database main ***" then the page).
    reason = " ".join(str(cause).replace("*** in database main ***", "").split())
    reason = reason[:160] or type(cause).__name__
    return DataDirError(
        f"the database {path} is damaged ({reason}); restore {path.parent} from a backup, "
        f"or delete {path.name}* there and start with {REPAIR_FLAG} to begin with no "
        "objects (kubeconfigs stay valid; clients relist)"
    )


def behind_error(path: Path, loaded: int, marked: int) -> DataDirError:
    """The refusal for a database that ends before the last revision it acknowledged."""
    return DataDirError(
        f"the database {path} ends at revision {loaded} but revision {marked} was already "
        f"acknowledged: writes were lost ({path.name}-wal deleted or truncated, or the "
        f"database replaced?); restore {path.parent} from a backup, or start with "
        f"{REPAIR_FLAG} to keep what is left (clients relist)"
    )
