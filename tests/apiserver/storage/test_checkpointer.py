"""A data directory's write-ahead log is copied into the database by a thread while the
server runs, not by the commit that crosses SQLite's threshold (which held up the event
loop); durability and the final truncation at close are as before."""

from __future__ import annotations

import time
from pathlib import Path

from kubeforge.apiserver.storage.sqlite import Storage

_CONFIGMAPS = ("", "configmaps")


def test_committed_pages_reach_the_database_file_while_the_server_runs(tmp_path: Path) -> None:
    database = tmp_path / "kubeforge.db"
    storage = Storage(database)
    try:
        before = database.stat().st_size
        for i in range(300):
            body = {"metadata": {"name": f"cm-{i}", "namespace": "x"}, "data": {"k": "v" * 200}}
            storage.create(_CONFIGMAPS, body)  # outside a loop: committed at once
        # Far below SQLite's own threshold (10,000 pages): only the thread copies them.
        deadline = time.monotonic() + 10
        while database.stat().st_size == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert database.stat().st_size > before
    finally:
        storage.close()
    wal = database.with_name(database.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # truncated at close, as before
    reopened = Storage(database)
    try:
        assert reopened.get(_CONFIGMAPS, "x", "cm-299") is not None
    finally:
        reopened.close()
