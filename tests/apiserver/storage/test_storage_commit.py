"""Group commit in ``Storage``: writes made together share one commit, nothing reaches a
durable listener before its commit, and a failed write never reaches a reader.

These drive ``Storage`` itself on a real SQLite file (the HTTP side is covered by the
durability tests, which SIGKILL a server right after its answers)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kubeforge.apiserver.storage.sqlite import Event, Storage, WriteFailedError

_KEY = ("", "configmaps")


def _configmap(name: str, size: int = 0) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default"},
        "data": {"blob": "x" * size},
    }


async def test_writes_made_together_commit_together_and_reach_durable_listeners_only_then(
    tmp_path: Path,
) -> None:
    storage = Storage(tmp_path / "db")
    applied: list[int] = []
    durable: list[int] = []
    storage.subscribe(lambda event: applied.append(event.revision))
    storage.subscribe_durable(lambda event: durable.append(event.revision))

    for name in ("a", "b", "c"):
        storage.create(_KEY, _configmap(name))

    # Applied (readable by the server's own loops) but not yet committed.
    assert applied == [1, 2, 3]
    assert durable == []
    assert (storage.committed, storage.revision) == (0, 3)

    await storage.durable()

    assert durable == [1, 2, 3]
    assert storage.committed == 3
    reopened = Storage(tmp_path / "db")
    assert [o["metadata"]["name"] for o in reopened.objects(_KEY)] == ["a", "b", "c"]
    reopened.close()
    storage.close()


async def test_a_write_after_a_commit_starts_the_next_transaction(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "db")
    storage.create(_KEY, _configmap("first"))
    await storage.durable()
    second = storage.create(_KEY, _configmap("second"))
    assert storage.committed == 1

    await storage.durable(int(second["metadata"]["resourceVersion"]))

    assert storage.committed == 2
    storage.close()


def test_without_an_event_loop_each_write_is_committed_before_it_returns(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "db")
    durable: list[Event] = []
    storage.subscribe_durable(durable.append)

    storage.create(_KEY, _configmap("now"))

    assert storage.committed == storage.revision == 1
    assert [e.object["metadata"]["name"] for e in durable] == ["now"]
    # Another connection sees it at once: it is in the WAL, not in an open transaction.
    with sqlite3.connect(tmp_path / "db") as other:
        assert other.execute("SELECT name FROM objects").fetchall() == [("now",)]
    storage.close()


async def test_a_write_the_disk_refuses_undoes_its_whole_transaction_and_the_storage_goes_on(
    tmp_path: Path,
) -> None:
    storage = Storage(tmp_path / "db", retry_pause=0.0)
    storage.create(_KEY, _configmap("kept"))
    await storage.durable()
    applied: list[tuple[str, str]] = []
    durable: list[int] = []
    storage.subscribe(lambda event: applied.append((event.type, event.object["metadata"]["name"])))
    storage.subscribe_durable(lambda event: durable.append(event.revision))
    # SQLite's own quota: room for a few more pages, not for a 200 kB object.
    (pages,) = storage._db.execute("PRAGMA page_count").fetchone()
    storage._db.execute(f"PRAGMA max_page_count={pages + 4}")

    storage.create(_KEY, _configmap("small"))
    with pytest.raises(WriteFailedError) as refused:
        storage.create(_KEY, _configmap("large", size=200_000))

    # The transaction, "small" included, was rolled back: nobody may be told it exists,
    # and the server's own listeners are told it is gone again.
    assert refused.value.disk_full and "disk" in str(refused.value)
    assert storage.get(_KEY, "default", "small") is None
    assert (storage.revision, storage.committed) == (1, 1)
    assert applied == [("ADDED", "small"), ("DELETED", "small")]
    assert storage.write_failure is refused.value
    await storage.durable()  # nothing is pending any more
    assert durable == []

    storage._db.execute(f"PRAGMA max_page_count={pages + 1000}")  # room again
    later = storage.create(_KEY, _configmap("later"))
    await storage.durable()
    assert later["metadata"]["resourceVersion"] == "2"
    assert durable == [2] and storage.write_failure is None
    storage.close()
    reopened = Storage(tmp_path / "db")
    assert [o["metadata"]["name"] for o in reopened.objects(_KEY)] == ["kept", "later"]
    reopened.close()


def test_after_a_refused_write_writes_fail_fast_for_the_retry_pause(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "db", retry_pause=3600.0)
    storage.create(_KEY, _configmap("kept"))
    (pages,) = storage._db.execute("PRAGMA page_count").fetchone()
    storage._db.execute(f"PRAGMA max_page_count={pages}")

    with pytest.raises(WriteFailedError) as first:
        storage.create(_KEY, _configmap("large", size=200_000))
    storage._db.execute(f"PRAGMA max_page_count={pages + 1000}")

    # Within the pause the disk is not even tried: a control loop cannot spin on it.
    with pytest.raises(WriteFailedError) as second:
        storage.create(_KEY, _configmap("small"))
    assert second.value is first.value
    assert storage.revision == storage.committed == 1
    assert storage.get(_KEY, "default", "large") is None
    storage.close()


def test_modified_objects_reload_as_last_written_and_deleted_ones_stay_gone(
    tmp_path: Path,
) -> None:
    storage = Storage(tmp_path / "db")
    kept = storage.create(_KEY, _configmap("kept"))
    gone = storage.create(_KEY, _configmap("gone"))
    for size in (1, 5000, 2):  # in place, then larger than a page, then small again
        kept = storage.update(_KEY, {**_configmap("kept", size)}, kept)
    storage.delete(_KEY, {**gone}, gone)
    again = storage.create(_KEY, _configmap("gone", 3))
    storage.close()

    reloaded = Storage(tmp_path / "db")
    assert reloaded.objects(_KEY) == [again, kept]
    assert reloaded.revision == storage.revision
    history = reloaded.events_after(0)
    assert [e.type for e in history] == ["ADDED", "ADDED", *["MODIFIED"] * 3, "DELETED", "ADDED"]
    assert history[4].previous == history[3].object
    reloaded.close()
