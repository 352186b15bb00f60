"""An informer over 100,000 pods: ``python -m benchmarks.scale [--pods N]``.

One in-memory local API server (no simulated nodes: the pods stay as created) is
filled with ``--pods`` realistic pods over 20 namespaces. Then each contender runs
in a process of its own, one after the other, against that server:

- **sync**: seconds from starting the informer until its cache holds every pod;
- **memory**: RSS before the informer (imports and client), peak RSS (``ru_maxrss``)
  and steady RSS after a collection once synced; the cache's share is RSS minus the
  baseline, compared with the pods' compact JSON with managedFields dropped (what
  the ``drop_managed_fields`` transform keeps);
- **churn**: ``--churn-events`` label patches at ``--churn-rate`` per second over
  the pods; CPU seconds (all threads) the contender spent until its handler saw them
  all, per event.

Ratios are the official client's over kubeforge's (above 1: kubeforge does better).
Results go to ``benchmarks/results/scale.json``; ``--quick`` (2,000 pods) to
``scale-quick.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks._report import environment, print_table, write_results
from benchmarks.scale._child import CONTENDERS
from benchmarks.scale._load import churn, compact_json_bytes, load_pods

from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.testing import LocalApiServer

_ROOT = Path(__file__).resolve().parents[2]


def _run_contender(
    name: str, kubeconfig: Path, pods: int, churn_rate: float, churn_events: int
) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{_ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.scale._child", name, str(kubeconfig), str(pods)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=_ROOT,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        synced = json.loads(child.stdout.readline())
        print(f"  {name}: synced {synced['cached']:,} pods in {synced['sync_seconds']:.1f} s")
        child.stdin.write(f"{churn_events}\n")
        child.stdin.flush()
        reached = asyncio.run(_churn(kubeconfig, pods, churn_rate, churn_events, name))
        churned = json.loads(child.stdout.readline())
    finally:
        child.stdin.close()
        child.wait(timeout=60)
    if churned["updates"] < churn_events:
        print(f"  {name}: saw {churned['updates']:,} of {churn_events:,} churn events")
    return {"contender": name, **synced, **churned, "churn_rate_reached": reached}


async def _churn(kubeconfig: Path, pods: int, rate: float, events: int, tag: str) -> float:
    async with Client(load_config(kubeconfig)) as client:
        return await churn(client, pods, rate, events, tag)


async def _fill(kubeconfig: Path, pods: int) -> dict[str, Any]:
    async with Client(load_config(kubeconfig)) as client:
        creates_per_second = await load_pods(client, pods)
        held, json_bytes = await compact_json_bytes(client)
    return {
        "creates_per_second": creates_per_second,
        "pods": held,
        "compact_json_bytes": json_bytes,
    }


def _derive(row: dict[str, Any], json_mib: float) -> dict[str, Any]:
    cache_steady = row["steady_mib"] - row["baseline_mib"]
    cache_peak = row["peak_mib"] - row["baseline_mib"]
    return {
        "contender": row["contender"],
        "sync_s": round(row["sync_seconds"], 2),
        "baseline_mib": round(row["baseline_mib"], 1),
        "peak_mib": round(row["peak_mib"], 1),
        "steady_mib": round(row["steady_mib"], 1),
        "cache_steady_per_json": round(cache_steady / json_mib, 2),
        "cache_peak_per_steady": round(cache_peak / cache_steady, 2) if cache_steady else None,
        "us_cpu_per_event": round(row["churn_cpu_seconds"] / row["updates"] * 1e6, 1),
        "churn_rate_reached": round(row["churn_rate_reached"]),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__)
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--churn-rate", type=float, default=500.0)
    parser.add_argument("--churn-events", type=int, default=5_000)
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--quick", action="store_true", help="2,000 pods, 500 churn events")
    args = parser.parse_args(argv)
    if args.quick:
        args.pods, args.churn_events = 2_000, 500
    report = environment("benchmarks.scale", argv)
    with LocalApiServer(simulate_node=False, startup_timeout=120) as server:
        print(f"creating {args.pods:,} pods ...", flush=True)
        filled = asyncio.run(_fill(server.kubeconfig, args.pods))
        json_mib = filled["compact_json_bytes"] / 2**20
        print(f"  {filled['creates_per_second']:,.0f} creates/s; compact JSON {json_mib:,.1f} MiB")
        rows = [
            _run_contender(name, server.kubeconfig, args.pods, args.churn_rate, args.churn_events)
            for name in args.contenders.split(",")
        ]
    results = [_derive(row, json_mib) for row in rows]
    print_table(list(results[0]), [list(r.values()) for r in results])
    report |= {
        **filled,
        "compact_json_mib": round(json_mib, 1),
        "churn_rate": args.churn_rate,
        "churn_events": args.churn_events,
        "ratios_are": "the official client over kubeforge paged (above 1: kubeforge does better)",
        "ratios": _ratios(results),
        "results": results,
        "raw": rows,
    }
    print(json.dumps(report["ratios"], indent=2))
    print(f"wrote {write_results('scale', report, quick=args.quick)}")


def _ratios(results: list[dict[str, Any]]) -> dict[str, float | None]:
    by_name = {r["contender"]: r for r in results}
    ours, peer = by_name.get("kubeforge-paged"), by_name.get("official")
    streaming = by_name.get("kubeforge-streaming")
    ratios: dict[str, float | None] = {}
    if ours and peer:
        for key in ("sync_s", "peak_mib", "steady_mib", "us_cpu_per_event"):
            ratios[f"official/kubeforge {key}"] = (
                round(peer[key] / ours[key], 2) if ours[key] else None
            )
    if ours and streaming:
        ratios["paged/streaming peak_mib"] = round(ours["peak_mib"] / streaming["peak_mib"], 2)
        ratios["paged/streaming sync_s"] = round(ours["sync_s"] / streaming["sync_s"], 2)
    return ratios


if __name__ == "__main__":
    main()
