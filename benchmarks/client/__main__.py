"""Run the client benchmark: ``python -m benchmarks.client [--pods N] [--events M]``.

One run, every contender side by side: the time to decode a list of ``--pods``
realistic pods (best of ``--repeat``, garbage collector on as in real use), the
memory the decoded list keeps alive per pod (``tracemalloc``), and the time to
decode a watch stream of ``--events`` events fed in 64 KiB chunks. Ratios are
"times faster than the official client" and "times the memory of kubeforge".
Writes ``benchmarks/results/client.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson
from benchmarks.client import _peers
from benchmarks.models._pods import pod, pod_list_json

RESULTS = Path(__file__).resolve().parent.parent / "results" / "client.json"
BASELINE = "kubernetes"


@dataclass
class Row:
    name: str
    label: str
    list_ms: float
    us_per_pod: float
    kib_per_pod: float
    stream_s: float
    us_per_event: float
    list_speedup: float = 0.0  # official client time / this time
    stream_speedup: float = 0.0
    memory_vs_kubeforge: float = 0.0


def stream_json(count: int) -> bytes:
    lines = []
    for i in range(count):
        obj = pod(i % 10_000)
        obj["metadata"]["resourceVersion"] = str(200_000 + i)
        lines.append(orjson.dumps({"type": "MODIFIED" if i % 10 else "ADDED", "object": obj}))
    return b"\n".join(lines) + b"\n"


def with_unknown_fields(data: bytes) -> bytes:
    """The same list as a newer server would send it: fields the models do not know."""
    body = orjson.loads(data)
    for item in body["items"]:
        item["spec"]["futureSchedulingHint"] = "x"
        item["status"]["futureHealth"] = {"state": "Proposed"}
    return orjson.dumps(body)


async def best_of(repeat: int, run: Callable[[], Awaitable[Any]]) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = await run()
        best = min(best, time.perf_counter() - start)
        del result
    return best


async def retained(run: Callable[[], Awaitable[Any]]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        result = await run()
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return after - before


def contenders(unknown: bytes) -> dict[str, tuple[str, Callable[[], tuple[Any, Any]]]]:
    """name -> (label, factory of (list decoder, stream decoder)); built inside the loop."""

    def kubeforge() -> tuple[Any, Any]:
        return _peers.kubeforge_list, _peers.kubeforge_stream

    def kubeforge_unknown() -> tuple[Any, Any]:
        async def decode(data: bytes) -> Any:
            return await _peers.kubeforge_list(unknown)

        return decode, None

    def kubeforge_dynamic() -> tuple[Any, Any]:
        return _peers.kubeforge_dynamic_list, None

    return {
        "kubeforge": ("kubeforge (typed, msgspec)", kubeforge),
        "kubeforge-unknown": ("kubeforge, every pod with unknown fields", kubeforge_unknown),
        "kubeforge-dynamic": ("kubeforge dynamic (orjson dicts)", kubeforge_dynamic),
        "kubernetes": ("kubernetes (official, sync)", _peers.official_sync),
        "kubernetes-aio": ("kubernetes.aio (official, async)", _peers.official_aio),
        "kubernetes_asyncio": ("kubernetes_asyncio", _peers.kubernetes_asyncio),
        "lightkube": ("lightkube (eager from_dict)", lambda: _peers.lightkube(lazy=False)),
        "lightkube-lazy": ("lightkube (lazy=True, its default)", lambda: _peers.lightkube(True)),
    }


async def measure(args: argparse.Namespace) -> list[Row]:
    data = pod_list_json(args.pods)
    stream = stream_json(args.events)
    table = contenders(with_unknown_fields(data))
    rows = []
    for name in args.only:
        label, factory = table[name]
        decode_list, decode_stream = factory()
        assert len(await decode_list(data)) == args.pods  # warm-up and sanity check
        seconds = await best_of(args.repeat, lambda: decode_list(data))  # noqa: B023
        kept = await retained(lambda: decode_list(data))  # noqa: B023
        stream_s = float("nan")
        if decode_stream is not None:
            gc.collect()
            start = time.perf_counter()
            if asyncio.iscoroutinefunction(decode_stream):
                count = await decode_stream(_peers.feed(stream))
            else:
                count = decode_stream(stream)
            stream_s = time.perf_counter() - start
            assert count == args.events, (name, count)
        rows.append(
            Row(
                name=name,
                label=label,
                list_ms=seconds * 1e3,
                us_per_pod=seconds / args.pods * 1e6,
                kib_per_pod=kept / args.pods / 1024,
                stream_s=stream_s,
                us_per_event=stream_s / args.events * 1e6,
            )
        )
        print(f"  measured: {label}", flush=True)
    for close in _peers.closers:
        await close()
    base = next((r for r in rows if r.name == BASELINE), None)
    ours = next((r for r in rows if r.name == "kubeforge"), rows[0])
    for r in rows:
        if base is not None:
            r.list_speedup = base.list_ms / r.list_ms
            r.stream_speedup = base.stream_s / r.stream_s
        r.memory_vs_kubeforge = r.kib_per_pod / ours.kib_per_pod
    return rows


_COLUMNS = [
    ("decoder", 40, "label", "s"),
    ("list ms", 9, "list_ms", ".0f"),
    ("us/pod", 8, "us_per_pod", ".1f"),
    ("x faster", 9, "list_speedup", ".1f"),
    ("KiB/pod", 8, "kib_per_pod", ".2f"),
    ("x mem", 6, "memory_vs_kubeforge", ".2f"),
    ("stream s", 9, "stream_s", ".2f"),
    ("us/event", 9, "us_per_event", ".1f"),
    ("x faster", 9, "stream_speedup", ".1f"),
]


def table(rows: list[Row]) -> str:
    head = " ".join(f"{t:{'<' if f == 's' else '>'}{w}}" for t, w, _, f in _COLUMNS)
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = (f"{getattr(r, a):{'<' if f == 's' else '>'}{w}{f}}" for _, w, a, f in _COLUMNS)
        lines.append(" ".join(cells))
    return "\n".join(lines)


def versions() -> dict[str, str]:
    found = {}
    for package in (
        "msgspec",
        "orjson",
        "aiohttp",
        "kubernetes",
        "kubernetes_asyncio",
        "lightkube",
    ):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.client", description=__doc__)
    parser.add_argument("--pods", type=int, default=10_000, help="pods in the list")
    parser.add_argument("--events", type=int, default=50_000, help="events in the watch stream")
    parser.add_argument("--repeat", type=int, default=3, help="timed list decodes; best counts")
    names = list(contenders(b"").keys())
    parser.add_argument("--only", nargs="+", choices=names, default=names)
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args(argv)
    print(f"Decoding {args.pods} pods and {args.events} watch events per contender:", flush=True)
    rows = asyncio.run(measure(args))
    print()
    print(table(rows))
    report = {
        "benchmark": "decode a pod list and a watch stream, each client through its own path",
        "source": "bytes in memory; the stream in 64 KiB chunks through an aiohttp StreamReader",
        "pods": args.pods,
        "events": args.events,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        "versions": versions(),
        "results": [
            {k: round(v, 2) if isinstance(v, float) else v for k, v in asdict(r).items()}
            for r in rows
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
