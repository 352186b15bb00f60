"""Run the model-system benchmark: ``python -m benchmarks.models [--count N] [--repeat R]``.

Decodes one ``PodList`` body of ``--count`` realistic pods (see ``_pods.py``) with
each contender and reports, per pod, the best decode time of ``--repeat`` rounds
and the memory the decoded result keeps alive (``tracemalloc``, measured in a
separate round so tracing does not slow the timed ones). Ratios are against the
generated msgspec models. Results are printed and written as JSON to
``benchmarks/results/models.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import msgspec
import orjson
from benchmarks.models._pods import pod_list_json
from benchmarks.models._pydantic import pydantic_twin

from kubeforge.models.core_v1 import PodList

Decoder = Callable[[bytes], Any]

RESULTS = Path(__file__).resolve().parent.parent / "results" / "models.json"


def _msgspec() -> Decoder:
    decoder = msgspec.json.Decoder(PodList)
    return decoder.decode


def _pydantic() -> Decoder:
    model = pydantic_twin(PodList)
    return model.model_validate_json


def _orjson() -> Decoder:
    return orjson.loads


def _stdlib_json() -> Decoder:
    return json.loads


def _kubernetes() -> Decoder:
    from kubernetes.client import ApiClient

    client = ApiClient()
    parameters = inspect.signature(client.deserialize).parameters
    if "response_text" in parameters:  # kubernetes >= 35: (text, type, content type)

        def decode(data: bytes) -> Any:
            return client.deserialize(data.decode(), "V1PodList", "application/json")

        return decode

    class _Response:  # older clients read ``.data`` off a urllib3-like response
        def __init__(self, data: bytes) -> None:
            self.data = data.decode()

    def decode_old(data: bytes) -> Any:
        return client.deserialize(_Response(data), "V1PodList")

    return decode_old


CONTENDERS: dict[str, tuple[str, Callable[[], Decoder]]] = {
    "msgspec": ("kubeforge.models (msgspec Structs)", _msgspec),
    "pydantic": ("pydantic v2, same models", _pydantic),
    "orjson": ("orjson, plain dicts", _orjson),
    "json": ("stdlib json, plain dicts (kopf)", _stdlib_json),
    "kubernetes": ("official kubernetes client", _kubernetes),
}


@dataclass
class Result:
    name: str
    label: str
    us_per_pod: float  # best decode time, garbage collector running as usual
    us_per_pod_gc_paused: float  # the same with the collector paused during the decode
    kib_per_pod: float  # memory the decoded list keeps alive
    peak_kib_per_pod: float  # peak extra memory while decoding
    gc_ms_per_10k_pods: float  # one full gc.collect() while the decoded list is alive
    time_ratio: float = 1.0
    time_ratio_gc_paused: float = 1.0
    memory_ratio: float = 1.0


def _items(decoded: Any) -> int:
    items = decoded["items"] if isinstance(decoded, dict) else decoded.items
    return len(items)


def _time(decode: Decoder, data: bytes, repeat: int, *, paused: bool) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        if paused:
            gc.disable()
        try:
            start = time.perf_counter()
            decoded = decode(data)
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
        del decoded
    return best


def _full_collection() -> float:
    start = time.perf_counter()
    gc.collect()
    return time.perf_counter() - start


def _collect_cost(decode: Decoder, data: bytes) -> float:
    """Seconds the decoded list (an informer cache, say) adds to every full collection."""
    gc.collect()
    baseline = min(_full_collection() for _ in range(3))
    decoded = decode(data)
    gc.collect()
    alive = min(_full_collection() for _ in range(3))
    del decoded
    return max(0.0, alive - baseline)


def _memory(decode: Decoder, data: bytes) -> tuple[int, int]:
    """Bytes the decoded result keeps alive, and the peak while decoding."""
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        decoded = decode(data)
        gc.collect()
        after, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del decoded
    return after - before, peak - before


def run(names: list[str], data: bytes, count: int, repeat: int) -> list[Result]:
    results = []
    for name in names:
        label, make = CONTENDERS[name]
        decode = make()
        assert _items(decode(data)) == count  # also warms up caches and lazy imports
        seconds = _time(decode, data, repeat, paused=False)
        paused = _time(decode, data, repeat, paused=True)
        kept, peak = _memory(decode, data)
        collect = _collect_cost(decode, data)
        results.append(
            Result(
                name=name,
                label=label,
                us_per_pod=seconds / count * 1e6,
                us_per_pod_gc_paused=paused / count * 1e6,
                kib_per_pod=kept / count / 1024,
                peak_kib_per_pod=peak / count / 1024,
                gc_ms_per_10k_pods=collect / count * 1e7,
            )
        )
        print(f"  measured: {label}", flush=True)
    base = next((r for r in results if r.name == "msgspec"), results[0])
    for r in results:
        r.time_ratio = r.us_per_pod / base.us_per_pod
        r.time_ratio_gc_paused = r.us_per_pod_gc_paused / base.us_per_pod_gc_paused
        r.memory_ratio = r.kib_per_pod / base.kib_per_pod
    return results


_COLUMNS = [
    ("decoder", 38, "label", "s"),
    ("us/pod", 8, "us_per_pod", ".1f"),
    ("x", 6, "time_ratio", ".2f"),
    ("GC paused", 10, "us_per_pod_gc_paused", ".1f"),
    ("x", 6, "time_ratio_gc_paused", ".2f"),
    ("KiB/pod", 8, "kib_per_pod", ".2f"),
    ("x", 6, "memory_ratio", ".2f"),
    ("peak KiB", 9, "peak_kib_per_pod", ".2f"),
    ("GC ms/10k", 10, "gc_ms_per_10k_pods", ".1f"),
]


def _table(results: list[Result]) -> str:
    head = " ".join(
        f"{title:{'<' if fmt == 's' else '>'}{width}}" for title, width, _, fmt in _COLUMNS
    )
    rows = [head, "-" * len(head)]
    for r in results:
        values = (
            f"{getattr(r, attr):{'<' if fmt == 's' else '>'}{width}{fmt}}"
            for _, width, attr, fmt in _COLUMNS
        )
        rows.append(" ".join(values))
    return "\n".join(rows)


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {
        key: round(value, 2) if isinstance(value, float) else value for key, value in row.items()
    }


def _versions() -> dict[str, str]:
    found = {}
    for package in ("msgspec", "pydantic", "pydantic-core", "orjson", "kubernetes"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.models", description=__doc__)
    parser.add_argument("--count", type=int, default=10_000, help="pods in the list")
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds; the best counts")
    parser.add_argument("--only", nargs="+", choices=sorted(CONTENDERS), default=list(CONTENDERS))
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args(argv)
    data = pod_list_json(args.count)
    size = len(data) // args.count
    print(f"Decoding a PodList of {args.count} pods ({size} bytes of JSON each):", flush=True)
    results = run(args.only, data, args.count, args.repeat)
    print()
    print(_table(results))
    report = {
        "benchmark": "decode a PodList of realistic pods (with managedFields)",
        "count": args.count,
        "json_bytes_per_pod": size,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        "versions": _versions(),
        "results": [_rounded(asdict(r)) for r in results],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
