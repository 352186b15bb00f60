"""The watch fan-out phase of ``python -m benchmarks.apiserver``.

``--watchers`` raw watch streams open before creates arrive at ``--rate`` per second
(0: as fast as the server takes them); every watcher checks that it got each of its
events once, in resourceVersion order, and every tenth records the latency from
sending each write to receiving its event. ``namespaces`` spreads the watchers and the
writes over that many namespaces (watcher i and write j on namespace i and j modulo
it): with 100, each watcher is one of 100 namespaced watches that an event mostly
does not concern, which is what the server's routing by namespace is for.

Entry points: ``measure_fan_outs(client, args, server_cpu, own_cpu)`` (the three runs the
benchmark makes: paced, flat out, paced and spread over ``--watchers`` namespaces) and
``measure_fan_out(client, namespace, watchers, rate, seconds, concurrency, server_cpu,
own_cpu, namespaces=1)`` (one run); ``client`` is a ``__main__.Client``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import statistics
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from benchmarks.apiserver._pods import bounded
from benchmarks.apiserver._trace import ServerTrace
from benchmarks.apiserver._watch_stream import read_watch

__all__ = ["FanOut", "Watcher", "measure_fan_out", "measure_fan_outs"]

_NAME = re.compile(rb'"metadata":{"name":"ev-(\d+)"')
_RV = re.compile(rb'"resourceVersion":"(\d+)"')
# Latencies are recorded on every tenth watcher (all of its events); every watcher
# checks that it got every event, in order.
_TIMED_EVERY = 10


@dataclass
class FanOut:
    # What the report's table shows first (it keeps the first 13 columns).
    watchers: int
    namespaces: int
    target_rate: float
    achieved_rate: float
    latency_p50_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    server_cpu_us_per_write: float
    server_cpu_share: float
    client_cpu_share: float
    all_in_order: bool
    every_watcher_complete: bool
    events_received: int
    events_expected: int
    writes: int
    write_seconds: float
    trace: dict[str, Any] | None = None
    """With ``--trace``: where the latency went (``_trace.ServerTrace.breakdown``)."""


class Watcher:
    """One raw watch stream (``_watch_stream``): checks resourceVersion order as events
    arrive and keeps, per read, the arrival time and the written objects' indexes, from
    which the latencies are worked out once the run is over (so the client's work per
    event during the run is a few C-level scans, not a Python loop)."""

    def __init__(self, timed: bool) -> None:
        self.timed = timed
        """Record latencies (a sample of the watchers does: the client's CPU is the
        machine's too); every watcher checks order and completeness."""
        self.arrivals: list[tuple[float, int]] = []  # (time, events in this read)
        self.indexes = array("l")  # the ``ev-N`` index of every event, in arrival order
        self.rvs = array("l")  # and its resourceVersion
        self.received = 0
        self.in_order = True
        self.last_rv = 0
        self.expected = 0
        self.ready = asyncio.Event()

    async def run(self, client: Any, path: str, rv: str, expected: int) -> None:
        self.expected = expected
        params = {"watch": "true", "resourceVersion": rv, "timeoutSeconds": "600"}
        await read_watch(client.server, path, params, self.ready.set, self.feed)

    def feed(self, now: float, complete: bytes) -> bool:
        """One read's complete lines, arrived at ``now``; True once every event came."""
        count = complete.count(b"\n")
        rvs = list(map(int, _RV.findall(complete)))
        # Every event is one line carrying one resourceVersion, and the versions
        # only go up: strictly increasing, from above the last one seen.
        self.in_order = (
            self.in_order
            and len(rvs) == count
            and rvs[0] > self.last_rv
            and rvs == sorted(rvs)
            and len(set(rvs)) == count
        )
        self.last_rv = rvs[-1] if rvs else self.last_rv
        if self.timed:
            names = _NAME.findall(complete)
            self.in_order = self.in_order and len(names) == count
            self.indexes.extend(map(int, names))
            self.rvs.extend(rvs)
            self.arrivals.append((now, count))
        self.received += count
        return self.received >= self.expected

    def reads(self) -> Iterator[tuple[float, list[int], list[int]]]:
        """Per read (timed watchers): its arrival, resourceVersions and ``ev-N`` indexes."""
        position = 0
        for now, count in self.arrivals:
            end = position + count
            yield now, self.rvs[position:end].tolist(), self.indexes[position:end].tolist()
            position = end

    def latencies(self, sent: dict[int, float]) -> list[float]:
        out: list[float] = []
        position = 0
        for now, count in self.arrivals:
            out += [now - sent[i] for i in self.indexes[position : position + count]]
            position += count
        return out


class _QuietCollector:
    """Python's cyclic collector off in this (client) process while a run is timed: the
    100 watchers stand for 100 processes, and a collection here (up to ~50 ms once the
    watchers' records grow) would stop all of them at once and be counted as the
    server's delivery latency. Reference counting still frees what the run drops."""

    def __init__(self) -> None:
        self.enabled = gc.isenabled()
        gc.collect()
        gc.freeze()
        gc.disable()

    def close(self) -> None:
        gc.unfreeze()
        if self.enabled:
            gc.enable()


async def measure_fan_out(
    client: Any,
    namespace: str,
    watchers: int,
    rate: float,
    seconds: float,
    concurrency: int,
    server_cpu: Callable[[Any], float],
    own_cpu: Callable[[], float],
    namespaces: int = 1,
    trace: ServerTrace | None = None,
) -> FanOut:
    """One fan-out run against ``client``'s server (see the module docstring); with
    ``trace``, also where its latency went."""
    names = [namespace] if namespaces == 1 else [f"{namespace}-{k}" for k in range(namespaces)]
    for name in names:
        await client.namespace(name)
    paths = [f"/api/v1/namespaces/{name}/configmaps" for name in names]
    rv = json.loads(await client.get_bytes(paths[0]))["metadata"]["resourceVersion"]
    count = int(rate * seconds) if rate else int(seconds * 4000)
    # Write j goes to namespace j % namespaces, so each namespace gets this many:
    expected = [len(range(k, count, len(names))) for k in range(len(names))]
    sent: dict[int, float] = {}
    streams = [Watcher(timed=i % _TIMED_EVERY == 0) for i in range(watchers)]
    tasks = [
        asyncio.create_task(w.run(client, paths[i % len(names)], rv, expected[i % len(names)]))
        for i, w in enumerate(streams)
    ]
    await asyncio.gather(*(w.ready.wait() for w in streams))
    if trace is not None:
        trace.restart()
    cpu, own = server_cpu(client.server), own_cpu()
    start = time.perf_counter()
    quiet = _QuietCollector()

    async def create(index: int) -> None:
        if rate:
            delay = start + index / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
        sent[index] = time.perf_counter()
        await client.create(names[index % len(names)], f"ev-{index}")

    await bounded(count, concurrency, create)
    write_seconds = time.perf_counter() - start
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=120)
    finally:
        quiet.close()
    busy = server_cpu(client.server) - cpu
    elapsed = time.perf_counter() - start
    client_busy = own_cpu() - own
    latencies = sorted(x for w in streams for x in w.latencies(sent))
    wanted = [expected[i % len(names)] for i in range(watchers)]
    breakdown = None
    if trace is not None:
        breakdown = await trace.breakdown(sent, (r for w in streams if w.timed for r in w.reads()))
    return FanOut(
        watchers=watchers,
        namespaces=len(names),
        target_rate=rate,
        writes=count,
        write_seconds=write_seconds,
        achieved_rate=count / write_seconds,
        events_expected=sum(wanted),
        events_received=sum(w.received for w in streams),
        all_in_order=all(w.in_order for w in streams),
        every_watcher_complete=all(w.received == n for w, n in zip(streams, wanted, strict=True)),
        latency_p50_ms=statistics.median(latencies) * 1000,
        latency_p99_ms=latencies[int(len(latencies) * 0.99) - 1] * 1000,
        latency_max_ms=latencies[-1] * 1000,
        server_cpu_share=busy / elapsed,
        client_cpu_share=client_busy / elapsed,
        server_cpu_us_per_write=busy / count * 1e6,
        trace=breakdown,
    )


async def measure_fan_outs(
    client: Any, args: Any, server_cpu: Callable[[Any], float], own_cpu: Callable[[], float]
) -> list[FanOut]:
    """The benchmark's three runs, from ``args`` (``rate``, ``watchers``, ``seconds``,
    ``concurrency``, ``trace``): paced, flat out, and paced with a namespace per watcher."""
    trace = ServerTrace.of(client.server) if getattr(args, "trace", False) else None
    runs = [
        (args.rate, "bench-watch-paced", 1),
        (0.0, "bench-watch-flat-out", 1),
        (args.rate, "bench-watch-spread", args.watchers),
    ]
    out = []
    for rate, namespace, namespaces in runs:
        out.append(
            await measure_fan_out(
                client,
                namespace,
                args.watchers,
                rate,
                args.seconds,
                args.concurrency,
                server_cpu,
                own_cpu,
                namespaces,
                trace,
            )
        )
    return out
