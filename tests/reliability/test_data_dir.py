"""The data directory under faults: shared, damaged, losing its WAL, world-readable.

- A second server on a directory another one serves refuses with one line, and the
  first goes on serving.
- After a SIGKILL, a deleted or truncated ``kubeforge.db-wal`` or an emptied database
  loses acknowledged writes: the server refuses to start with one line that says
  how to recover, and ``--repair-data-dir`` then starts from what is left with the
  revision past every one handed out, so a client's old resourceVersion gets 410
  and it relists (never a silent watch from the future).
- A truncated or overwritten database is refused with one line, no traceback.
- The database (every Secret is in it) and its companions are mode 0600.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubeforge.testing import LocalApiServer
from reliability.kf_rawhttp import call

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def _start(data_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run a server that is expected to refuse (a hang fails on the timeout)."""
    command = [sys.executable, "-m", "kubeforge.apiserver", "--port", "0"]
    command += ["--data-dir", str(data_dir), "--kubeconfig", str(data_dir.parent / "kc"), *extra]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


def _one_line_refusal(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.returncode == 1, result
    output = (result.stdout + result.stderr).strip()
    assert "Traceback" not in output, output
    lines = output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _create_configmaps(server: LocalApiServer, prefix: str, count: int) -> int:
    """Create ``count`` ConfigMaps (each acknowledged); returns the last resourceVersion."""
    rv = 0
    for i in range(count):
        body = {"metadata": {"name": f"{prefix}-{i}"}, "data": {"i": str(i)}}
        status, answer = call(server, "POST", CONFIGMAPS, json.dumps(body).encode())
        assert status == 201, answer
        rv = int(answer["metadata"]["resourceVersion"])
    return rv


def test_a_second_server_on_the_same_data_directory_refuses_with_one_line(
    kube_apiserver_factory: Callable[..., LocalApiServer], tmp_path: Path
) -> None:
    data_dir = tmp_path / "shared"
    first = kube_apiserver_factory(data_dir=data_dir)

    line = _one_line_refusal(_start(data_dir), str(data_dir), "in use", "--data-dir")

    assert first.process_id() is not None and f"pid {first.process_id()}" in line
    _create_configmaps(first, "still-writable", 1)  # the first is untouched by the attempt
    assert call(first, "GET", f"{CONFIGMAPS}/still-writable-0")[0] == 200


def _lose_wal(data_dir: Path, how: str) -> None:
    wal = data_dir / "kubeforge.db-wal"
    if how == "wal-deleted":
        wal.unlink()
    elif how == "wal-truncated":
        os.truncate(wal, wal.stat().st_size // 3)
    else:  # the database replaced by an empty file
        wal.unlink()
        (data_dir / "kubeforge.db").write_bytes(b"")


@pytest.mark.parametrize("how", ["wal-deleted", "wal-truncated", "database-emptied"])
def test_lost_writes_are_detected_and_repair_makes_clients_relist(
    kube_apiserver_factory: Callable[..., LocalApiServer], tmp_path: Path, how: str
) -> None:
    data_dir = tmp_path / "data"
    server = kube_apiserver_factory(data_dir=data_dir)
    acknowledged = _create_configmaps(server, "kept", 40)
    server.kill()  # no clean shutdown: recent commits are only in the WAL
    _lose_wal(data_dir, how)

    _one_line_refusal(
        _start(data_dir), "kubeforge.db", f"revision {acknowledged}", "--repair-data-dir"
    )

    server.extra_args = ("--repair-data-dir",)
    server.start()
    # A watch from the newest revision a client saw must not go quiet: 410, relist.
    query = f"watch=1&resourceVersion={acknowledged}&timeoutSeconds=5"
    status, answer = call(server, "GET", f"{CONFIGMAPS}?{query}")
    assert status == 200 and answer["type"] == "ERROR", answer
    assert answer["object"]["code"] == 410 and answer["object"]["reason"] == "Expired", answer
    status, listed = call(server, "GET", CONFIGMAPS)
    assert status == 200 and int(listed["metadata"]["resourceVersion"]) > acknowledged
    # New writes get revisions no client has seen yet.
    assert _create_configmaps(server, "after", 1) > acknowledged


@pytest.mark.parametrize("how", ["truncated", "overwritten"])
def test_a_damaged_database_is_refused_with_one_line(
    kube_apiserver_factory: Callable[..., LocalApiServer], tmp_path: Path, how: str
) -> None:
    data_dir = tmp_path / "data"
    server = kube_apiserver_factory(data_dir=data_dir)
    _create_configmaps(server, "x", 30)
    server.stop()  # a clean stop checkpoints the WAL into the database
    database = data_dir / "kubeforge.db"
    size = database.stat().st_size
    if how == "truncated":
        os.truncate(database, size // 2)
    else:
        with database.open("r+b") as handle:
            handle.seek(size // 2)
            handle.write(os.urandom(4096))

    _one_line_refusal(_start(data_dir), str(database), "damaged", "backup")


def test_the_database_and_its_companions_are_private(
    kube_apiserver_factory: Callable[..., LocalApiServer], tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)
    (data_dir / "kubeforge.db").touch(mode=0o644)  # as an older version left it
    os.chmod(data_dir / "kubeforge.db", 0o644)
    server = kube_apiserver_factory(data_dir=data_dir)
    _create_configmaps(server, "private", 1)

    names = ["kubeforge.db", "kubeforge.db-wal", "kubeforge.db-shm", "kubeforge.revision"]
    modes: dict[str, Any] = {
        name: stat.filemode((data_dir / name).stat().st_mode) for name in names
    }
    assert modes == dict.fromkeys(names, "-rw-------")
