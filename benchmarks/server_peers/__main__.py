"""The local API server vs kmock's emulator on the same work: ``python -m benchmarks.server_peers``.

kmock (``KubernetesEmulator``) is the other pip-installable Kubernetes API stand-in
for Python. Both run as their own process on loopback and get the same requests
from one aiohttp client in this process (``--concurrency`` in flight):

- **creates/s**: ``--objects`` ConfigMaps POSTed;
- **updates/s**: one merge PATCH to each (kmock has no PUT);
- **list 10k**: seconds to GET a list of ``--list-size`` ConfigMaps (median of 5);
- **watch fan-out**: ``--watchers`` watches on one namespace, then ``--events``
  PATCHes of one object, one every 20 ms; latency from sending the write to each
  watcher reading its event, p50 and p99 over all watchers and events.

What differs and is not levelled: the local server speaks TLS and checks a bearer
token on every request, keeps an MVCC history and validates objects; kmock is
plain HTTP with no authentication and stores bodies as given. ``--quick`` runs a
tenth of the work. Writes ``benchmarks/results/server_peers.json`` and ``.png``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from benchmarks._report import (
    bar_chart,
    clean_exit_on_sigterm,
    environment,
    print_table,
    write_results,
)

from kubeforge.testing import LocalApiServer

_HERE = Path(__file__).resolve().parent


@dataclass
class Target:
    name: str
    url: str
    headers: dict[str, str]
    ssl: ssl.SSLContext | bool


@dataclass
class Result:
    name: str
    objects: int  # ConfigMaps created (and updated, and listed) in the write phases
    creates_per_second: float
    updates_per_second: float
    list_seconds: float  # a list of ``objects`` ConfigMaps
    list_bytes: int
    list_10k_seconds: float | None  # a list of --list-size (None: not attempted)
    watch_p50_ms: float
    watch_p99_ms: float
    watch_events_received: int
    watch_events_expected: int


def _configmap(name: str, namespace: str) -> bytes:
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": "bench"}},
        "data": {"config.yaml": "replicas: 3\nimage: nginx:1.27\n" * 4},
    }
    return orjson.dumps(body)


async def _bounded(concurrency: int, jobs: list[Any], budget: float | None = None) -> int:
    """Run the jobs ``concurrency`` at a time; after ``budget`` seconds start no more.

    Returns how many ran (jobs never started are closed, never awaited).
    """
    gate = asyncio.Semaphore(concurrency)
    deadline = None if budget is None else time.perf_counter() + budget
    done = 0

    async def one(job: Any) -> None:
        nonlocal done
        async with gate:
            if deadline is not None and time.perf_counter() > deadline:
                job.close()
                return
            await job
            done += 1

    await asyncio.gather(*(one(job) for job in jobs))
    return done


class Bench:
    def __init__(self, target: Target, session: aiohttp.ClientSession, concurrency: int) -> None:
        self.target, self.session, self.concurrency = target, session, concurrency

    def _url(self, namespace: str, name: str = "") -> str:
        path = f"/api/v1/namespaces/{namespace}/configmaps"
        return self.target.url + path + (f"/{name}" if name else "")

    async def _send(self, method: str, url: str, body: bytes | None, content_type: str) -> bytes:
        headers = {**self.target.headers, "Content-Type": content_type}
        async with self.session.request(
            method, url, data=body, headers=headers, ssl=self.target.ssl
        ) as response:
            data = await response.read()
            if response.status >= 300:
                raise RuntimeError(f"{method} {url}: {response.status} {data[:300]!r}")
            return data

    async def create(
        self, namespace: str, names: list[str], budget: float | None = None
    ) -> tuple[int, float]:
        """POST ConfigMaps named ``names`` (in order); returns (how many, per second)."""
        url = self._url(namespace)
        started = time.perf_counter()
        jobs = [
            self._send("POST", url, _configmap(n, namespace), "application/json") for n in names
        ]
        done = await _bounded(self.concurrency, jobs, budget)
        return done, done / (time.perf_counter() - started)

    async def update(self, namespace: str, names: list[str], budget: float | None = None) -> float:
        patch = orjson.dumps({"data": {"extra": "changed"}})
        started = time.perf_counter()
        jobs = [
            self._send("PATCH", self._url(namespace, n), patch, "application/merge-patch+json")
            for n in names
        ]
        done = await _bounded(self.concurrency, jobs, budget)
        return done / (time.perf_counter() - started)

    async def list(self, namespace: str) -> tuple[float, int]:
        times, size = [], 0
        for _ in range(5):
            started = time.perf_counter()
            data = await self._send("GET", self._url(namespace), None, "application/json")
            times.append(time.perf_counter() - started)
            size = len(data)
        return statistics.median(times), size

    async def fan_out(self, namespace: str, watchers: int, events: int) -> tuple[list[float], int]:
        await self._send(
            "POST", self._url(namespace), _configmap("hot", namespace), "application/json"
        )
        sent: dict[str, float] = {}
        latencies: list[float] = []
        ready = asyncio.Semaphore(0)

        async def watch() -> None:
            url = self._url(namespace) + "?watch=true"
            async with self.session.get(
                url, headers=self.target.headers, ssl=self.target.ssl, timeout=None
            ) as response:
                ready.release()
                buffer = b""
                async for chunk in response.content.iter_any():
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    now = time.perf_counter()
                    for line in lines:
                        if not line.strip():
                            continue
                        data = orjson.loads(line)["object"].get("data") or {}
                        seq = data.get("seq")
                        if seq in sent:
                            latencies.append(now - sent[seq])

        tasks = [asyncio.create_task(watch()) for _ in range(watchers)]
        for _ in range(watchers):
            await ready.acquire()
        await asyncio.sleep(0.5)  # let every stream get past its initial events
        for i in range(events):
            seq = str(i)
            sent[seq] = time.perf_counter()
            patch = orjson.dumps({"data": {"seq": seq}})
            await self._send(
                "PATCH", self._url(namespace, "hot"), patch, "application/merge-patch+json"
            )
            await asyncio.sleep(0.02)
        await asyncio.sleep(1.0)  # stragglers
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return latencies, watchers * events


async def _namespaces(bench: Bench, names: list[str]) -> None:
    for name in names:
        body = orjson.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        url = bench.target.url + "/api/v1/namespaces"
        # kmock needs no namespace objects and may not serve them.
        with contextlib.suppress(RuntimeError):
            await bench._send("POST", url, body, "application/json")


async def measure(
    target: Target, args: argparse.Namespace, *, budget: float | None, objects: int, full_list: bool
) -> Result:
    """The four workloads; ``budget`` caps each write phase, ``objects`` sizes it."""
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        bench = Bench(target, session, args.concurrency)
        await _namespaces(bench, ["writes", "listing", "fanout"])
        names = [f"cm-{i}" for i in range(objects)]
        created, creates = await bench.create("writes", names, budget)
        updates = await bench.update("writes", names[:created], budget)
        list_seconds, list_bytes = await bench.list("writes")
        big_list = None
        if full_list:
            await bench.create("listing", [f"item-{i}" for i in range(args.list_size)])
            big_list = round((await bench.list("listing"))[0], 4)
        latencies, expected = await bench.fan_out("fanout", args.watchers, args.events)
    ordered = sorted(latencies) or [float("nan")]
    return Result(
        name=target.name,
        objects=created,
        creates_per_second=round(creates, 1),
        updates_per_second=round(updates, 1),
        list_seconds=round(list_seconds, 4),
        list_bytes=list_bytes,
        list_10k_seconds=big_list,
        watch_p50_ms=round(1000 * ordered[len(ordered) // 2], 2),
        watch_p99_ms=round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2),
        watch_events_received=len(latencies),
        watch_events_expected=expected,
    )


def _run_local(args: argparse.Namespace, objects: int) -> Result:
    with LocalApiServer(simulate_node=False) as server:
        target = Target(
            "kubeforge local server",
            server.url,
            {"Authorization": f"Bearer {server.token}"},
            server.ssl_context(),
        )
        return asyncio.run(measure(target, args, budget=None, objects=objects, full_list=True))


def _run_kmock(args: argparse.Namespace) -> Result:
    """kmock first, each write phase capped at ``--kmock-budget`` seconds: its store is
    a list scanned per request, so thousands of objects take minutes."""
    port_file = Path(tempfile.mkdtemp(prefix="kubeforge-bench-kmock-")) / "port"
    process = subprocess.Popen(
        [sys.executable, str(_HERE / "_kmock_server.py"), str(port_file)],
        stdin=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            if port_file.exists() and port_file.read_text().strip():
                break
            if process.poll() is not None:
                raise RuntimeError("kmock's server exited before listening")
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port_file.read_text().strip()}"
        target = Target("kmock KubernetesEmulator", url, {}, False)
        return asyncio.run(
            measure(target, args, budget=args.kmock_budget, objects=args.objects, full_list=False)
        )
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the work")
    parser.add_argument("--objects", type=int, default=None, help="ConfigMaps created, updated")
    parser.add_argument("--list-size", type=int, default=None)
    parser.add_argument("--watchers", type=int, default=None)
    parser.add_argument("--events", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--kmock-budget", type=float, default=None, help="seconds per kmock write phase"
    )
    args = parser.parse_args()
    clean_exit_on_sigterm()
    scale = 10 if args.quick else 1
    args.objects = args.objects or 2000 // scale
    args.list_size = args.list_size or 10_000 // scale
    args.watchers = args.watchers or 100 // scale
    args.events = args.events or 50 // (scale // 2 or 1)
    args.kmock_budget = args.kmock_budget or (5.0 if args.quick else 30.0)

    print("  kmock ...", flush=True)
    theirs = _run_kmock(args)
    print(f"  local server (the same {theirs.objects} objects kmock managed) ...", flush=True)
    ours = _run_local(args, theirs.objects)
    results = [ours, theirs]
    rows = []
    for r in results:
        rows.append([
            r.name, r.objects, r.creates_per_second, r.updates_per_second, r.list_seconds,
            r.list_10k_seconds, r.watch_p50_ms, r.watch_p99_ms,
            f"{r.watch_events_received}/{r.watch_events_expected}",
            round(r.creates_per_second / ours.creates_per_second, 3),
            round(r.watch_p99_ms / ours.watch_p99_ms, 1),
        ])  # fmt: skip
    print(
        f"\nup to {args.objects} creates and updates (kmock: {args.kmock_budget:g}s per phase), "
        f"list of those, list of {args.list_size}, {args.watchers} watchers x {args.events} events"
    )
    headers = ["server", "objects", "creates/s", "updates/s", "list s", f"list {args.list_size} s"]
    headers += ["watch p50 ms", "watch p99 ms", "events seen", "creates x", "p99 x"]
    print_table(headers, rows)
    payload = {
        "benchmark": "local API server vs kmock's KubernetesEmulator",
        **environment("benchmarks.server_peers"),
        "parameters": {
            k: getattr(args, k)
            for k in ("objects", "list_size", "watchers", "events", "concurrency")
        },
        "not_levelled": "the local server does TLS, bearer-token checks, MVCC and validation; "
        "kmock is plain HTTP without auth",
        "ratios_are": "peer / kubeforge",
        "results": [asdict(r) for r in results],
    }
    path = write_results("server_peers", payload, quick=args.quick)
    chart = bar_chart(
        "server_peers",
        "Local API server vs kmock",
        ["creates/s", "updates/s", f"list of {theirs.objects} (s)", "watch p99 (ms)"],
        {
            r.name: [r.creates_per_second, r.updates_per_second, r.list_seconds, r.watch_p99_ms]
            for r in results
        },
        quick=args.quick,
    )
    print(f"\nwrote {path}" + (f" and {chart}" if chart else ""))


if __name__ == "__main__":
    main()
