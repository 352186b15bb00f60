"""Memory per cached pod and the cost of reads: ``python -m benchmarks.cache [--count N]``.

Fills informer caches with one ``PodList`` of ``--count`` realistic pods (4.4 KB of
JSON each, managedFields included; see ``benchmarks/models/_pods.py``) and reports
what each cache keeps alive per pod (``tracemalloc``, list body excluded), how much
longer a full garbage collection takes with it, and what a read costs:

- kubeforge's ``Informer`` (objects packed as compact JSON, a read decodes a copy), with
  default settings and with the ``drop_managed_fields`` transform, and a
  metadata-only informer of the same pods;
- the design it replaced: decoded msgspec Structs kept as they are (a read then
  copies by an encode + decode round trip), with and without the transform;
- the official ``kubernetes`` package's ``SharedInformer`` (cache filled by its own
  list path: the same body through ``ApiClient.deserialize``).

Results are printed and written to ``benchmarks/results/cache.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import msgspec
from benchmarks.cache._sources import StaticListWatch
from benchmarks.models._pods import pod_list_json

from kubeforge.cache import Informer, drop_managed_fields, metadata_kind
from kubeforge.core.objects import key_of
from kubeforge.core.refs import ObjectKey
from kubeforge.core.resource import Resource
from kubeforge.models.core_v1 import Pod, PodList

RESULTS = Path(__file__).resolve().parent.parent / "results" / "cache.json"


@dataclass
class Result:
    name: str
    label: str
    kib_per_pod: float
    json_bytes_per_pod: float  # compact JSON of what this cache holds per pod
    x_json: float = 0.0
    x_official: float = 0.0
    gc_ms: float = 0.0  # extra time of one full gc.collect() with this cache alive
    build_us_per_pod: float = 0.0  # list body -> cache filled
    get_us: float | None = None  # one read by key, a private copy unless noted
    list_ms: float | None = None  # every object, as private copies unless noted
    notes: list[str] = field(default_factory=list)


# -- the contenders: each builds a cache from the list body and offers get/list -----------


class KubeforgeCache:
    kind: type[Resource] = Pod

    def __init__(self, body: bytes, transform: Any) -> None:
        self.informer: Informer[Any] = asyncio.run(self._fill(body, transform))
        self.store = self.informer.store

    async def _fill(self, body: bytes, transform: Any) -> Informer[Any]:
        informer: Informer[Any] = Informer(
            StaticListWatch(self.kind, body), transform=transform, name="pods"
        )
        informer.start()
        await informer.wait_for_sync()
        await informer.stop()
        return informer

    def keys(self) -> list[ObjectKey]:
        return self.store.keys()

    def get(self, key: ObjectKey) -> Any:
        return self.store.get(key)

    def list(self) -> list[Any]:
        return self.store.list()


class KubeforgeMetadata(KubeforgeCache):
    """A metadata-only informer: only apiVersion, kind and metadata are decoded and kept."""

    kind = metadata_kind(Pod.info)


class LiveStructs:
    """What the store did before: decoded objects in a dict, copied on every read."""

    _encoder = msgspec.json.Encoder()
    _decoder = msgspec.json.Decoder(Pod)

    def __init__(self, body: bytes, transform: Any) -> None:
        items = msgspec.json.decode(body, type=PodList).items
        self.items: dict[ObjectKey, Pod] = {}
        self.by_namespace: dict[str, set[ObjectKey]] = {}
        for pod in items:
            pod = transform(pod) if transform else pod
            key = key_of(pod)
            self.items[key] = pod
            self.by_namespace.setdefault(key.namespace, set()).add(key)

    def keys(self) -> list[ObjectKey]:
        return list(self.items)

    def get(self, key: ObjectKey) -> Any:
        return self._decoder.decode(self._encoder.encode(self.items[key]))

    def list(self) -> list[Any]:
        return [self._decoder.decode(self._encoder.encode(p)) for p in self.items.values()]


class OfficialInformer:
    """``kubernetes.informer.SharedInformer``, filled through its own list path."""

    def __init__(self, body: bytes, transform: Any) -> None:
        from kubernetes.client import ApiClient
        from kubernetes.informer import SharedInformer

        client = ApiClient()
        text = body.decode()

        def list_pods(**_: Any) -> Any:
            return client.deserialize(text, "V1PodList", "application/json")

        self.informer = SharedInformer(list_pods)
        self.informer._initial_list()  # what its watch thread runs first
        self.cache = self.informer.cache

    def keys(self) -> list[str]:
        return self.cache.list_keys()

    def get(self, key: str) -> Any:
        return self.cache.get_by_key(key)  # the shared object itself: no copy

    def list(self) -> list[Any]:
        return self.cache.list()


CONTENDERS: dict[str, tuple[str, Callable[[bytes, Any], Any], bool]] = {
    "kubeforge": ("kubeforge Informer (packed), defaults", KubeforgeCache, False),
    "kubeforge-transform": (
        "kubeforge Informer (packed), drop_managed_fields",
        KubeforgeCache,
        True,
    ),
    "kubeforge-metadata": (
        "kubeforge metadata-only Informer, drop_managed_fields",
        KubeforgeMetadata,
        True,
    ),
    "structs": ("decoded Structs (rejected design), defaults", LiveStructs, False),
    "structs-transform": ("decoded Structs, drop_managed_fields", LiveStructs, True),
    "kubernetes": ("official kubernetes SharedInformer", OfficialInformer, False),
}


def _available() -> list[str]:
    try:
        from kubernetes.informer import SharedInformer  # noqa: F401
    except ImportError:
        print("kubernetes.informer.SharedInformer is not installed: skipping it")
        return [n for n in CONTENDERS if n != "kubernetes"]
    return list(CONTENDERS)


def _retained(build: Callable[[], Any]) -> tuple[Any, int, float]:
    """The built cache, the bytes it keeps alive, and the seconds building took."""
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        cache = build()
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    gc.collect()
    start = time.perf_counter()
    build()  # timed again without tracing, which slows allocation down
    return cache, after - before, time.perf_counter() - start


def _collect_time() -> float:
    """Seconds one full collection takes now (best of three)."""

    def collect() -> float:
        start = time.perf_counter()
        gc.collect()
        return time.perf_counter() - start

    return min(collect() for _ in range(3))


def _json_sizes(body: bytes) -> tuple[float, float]:
    """Mean compact JSON bytes per pod as served, and with managedFields dropped."""
    pods = msgspec.json.decode(body, type=PodList).items
    full = sum(len(msgspec.json.encode(p)) for p in pods) / len(pods)
    slim = sum(len(msgspec.json.encode(drop_managed_fields(p))) for p in pods) / len(pods)
    return full, slim


def _reads(cache: Any, samples: int) -> tuple[float, float]:
    """Mean microseconds per read by key, and the best of three full lists in ms.

    The collector is paused while timing: what a collection costs depends on
    everything else alive, and the ``GC ms`` column reports that part.
    """
    keys = random.Random(1).sample(cache.keys(), min(samples, len(cache.keys())))
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for key in keys:
            cache.get(key)
        get_us = (time.perf_counter() - start) / len(keys) * 1e6
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            listed = cache.list()
            best = min(best, time.perf_counter() - start)
            del listed
    finally:
        gc.enable()
    return get_us, best * 1e3


def run(names: list[str], count: int, samples: int) -> list[Result]:
    body = pod_list_json(count)
    full_json, slim_json = _json_sizes(body)
    results = []
    for name in names:
        label, make, transform = CONTENDERS[name]
        fn = drop_managed_fields if transform else None
        cache, kept, seconds = _retained(lambda make=make, fn=fn: make(body, fn))
        get_us, list_ms = _reads(cache, samples)
        alive = _collect_time()
        del cache
        gc_cost = max(0.0, alive - _collect_time())
        result = Result(
            name=name,
            label=label,
            kib_per_pod=kept / count / 1024,
            json_bytes_per_pod=slim_json if transform else full_json,
            gc_ms=gc_cost * 1e3,
            build_us_per_pod=seconds / count * 1e6,
            get_us=get_us,
            list_ms=list_ms,
        )
        if name == "kubernetes":
            result.notes.append("reads return the shared cached object (no copy)")
        if name == "kubeforge-metadata":
            result.notes.append("x JSON is against the full pod's JSON without managedFields")
        results.append(result)
        print(f"  measured: {label}", flush=True)
    official = next((r for r in results if r.name == "kubernetes"), None)
    for r in results:
        r.x_json = r.kib_per_pod * 1024 / r.json_bytes_per_pod
        if official is not None:
            r.x_official = r.kib_per_pod / official.kib_per_pod
    return results


_COLUMNS = [
    ("cache", 48, "label", "s"),
    ("KiB/pod", 8, "kib_per_pod", ".2f"),
    ("x JSON", 7, "x_json", ".2f"),
    ("x official", 10, "x_official", ".3f"),
    ("GC ms", 7, "gc_ms", ".0f"),
    ("fill us/pod", 11, "build_us_per_pod", ".1f"),
    ("get us", 7, "get_us", ".1f"),
    ("list ms", 8, "list_ms", ".0f"),
]


def table(results: list[Result]) -> str:
    head = " | ".join(f"{title:>{width}}" for title, width, _, _ in _COLUMNS)
    rows = [head, "-" * len(head)]
    for r in results:
        cells = []
        for _, width, attr, fmt in _COLUMNS:
            value = getattr(r, attr)
            cells.append(f"{value:>{width}{fmt}}" if value is not None else " " * width)
        rows.append(" | ".join(cells))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cache", description=__doc__)
    parser.add_argument("--count", type=int, default=10_000, help="pods (default 10,000)")
    parser.add_argument("--samples", type=int, default=2_000, help="reads by key to time")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--only", nargs="*", choices=list(CONTENDERS), help="run these only")
    args = parser.parse_args(argv)
    names = [n for n in _available() if not args.only or n in args.only]
    print(f"caching {args.count} pods per contender ...", flush=True)
    results = run(names, args.count, args.samples)
    print()
    print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "cache",
        "count": args.count,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "versions": {
            pkg: metadata.version(pkg) for pkg in ("msgspec", "kubernetes") if _installed(pkg)
        },
        "results": [asdict(r) for r in results],
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.out}")


def _installed(package: str) -> bool:
    try:
        metadata.version(package)
    except metadata.PackageNotFoundError:
        return False
    return True


if __name__ == "__main__":
    main()
