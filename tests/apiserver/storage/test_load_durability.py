"""Durability and fan-out under load: acknowledged writes survive SIGKILL with their
resourceVersions, and a hundred watchers each see every event of a burst, in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import aiohttp
from kf_http import Api, configmap, open_api

from kubeforge.testing import LocalApiServer

_PATH = "/api/v1/namespaces/default/configmaps"


async def _churn(api: Api, prefix: str, rounds: int) -> dict[str, dict[str, Any] | None]:
    """Create, update twice and (every third object) delete, one object at a time;
    returns the last acknowledged state of each name (None: deleted)."""
    acknowledged: dict[str, dict[str, Any] | None] = {}
    for i in range(rounds):
        name = f"{prefix}-{i}"
        created = await api.post(_PATH, configmap(name, step="0"))
        assert created.status == 201, created.body
        acknowledged[name] = created.body
        current = created.body
        for step in ("1", "2"):
            updated = await api.put(f"{_PATH}/{name}", {**current, "data": {"step": step}})
            assert updated.status == 200, updated.body
            acknowledged[name] = current = updated.body
        if i % 3 == 0:
            deleted = await api.delete(f"{_PATH}/{name}")
            assert deleted.status == 200, deleted.body
            acknowledged[name] = None
    return acknowledged


async def test_every_acknowledged_write_survives_sigkill_with_its_resource_version(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    async with await open_api(server) as session:
        api = Api(server, session)
        start = (await api.get(_PATH)).body["metadata"]["resourceVersion"]
        results = await asyncio.gather(*(_churn(api, f"w{n}", 25) for n in range(8)))
    acknowledged = {name: state for result in results for name, state in result.items()}
    server.kill()  # no shutdown path runs: only what was committed counts
    server.start()
    async with await open_api(server) as session:
        api = Api(server, session)
        for name, state in acknowledged.items():
            got = await api.get(f"{_PATH}/{name}")
            if state is None:
                assert got.status == 404, name
            else:
                assert got.status == 200, name
                assert got.body == state  # same content, same resourceVersion
        # The history survived too: a watch from before the churn replays all of it in order.
        expected = 8 * 25 * 3 + sum(1 for state in acknowledged.values() if state is None)
        revisions = []
        async for event in api.watch(_PATH, resourceVersion=start, timeoutSeconds="5"):
            revisions.append(int(event["object"]["metadata"]["resourceVersion"]))
            if len(revisions) == expected:
                break
    assert len(revisions) == expected
    assert revisions == sorted(set(revisions))


async def test_writes_in_flight_during_sigkill_are_either_absent_or_complete(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    acknowledged: dict[str, str] = {}
    async with await open_api(server) as session:
        api = Api(server, session)

        async def writer(n: int) -> None:
            for i in range(1000):
                try:
                    reply = await api.post(_PATH, configmap(f"f{n}-{i}", n=str(n)))
                except (aiohttp.ClientError, OSError):
                    return  # the server is gone
                if reply.status != 201:
                    return
                acknowledged[reply.body["metadata"]["name"]] = reply.body["metadata"][
                    "resourceVersion"
                ]

        tasks = [asyncio.create_task(writer(n)) for n in range(4)]
        while len(acknowledged) < 100:
            await asyncio.sleep(0.01)
        server.kill()
        await asyncio.gather(*tasks)
    server.start()
    async with await open_api(server) as session:
        api = Api(server, session)
        listed = (await api.get(_PATH)).body["items"]
    stored = {item["metadata"]["name"]: item for item in listed}
    for name, rv in acknowledged.items():
        assert stored[name]["metadata"]["resourceVersion"] == rv
    for item in stored.values():
        if item["metadata"]["name"].startswith("f"):
            assert item["data"] == {"n": item["metadata"]["name"][1]}  # never half-written


async def _watch_all(
    session: aiohttp.ClientSession, server: LocalApiServer, path: str, rv: str, count: int
) -> list[tuple[str, str, str]]:
    seen: list[tuple[str, str, str]] = []
    params = {"watch": "true", "resourceVersion": rv, "timeoutSeconds": "60"}
    headers = {"Authorization": f"Bearer {server.token}"}
    async with session.get(server.url + path, params=params, headers=headers) as response:
        assert response.status == 200
        async for line in response.content:
            event = json.loads(line)
            meta = event["object"]["metadata"]
            seen.append((event["type"], meta["name"], meta["resourceVersion"]))
            if len(seen) == count:
                break
    return seen


async def test_a_hundred_watchers_each_see_every_event_of_a_burst_in_order(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    truth: list[tuple[str, str, str]] = []

    async def burst(n: int) -> None:
        for i in range(25):
            name = f"b{n}-{i}"
            created = (await api.post(path, configmap(name))).body
            truth.append(("ADDED", name, created["metadata"]["resourceVersion"]))
            updated = (await api.put(f"{path}/{name}", {**created, "data": {"v": "2"}})).body
            truth.append(("MODIFIED", name, updated["metadata"]["resourceVersion"]))

    total = 8 * 25 * 2
    connector = aiohttp.TCPConnector(ssl=api.server.ssl_context(), limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        watchers = [
            asyncio.create_task(_watch_all(session, api.server, path, start, total))
            for _ in range(100)
        ]
        await asyncio.gather(*(burst(n) for n in range(8)))
        seen = await asyncio.gather(*watchers)
    expected = sorted(truth, key=lambda event: int(event[2]))
    assert all(events == expected for events in seen)


async def test_custom_resources_and_their_crd_survive_sigkill_and_are_served_again(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "keepers.durable.example.com"},
        "spec": {
            "group": "durable.example.com",
            "names": {"plural": "keepers", "kind": "Keeper"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {"n": {"type": "integer", "maximum": 5}},
                                }
                            },
                        }
                    },
                }
            ],
        },
    }
    path = "/apis/durable.example.com/v1/namespaces/default/keepers"
    async with await open_api(server) as session:
        api = Api(server, session)
        assert (
            await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        ).status == 201
        body = {"apiVersion": "durable.example.com/v1", "kind": "Keeper", "metadata": {"name": "k"}}
        created = (await api.post(path, {**body, "spec": {"n": 1}})).body
    server.kill()
    server.start()
    async with await open_api(server) as session:
        api = Api(server, session)
        assert (await api.get(f"{path}/k")).body == created
        refused = await api.post(path, {**body, "metadata": {"name": "big"}, "spec": {"n": 9}})
        assert refused.status == 422  # the schema is enforced again after the restart
