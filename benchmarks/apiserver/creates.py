"""Durable creates on the local server, before/after in one run:
``python -m benchmarks.apiserver.creates [--quick]``.

Each round starts a fresh ``kubeforge apiserver`` with a data directory (every write
durable) for each contender (this checkout, and ``$KF_BENCH_BASE``'s when that names
another checkout, e.g. a ``git worktree`` of an older commit), and creates small
ConfigMaps over HTTPS from this process: first with one request in flight (one client
waiting for each answer), then with ``--concurrency`` in flight over as many keep-alive
connections (many clients). Rounds alternate the contenders, so both see the same
machine; each row is a contender's median over the rounds.

Measured: creates acknowledged per second, and the server process's CPU time (from
``/proc``) per create, less what it burns while idle (its simulated node), so the
number reads apart from what else the machine is doing; ``free_core_creates_per_s``
is what that CPU cost allows on one free core. Writes
``benchmarks/results/apiserver-creates.json`` (``-quick`` for ``--quick``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._report import clean_exit_on_sigterm, environment, write_results
from benchmarks.apiserver.__main__ import (
    Client,
    _base_source,
    _on_server,
    _own_cpu,
    _server_cpu,
)
from benchmarks.apiserver._pods import bounded

_IDLE_SECONDS = 2.0


async def _phase(client: Client, count: int, concurrency: int, tag: str) -> dict[str, float]:
    server_cpu, own = _server_cpu(client.server), _own_cpu()
    start = time.perf_counter()

    async def create(index: int) -> None:
        await client.create("bench", f"{tag}-{index:06d}")

    await bounded(count, concurrency, create)
    elapsed = time.perf_counter() - start
    return {
        "seconds": elapsed,
        "server_cpu": _server_cpu(client.server) - server_cpu,
        "client_cpu": _own_cpu() - own,
    }


async def _run(source: str | None, args: argparse.Namespace) -> dict[int, dict[str, float]]:
    """One fresh server (of ``source``'s kubeforge, else this checkout's): both phases."""
    with tempfile.TemporaryDirectory(prefix="kubeforge-bench-") as data_dir:
        runs: dict[int, dict[str, float]] = await _on_server(
            Path(data_dir), lambda c: _phases(c, args), 1, source
        )
        return runs


async def _phases(client: Client, args: argparse.Namespace) -> dict[int, dict[str, float]]:
    await client.namespace("bench")
    await _phase(client, args.warm_up, args.concurrency, "warm")
    before = _server_cpu(client.server)
    await asyncio.sleep(_IDLE_SECONDS)
    idle = (_server_cpu(client.server) - before) / _IDLE_SECONDS
    out = {}
    for concurrency, count in ((1, args.single), (args.concurrency, args.objects)):
        phase = await _phase(client, count, concurrency, f"c{concurrency}")
        phase["server_cpu"] -= idle * phase["seconds"]
        phase["count"] = count
        out[concurrency] = phase
    return out


def _commit(checkout: str) -> str:
    """The short commit of ``checkout`` (its path when it is not a git checkout)."""
    done = subprocess.run(
        ["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or checkout


def _row(code: str, concurrency: int, runs: list[dict[str, float]]) -> dict[str, Any]:
    def median(key: str) -> float:
        return statistics.median(run[key] / run["count"] for run in runs)

    cpu_us = median("server_cpu") * 1e6
    return {
        "code": code,
        "in_flight": concurrency,
        "creates_per_s": round(1 / median("seconds")),
        "server_cpu_us_per_create": round(cpu_us, 1),
        "free_core_creates_per_s": round(1e6 / cpu_us),
        "client_cpu_us_per_create": round(median("client_cpu") * 1e6, 1),
    }


async def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    base = _base_source()
    contenders: list[tuple[str, str | None]] = [("this checkout", None)]
    if base is not None:
        contenders.insert(0, (f"base ({_commit(os.environ['KF_BENCH_BASE'])})", base))
    runs: dict[str, list[dict[int, dict[str, float]]]] = {code: [] for code, _ in contenders}
    for round_ in range(args.rounds):
        for code, source in contenders:
            run = await _run(source, args)
            runs[code].append(run)
            print(
                f"round {round_ + 1} {code}: "
                + "; ".join(
                    f"{c} in flight {p['count'] / p['seconds']:,.0f}/s "
                    f"{p['server_cpu'] / p['count'] * 1e6:.0f} us"
                    for c, p in run.items()
                ),
                flush=True,
            )
    return [
        _row(code, concurrency, [run[concurrency] for run in runs[code]])
        for concurrency in (1, args.concurrency)
        for code, _ in contenders
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.apiserver.creates")
    parser.add_argument("--objects", type=int, default=10_000, help="creates, many in flight")
    parser.add_argument("--single", type=int, default=1_000, help="creates, one in flight")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--warm-up", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, to try it out")
    args = parser.parse_args(argv)
    if args.quick:
        args.objects, args.single, args.warm_up, args.rounds = 1000, 200, 100, 1
    clean_exit_on_sigterm()
    env = environment("benchmarks.apiserver.creates", argv)
    rows = asyncio.run(measure(args))
    for row in rows:
        print(row)
    payload = {
        **env,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "ratios_are": "none: compare the rows of one run (base and this checkout alternate)",
        "results": rows,
    }
    write_results("apiserver-creates", payload, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
