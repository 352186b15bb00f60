"""/healthz and /readyz as controller-runtime answers them, served by a manager's probe server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest

from kubeforge.config import ClientConfig
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.runtime import Manager, ManagerOptions

# Nothing listens on port 1: the caches never sync, so readiness fails.
UNREACHABLE = ClientConfig(server="http://127.0.0.1:1")


class Probe:
    def __init__(self, base: str, session: aiohttp.ClientSession) -> None:
        self.base = base
        self.session = session

    async def get(self, path: str) -> tuple[int, str]:
        async with self.session.get(self.base + path) as response:
            return response.status, await response.text()


@pytest.fixture
async def probe() -> AsyncIterator[tuple[Manager, Probe]]:
    options = ManagerOptions(health_probe_bind_address="127.0.0.1:0")
    mgr = Manager(UNREACHABLE, options=options)
    mgr.cache.store(ConfigMap)

    async def database() -> None:
        raise ConnectionError("database unreachable")

    mgr.add_healthz_check("database", database)
    running = asyncio.create_task(mgr.run())
    server = mgr.probe_server
    assert server is not None
    for _ in range(1000):
        if server.address is not None:
            break
        await asyncio.sleep(0.01)
    async with aiohttp.ClientSession() as session:
        yield mgr, Probe(server.url, session)
    mgr.stop()
    await running


async def test_an_unsynced_cache_fails_readyz_and_lists_every_check(probe):
    _, http = probe
    status, body = await http.get("/readyz")
    assert status == 500
    assert body == ("[-]informer-sync failed: reason withheld\n[+]ping ok\nreadyz check failed\n")


async def test_a_single_check_answers_with_its_reason(probe):
    _, http = probe
    assert await http.get("/readyz/informer-sync") == (
        500,
        "internal server error: caches not synced yet: configmaps\n",
    )
    assert await http.get("/readyz/ping") == (200, "ok")
    assert (await http.get("/readyz/nope"))[0] == 404


async def test_excluded_checks_pass_and_unknown_exclusions_are_warned_about(probe):
    _, http = probe
    assert await http.get("/readyz?exclude=informer-sync") == (200, "ok")
    status, body = await http.get("/readyz?exclude=informer-sync&exclude=nope&verbose")
    assert status == 200
    assert body.splitlines() == [
        "[+]informer-sync excluded: ok",
        "[+]ping ok",
        'warn: some health checks cannot be excluded: no matches for "nope"',
        "readyz check passed",
    ]


async def test_healthz_runs_its_own_checks_async_ones_included(probe):
    mgr, http = probe
    status, body = await http.get("/healthz")
    assert (status, body) == (
        500,
        "[-]database failed: reason withheld\n[+]ping ok\nhealthz check failed\n",
    )
    assert await http.get("/healthz/database") == (
        500,
        "internal server error: database unreachable\n",
    )
    assert await http.get("/healthz/?exclude=database") == (200, "ok")
    assert await http.get("/healthz?exclude=database&verbose") == (
        200,
        "[+]database excluded: ok\n[+]ping ok\nhealthz check passed\n",
    )
    with pytest.raises(ValueError, match="already exists"):
        mgr.add_healthz_check("database", lambda: None)
