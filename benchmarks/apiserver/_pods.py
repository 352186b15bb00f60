"""Pods on the local server: creates/s with the simulated nodes running, and whether a
paged LIST of many pods keeps other clients waiting.

Entry points (both take the ``Client`` of ``__main__``):

* ``measure_pod_creates``: ``count`` pod creates, ``concurrency`` in flight, on a server
  whose scheduler and kubelets bind and start every pod meanwhile (their writes share
  the server with ours); the creates acknowledged per second and the server's CPU.
* ``fill_pods``: more pods of the same shape written straight into a stopped server's
  data directory, when creating them all through the API would take too long;
* ``measure_list_blocking``: a paged LIST (``limit=500``) of every pod while a probe
  GETs one small object every ``probe_interval`` seconds; the longest and the p99
  probe latency during the list against the same probe on an idle server. The
  longest is how long the list kept another client waiting at once; on a loaded
  machine that is mostly waiting for a core, so ``LoopStretch`` also reads the
  server's longest event-loop callback in CPU time (``loopwatch/sitecustomize.py``):
  what another client waits at least, on a free core.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubeforge.apiserver.server.app import DB_FILE
from kubeforge.apiserver.storage.sqlite import Storage, clone


@dataclass
class PodCreates:
    pods: int
    nodes: int
    seconds: float
    creates_per_second: float
    server_cpu_share: float
    server_cpu_us_per_create: float
    running_at_end: int  # pods the kubelets had started when the last create returned
    settle_seconds: float = 0.0  # from the last create until the server's CPU went quiet
    server_cpu_us_per_pod_settled: float = 0.0  # all the server did per pod until then


@dataclass
class ListBlocking:
    pods: int
    pages: int
    list_seconds: float
    probe_idle_p99_ms: float
    probe_idle_max_ms: float
    probe_during_list_p99_ms: float
    probe_during_list_max_ms: float
    probes_during_list: int
    server_cpu_ms_per_page: float = 0.0  # the server's CPU over the list (probes included)
    longest_loop_callback_ms: float = 0.0  # CPU time, during the list (see LoopStretch)


class LoopStretch:
    """The longest event-loop callback of server process ``pid`` since ``restart()``, in
    CPU time, as ``loopwatch/sitecustomize.py`` (on its PYTHONPATH) writes it to ``path``."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid, self.path = pid, path

    async def restart(self) -> None:
        os.kill(self.pid, signal.SIGUSR1)
        await asyncio.sleep(0.5)  # the handler runs when the server's loop wakes

    async def longest_ms(self) -> float:
        self.path.unlink(missing_ok=True)
        os.kill(self.pid, signal.SIGUSR2)
        for _ in range(200):  # a bound on the wait for the server to write it
            if self.path.exists() and self.path.read_text():
                return float(self.path.read_text()) * 1000
            await asyncio.sleep(0.05)
        return float("nan")


async def bounded(count: int, concurrency: int, job: Any) -> None:
    """Run ``job(i)`` for i in range(count), ``concurrency`` at a time."""
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < count:
            index = next_index
            next_index += 1
            await job(index)

    await asyncio.gather(*(worker() for _ in range(concurrency)))


def pod_body(name: str) -> dict[str, Any]:
    """A pod as a Deployment would make it: labels, an owner, resources, a probe."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": {"app": "bench", "pod-template-hash": "5d4f8c7b9"},
        },
        "spec": {
            "containers": [
                {
                    "name": "app",
                    "image": "registry.example.com/team/app:1.27.3",
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                    "env": [{"name": "MODE", "value": "production"}],
                    "resources": {
                        "requests": {"cpu": "10m", "memory": "16Mi"},
                        "limits": {"memory": "64Mi"},
                    },
                    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                }
            ]
        },
    }


async def measure_pod_creates(
    client: Any, namespace: str, count: int, concurrency: int, nodes: int, server_cpu: Any
) -> PodCreates:
    await client.namespace(namespace)
    cpu = server_cpu(client.server)
    start = time.perf_counter()

    async def create(index: int) -> None:
        await client.create_raw(namespace, "pods", pod_body(f"p-{index:06d}"))

    await bounded(count, concurrency, create)
    elapsed = time.perf_counter() - start
    busy = server_cpu(client.server) - cpu
    before_list = server_cpu(client.server)
    listed = json.loads(
        await client.get_bytes(
            f"/api/v1/namespaces/{namespace}/pods", fieldSelector="status.phase=Running"
        )
    )
    listing = server_cpu(client.server) - before_list
    settle_seconds, quiet_cpu = await _settle(client, server_cpu)
    return PodCreates(
        pods=count,
        nodes=nodes,
        seconds=elapsed,
        creates_per_second=count / elapsed,
        server_cpu_share=busy / elapsed,
        server_cpu_us_per_create=busy / count * 1e6,
        running_at_end=len(listed["items"]),
        settle_seconds=settle_seconds,
        server_cpu_us_per_pod_settled=(quiet_cpu - cpu - listing) / count * 1e6,
    )


async def _settle(
    client: Any, server_cpu: Any, interval: float = 0.5, quiet: float = 0.05, limit: float = 300
) -> tuple[float, float]:
    """Wait until the server's control plane has caught up with the creates (its CPU under
    ``quiet`` of a core for ``interval``): the seconds that took and the server's CPU
    total then. The creates' figure counts only what the server did while they were
    arriving; binding and starting the pods may go on after the last one."""
    began = time.perf_counter()
    last = server_cpu(client.server)
    while time.perf_counter() - began < limit:
        await asyncio.sleep(interval)
        now = server_cpu(client.server)
        if now - last < quiet * interval:
            return time.perf_counter() - began - interval, now
        last = now
    return time.perf_counter() - began, last


async def fill_pods(data_dir: Path, namespace: str, count: int) -> None:
    """Add pods to a stopped server's data directory until ``namespace`` has ``count``:
    copies of the first one there (as the API stored it: defaults, managedFields, status)
    with names and uids of their own, written straight into its storage, for the list
    measures only (creating 100,000 pods through the API takes an hour on a loaded
    machine). In the event loop, so the writes share one commit."""
    storage = Storage(data_dir / DB_FILE)
    try:
        model = storage.objects(("", "pods"), namespace)[0]
        for index in range(storage.count(("", "pods"), namespace), count):
            pod = clone(model)
            pod["metadata"].update(name=f"q-{index:06d}", uid=str(uuid.uuid4()))
            storage.create(("", "pods"), pod)
        await storage.durable()
    finally:
        storage.close()


async def _probe(client: Any, path: str, interval: float, stop: asyncio.Event) -> list[float]:
    latencies: list[float] = []
    while not stop.is_set():
        began = time.perf_counter()
        await client.get_bytes(path)
        latencies.append(time.perf_counter() - began)
        await asyncio.sleep(interval)
    return latencies


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000


async def measure_list_blocking(
    client: Any,
    namespace: str,
    pods: int,
    server_cpu: Any,
    stretch: LoopStretch | None = None,
    probe_interval: float = 0.005,
) -> ListBlocking:
    probe_path = "/api/v1/namespaces/default"
    stop = asyncio.Event()
    idle_task = asyncio.create_task(_probe(client, probe_path, probe_interval, stop))
    await asyncio.sleep(2.0)
    stop.set()
    idle = await idle_task

    stop = asyncio.Event()
    if stretch is not None:
        await stretch.restart()
    probe = asyncio.create_task(_probe(client, probe_path, probe_interval, stop))
    cpu = server_cpu(client.server)
    start = time.perf_counter()
    path = f"/api/v1/namespaces/{namespace}/pods"
    token, seen, pages = "", 0, 0
    while True:
        params = {"limit": "500", **({"continue": token} if token else {})}
        page = json.loads(await client.get_bytes(path, **params))
        seen += len(page["items"])
        pages += 1
        token = page["metadata"].get("continue", "")
        if not token:
            break
    list_seconds = time.perf_counter() - start
    busy = server_cpu(client.server) - cpu
    stop.set()
    during = await probe
    longest = await stretch.longest_ms() if stretch is not None else 0.0
    assert seen == pods, (seen, pods)
    return ListBlocking(
        pods=pods,
        pages=pages,
        list_seconds=list_seconds,
        probe_idle_p99_ms=_p99(idle),
        probe_idle_max_ms=max(idle) * 1000,
        probe_during_list_p99_ms=_p99(during),
        probe_during_list_max_ms=max(during) * 1000,
        probes_during_list=len(during),
        server_cpu_ms_per_page=busy / pages * 1000,
        longest_loop_callback_ms=longest,
    )


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000
