"""Fill a local API server with realistic pods, measure them, and churn them.

Entry points: ``load_pods(client, count)``, ``compact_json_bytes(client)`` and
``churn(client, count, rate, events)``. Pods are ``benchmarks.models._pods.pod``
(the decode benchmark's kubelet-style pod) as a client would create them: no
uid, resourceVersion, managedFields or status; spread over 20 namespaces.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Iterator
from typing import Any

import orjson
from benchmarks.models._pods import pod

from kubeforge.client import Client

__all__ = ["NAMESPACES", "churn", "compact_json_bytes", "load_pods", "pod_path"]

NAMESPACES = [f"team-{i:02d}" for i in range(20)]
_CONCURRENCY = 64


def _creatable(index: int) -> tuple[str, bytes]:
    body = pod(index)
    meta = body["metadata"]
    for server_owned in ("managedFields", "resourceVersion", "uid", "creationTimestamp"):
        meta.pop(server_owned, None)
    body.pop("status", None)
    body |= {"apiVersion": "v1", "kind": "Pod"}
    return f"/api/v1/namespaces/{meta['namespace']}/pods", orjson.dumps(body)


def pod_path(index: int) -> str:
    """The URL of pod number ``index``."""
    meta = pod(index)["metadata"]
    return f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}"


async def _bounded(jobs: Iterator[Awaitable[Any]], concurrency: int) -> None:
    """Await ``jobs``, at most ``concurrency`` at a time, taking each only when due."""

    async def worker() -> None:
        for job in jobs:  # the one iterator is shared: each job is taken once
            await job

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def load_pods(client: Client, count: int) -> float:
    """Create the namespaces and ``count`` pods; returns the creates per second."""
    for name in NAMESPACES:
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        await client.request("POST", "/api/v1/namespaces", body=namespace)
    started = time.perf_counter()

    async def create(index: int) -> None:
        path, body = _creatable(index)
        await client.request("POST", path, body=body)
        if index and index % 10_000 == 0:
            rate = index / (time.perf_counter() - started)
            print(f"  {index:,} pods created ({rate:,.0f}/s)", flush=True)

    await _bounded((create(index) for index in range(count)), _CONCURRENCY)
    return count / (time.perf_counter() - started)


async def compact_json_bytes(client: Client) -> tuple[int, int]:
    """How many pods the server holds and their compact JSON size without managedFields."""
    total = count = 0
    token: str | None = None
    while True:
        params: dict[str, str | int] = {"limit": 500}
        if token:
            params["continue"] = token
        page = await client.request("GET", "/api/v1/pods", params=params)
        for item in page["items"]:
            item["metadata"].pop("managedFields", None)
            total += len(orjson.dumps(item))
            count += 1
        token = page["metadata"].get("continue")
        if not token:
            return count, total


async def churn(client: Client, count: int, rate: float, events: int, tag: str) -> float:
    """``events`` label patches over the first ``count`` pods, paced at ``rate`` per second;
    returns the rate reached. ``tag`` makes every run's labels new (a patch that changes
    nothing sends no watch event)."""
    started = time.perf_counter()
    patch = "application/merge-patch+json"
    in_flight: set[asyncio.Task[Any]] = set()
    for n in range(events):
        due = started + n / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        body = orjson.dumps({"metadata": {"labels": {"churn": f"{tag}-{n}"}}})
        request = client.request("PATCH", pod_path(n % count), body=body, content_type=patch)
        task = asyncio.ensure_future(request)
        in_flight.add(task)
        task.add_done_callback(in_flight.discard)
    await asyncio.gather(*in_flight)
    return events / (time.perf_counter() - started)
