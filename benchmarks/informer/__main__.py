"""Informer event throughput, watch to handler: ``python -m benchmarks.informer``.

Two measurements:

- **in-process**: ``--events`` watch lines of realistic pods (4.4 KB each, as the
  server writes them) go through the real client codec, the watcher, the store and
  the handlers; no network. This is kubeforge's own cost per event, with one and
  with three handlers, with and without the ``drop_managed_fields`` transform, next
  to the bare cost of decoding the line.
- **local server** (skip with ``--no-server``): ``--server-events`` ConfigMaps are
  created on a local API server while an informer watches them; the clock runs
  from the first create until the handler has seen the last one. The official
  ``kubernetes`` ``SharedInformer`` runs the same workload against the same server.
  Both are bounded by how fast the server accepts writes, which is printed too.

Results are printed and written to ``benchmarks/results/informer.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import platform
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson
from benchmarks.cache._sources import StaticListWatch
from benchmarks.models._pods import pod

from kubeforge.cache import Informer, drop_managed_fields
from kubeforge.client._codec import typed_codec
from kubeforge.models.core_v1 import Pod

RESULTS = Path(__file__).resolve().parent.parent / "results" / "informer.json"
_EMPTY_LIST = b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}'


@dataclass
class Result:
    name: str
    label: str
    events: int
    seconds: float
    events_per_second: float = 0.0
    us_per_event: float = 0.0
    writes_per_second: float | None = None  # server runs: how fast the server took writes


def _watch_lines(count: int) -> list[bytes]:
    lines = []
    for i in range(count):
        obj = pod(i % 2000)
        obj["metadata"]["resourceVersion"] = str(200_000 + i)
        lines.append(orjson.dumps({"type": "MODIFIED" if i >= 2000 else "ADDED", "object": obj}))
    return lines


async def _pipeline(lines: list[bytes], handlers: int, transform: Any) -> float:
    source = StaticListWatch(Pod, _EMPTY_LIST, lines)
    informer: Informer[Pod] = Informer(source, transform=transform, name="pods")
    seen = 0
    done = asyncio.Event()

    def count(*_: Any) -> None:
        nonlocal seen
        seen += 1
        if seen == len(lines):
            done.set()

    informer.add_handler(on_add=count, on_update=lambda old, new: count())
    for _ in range(handlers - 1):
        informer.add_handler(on_add=lambda obj: None, on_update=lambda old, new: None)
    start = time.perf_counter()
    informer.start()
    await done.wait()
    elapsed = time.perf_counter() - start
    await informer.stop()
    return elapsed


def in_process(events: int, repeat: int) -> list[Result]:
    lines = _watch_lines(events)
    results = []
    decode = typed_codec(Pod).decode_event
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        for line in lines:
            decode(line)
        best = min(best, time.perf_counter() - start)
    results.append(Result("decode", "decode the watch line only (floor)", events, best))
    for handlers, transform, label in (
        (1, None, "informer, 1 handler"),
        (3, None, "informer, 3 handlers"),
        (1, drop_managed_fields, "informer, 1 handler, drop_managed_fields"),
        (3, drop_managed_fields, "informer, 3 handlers, drop_managed_fields"),
    ):
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            best = min(best, asyncio.run(_pipeline(lines, handlers, transform)))
        name = f"informer-{handlers}" + ("-transform" if transform else "")
        results.append(Result(name, label, events, best))
        print(f"  measured: {label}", flush=True)
    return results


# -- against a local API server -------------------------------------------------------------


async def _create_configmaps(kubeconfig: Path, namespace: str, count: int) -> float:
    from kubeforge.client import Client
    from kubeforge.config import load_config
    from kubeforge.core.meta import ObjectMeta
    from kubeforge.models.core_v1 import ConfigMap

    async with Client(load_config(kubeconfig)) as client:
        api = client.api(ConfigMap, namespace=namespace)
        limit = asyncio.Semaphore(32)

        async def create(i: int) -> None:
            async with limit:
                meta = ObjectMeta(name=f"cm-{i}", namespace=namespace)
                await api.create(ConfigMap(metadata=meta, data={"i": str(i)}))

        start = time.perf_counter()
        await asyncio.gather(*(create(i) for i in range(count)))
        return time.perf_counter() - start


async def _namespace(kubeconfig: Path, name: str) -> None:
    from kubeforge.client import Client
    from kubeforge.config import load_config
    from kubeforge.core.meta import ObjectMeta
    from kubeforge.models.core_v1 import Namespace

    async with Client(load_config(kubeconfig)) as client:
        await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=name)))


async def _kubeforge_server_run(kubeconfig: Path, namespace: str, count: int) -> Result:
    from kubeforge.client import Client
    from kubeforge.config import load_config
    from kubeforge.models.core_v1 import ConfigMap

    async with Client(load_config(kubeconfig)) as client:
        informer: Informer[ConfigMap] = Informer(client.api(ConfigMap, namespace=namespace))
        done = asyncio.Event()
        seen = 0

        def on_add(_: Any) -> None:
            nonlocal seen
            seen += 1
            if seen == count:
                done.set()

        informer.add_handler(on_add=on_add)
        informer.start()
        await informer.wait_for_sync()
        start = time.perf_counter()
        writes = await _create_configmaps(kubeconfig, namespace, count)
        await done.wait()
        elapsed = time.perf_counter() - start
        await informer.stop()
    return Result(
        "server-kubeforge", "kubeforge Informer", count, elapsed, writes_per_second=count / writes
    )


async def _official_server_run(kubeconfig: Path, namespace: str, count: int) -> Result:
    from kubernetes import client as k8s
    from kubernetes import config as k8s_config
    from kubernetes.informer import SharedInformer

    api_client = k8s_config.new_client_from_config(config_file=str(kubeconfig))
    core = k8s.CoreV1Api(api_client)
    informer = SharedInformer(core.list_namespaced_config_map, namespace=namespace)
    seen = 0
    done = threading.Event()

    def on_add(_: Any) -> None:
        nonlocal seen
        seen += 1
        if seen == count:
            done.set()

    informer.add_event_handler("ADDED", on_add)
    informer.start()
    await asyncio.sleep(1.0)  # its initial list and watch start in a thread; no sync signal
    start = time.perf_counter()
    writes = await _create_configmaps(kubeconfig, namespace, count)
    await asyncio.to_thread(done.wait, 120)
    elapsed = time.perf_counter() - start
    # Stopping cuts its watch short, which it logs as an error with a traceback.
    logging.getLogger("kubernetes.informer").setLevel(logging.CRITICAL)
    await asyncio.to_thread(informer.stop)
    return Result(
        "server-kubernetes",
        "official SharedInformer",
        count,
        elapsed,
        writes_per_second=count / writes,
    )


def against_server(count: int) -> list[Result]:
    from kubeforge.testing import LocalApiServer

    results = []
    with LocalApiServer(simulate_node=False) as server:
        for name, run in (("kf", _kubeforge_server_run), ("official", _official_server_run)):
            namespace = f"bench-{name}"
            asyncio.run(_namespace(server.kubeconfig, namespace))
            try:
                results.append(asyncio.run(run(server.kubeconfig, namespace, count)))
            except ImportError:
                print("  kubernetes.informer.SharedInformer is not installed: skipped")
                continue
            print(f"  measured against the server: {results[-1].label}", flush=True)
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.informer", description=__doc__)
    parser.add_argument("--events", type=int, default=20_000, help="in-process watch events")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--server-events", type=int, default=3_000)
    parser.add_argument("--no-server", action="store_true", help="skip the local-server runs")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    print(f"{args.events} watch events in process ...", flush=True)
    results = in_process(args.events, args.repeat)
    if not args.no_server:
        print(f"{args.server_events} creates against a local API server ...", flush=True)
        results += against_server(args.server_events)
    for r in results:
        r.events_per_second = r.events / r.seconds
        r.us_per_event = r.seconds / r.events * 1e6
    print()
    print(f"{'run':>44} | {'events/s':>9} | {'us/event':>8} | {'server writes/s':>15}")
    for r in results:
        writes = f"{r.writes_per_second:>15.0f}" if r.writes_per_second else " " * 15
        print(f"{r.label:>44} | {r.events_per_second:>9.0f} | {r.us_per_event:>8.1f} | {writes}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "informer",
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "results": [asdict(r) for r in results],
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
