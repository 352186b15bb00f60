"""A full disk under the data directory: writes fail with a Status, nothing else does.

While the disk is full, a write gets a 500 ``InternalError`` Status saying the disk
is full (what a real server answers when etcd refuses a write), reads, lists and
open watches go on, ``/readyz`` fails its ``etcd`` check ("reason withheld", as the
real one words it) and ``/readyz/etcd`` says why. Once space returns, writes work
again without a restart, the watch carries on with them, and every write that was
acknowledged is still there after a restart; the refused ones never appear.

Two ways to fill the disk: a real tmpfs of a few MiB under a server process (mounted
directly, or in an unprivileged mount namespace reached through ``/proc``) and SQLite's
own page quota under a server running in the test's event loop (an injected fault on
the same path).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import ssl
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from kubeforge.apiserver.server.app import LocalServer, ServerOptions
from kubeforge.testing import LocalApiServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
_BLOB = "x" * 100_000
_MAX_FILLING_WRITES = 200  # a bound, so a disk that never fills fails the test


@dataclass
class Cluster:
    """One server seen over HTTP, and how to fill and free its disk."""

    session: aiohttp.ClientSession
    base: str
    headers: dict[str, str]
    ssl: ssl.SSLContext | bool
    fill: Callable[[], None]
    free: Callable[[], None]
    acknowledged: list[str] = field(default_factory=list)

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        async with self.session.request(
            method, self.base + path, data=data, headers=self.headers, ssl=self.ssl
        ) as response:
            text = await response.text()
            try:
                return response.status, json.loads(text)
            except ValueError:
                return response.status, text

    async def create(self, name: str, blob: str = "") -> tuple[int, Any]:
        body = {"metadata": {"name": name}, "data": {"blob": blob}}
        status, answer = await self.request("POST", CONFIGMAPS, body)
        if status == 201:
            self.acknowledged.append(name)
        return status, answer


async def _watch(cluster: Cluster, rv: str, seen: list[str]) -> None:
    url = f"{cluster.base}{CONFIGMAPS}?watch=1&resourceVersion={rv}&timeoutSeconds=120"
    async with cluster.session.get(url, headers=cluster.headers, ssl=cluster.ssl) as response:
        async for line in response.content:
            event = json.loads(line)
            seen.append(f"{event['type']} {event['object']['metadata']['name']}")


async def _eventually(check: Callable[[], Any], what: str) -> None:
    for _ in range(600):  # a bound so a server that never recovers fails (not a timing)
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def _scenario(cluster: Cluster) -> None:
    for i in range(3):
        assert (await cluster.create(f"before-{i}"))[0] == 201
    status, listed = await cluster.request("GET", CONFIGMAPS)
    seen: list[str] = []
    watching = asyncio.create_task(_watch(cluster, listed["metadata"]["resourceVersion"], seen))

    cluster.fill()
    refusal: Any = None
    for i in range(_MAX_FILLING_WRITES):
        status, answer = await cluster.create(f"filling-{i}", _BLOB)
        if status != 201:
            refused, refusal = f"filling-{i}", (status, answer)
            break
    assert refusal is not None, "the disk never filled up"
    status, answer = refusal
    assert status == 500 and answer["kind"] == "Status", answer
    assert answer["reason"] == "InternalError" and "disk" in answer["message"], answer
    assert "full" in answer["message"], answer

    # Reads go on; the refused object is nowhere.
    assert (await cluster.request("GET", f"{CONFIGMAPS}/before-0"))[0] == 200
    status, listed = await cluster.request("GET", CONFIGMAPS)
    names = [item["metadata"]["name"] for item in listed["items"]]
    assert status == 200 and refused not in names and set(cluster.acknowledged) <= set(names)
    status, readyz = await cluster.request("GET", "/readyz")
    assert status == 500 and "[-]etcd failed: reason withheld" in readyz, readyz
    status, why = await cluster.request("GET", "/readyz/etcd")
    assert status == 500 and "full" in why, why
    assert (await cluster.request("GET", "/livez"))[0] == 200

    cluster.free()

    async def writable() -> bool:
        return (await cluster.create(f"after-{len(cluster.acknowledged)}"))[0] == 201

    await _eventually(writable, "writes resume once the disk has room")
    await _eventually(lambda: _ready(cluster), "/readyz passes again")
    await _eventually(lambda: _has(seen, f"ADDED {cluster.acknowledged[-1]}"), "the watch goes on")
    watching.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watching
    assert f"ADDED {refused}" not in seen
    assert seen == [f"ADDED {name}" for name in cluster.acknowledged[3:]], seen


async def _ready(cluster: Cluster) -> bool:
    return (await cluster.request("GET", "/readyz"))[0] == 200


async def _has(seen: list[str], line: str) -> bool:
    return line in seen


async def _names(cluster: Cluster) -> list[str]:
    status, listed = await cluster.request("GET", CONFIGMAPS)
    assert status == 200, listed
    return [item["metadata"]["name"] for item in listed["items"]]


# --- a real tmpfs under a server process -------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs: mounted here when this process may mount, else in a mount namespace
    of its own (``unshare``, no privilege needed) and reached through that namespace's
    root in ``/proc``, which the test and the server process both can."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount_point)]
    if _succeeds(mount):
        try:
            yield mount_point
        finally:
            subprocess.run(["umount", "-l", str(mount_point)], capture_output=True, timeout=30)
        return
    holder = _namespaced_tmpfs(mount)
    if holder is None:
        pytest.skip("neither mount nor unshare -rm can make a tmpfs here")
    try:
        yield Path(f"/proc/{holder.pid}/root{mount_point}")
    finally:
        holder.kill()
        holder.wait(timeout=30)


def _succeeds(command: list[str]) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=30).returncode == 0
    except OSError:
        return False


def _namespaced_tmpfs(mount: list[str]) -> subprocess.Popen[str] | None:
    """A process holding ``mount`` in a new user and mount namespace, or None."""
    script = f"{shlex.join(mount)} && echo mounted && exec sleep 3600"
    try:
        holder = subprocess.Popen(
            ["unshare", "-rm", "sh", "-c", script], stdout=subprocess.PIPE, text=True
        )
    except OSError:
        return None
    assert holder.stdout is not None
    if holder.stdout.readline().strip() == "mounted":
        return holder
    holder.wait(timeout=30)
    return None


def _fill_up(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 1):  # big blocks, then the last partial one
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)


async def test_a_full_tmpfs_refuses_writes_only_and_they_resume_when_space_returns(
    kube_apiserver_factory: Callable[..., LocalApiServer], small_disk: Path
) -> None:
    server = kube_apiserver_factory(data_dir=small_disk / "data")
    filler = small_disk / "filler"
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as session:
        cluster = Cluster(
            session,
            server.url,
            headers,
            server.ssl_context(),
            fill=lambda: _fill_up(filler),
            free=lambda: filler.unlink(),
        )
        await _scenario(cluster)
        await asyncio.to_thread(server.kill)  # acknowledged means durable: no clean stop
        await asyncio.to_thread(server.start)
        assert set(cluster.acknowledged) <= set(await _names(cluster))


# --- SQLite's page quota under a server in this event loop -------------------------------


@contextlib.asynccontextmanager
async def _served(server: LocalServer) -> AsyncIterator[str]:
    runner = web.AppRunner(server.build_app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    await server.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await server.stop()
        await runner.cleanup()


# The server's request keys are plain strings; aiohttp only recommends typed ones.
@pytest.mark.filterwarnings("ignore::aiohttp.web_exceptions.NotAppKeyWarning")
async def test_a_full_page_quota_refuses_writes_only_and_they_resume(tmp_path: Path) -> None:
    options = ServerOptions(token="disk-full-token", data_dir=tmp_path, simulate_node=False)
    server = LocalServer(options)
    db = server.storage._db

    def fill() -> None:
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count={pages + 2}")

    def free() -> None:
        db.execute("PRAGMA max_page_count=1073741823")

    headers = {"Authorization": "Bearer disk-full-token", "Content-Type": "application/json"}
    try:
        async with _served(server) as base, aiohttp.ClientSession() as session:
            cluster = Cluster(session, base, headers, False, fill, free)
            await _scenario(cluster)
    finally:
        server.close()
    reopened = LocalServer(options)
    try:
        kept = {obj["metadata"]["name"] for obj in reopened.storage.objects(("", "configmaps"))}
    finally:
        reopened.close()
    assert set(cluster.acknowledged) <= kept
    refused = {name for name in kept if name not in cluster.acknowledged}
    assert not any(name.startswith(("filling-", "after-")) for name in refused), refused
    assert os.stat(tmp_path / "kubeforge.db").st_mode & 0o077 == 0
