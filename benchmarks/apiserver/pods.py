"""Pod creates with the simulated nodes running, alone and before/after in one run:
``python -m benchmarks.apiserver.pods [--sizes 2000 10000] [--base-src DIR] [--quick]``.

Each size gets a fresh ``kubeforge apiserver`` process with a data directory (durable
writes) and one simulated node per 100 pods, and ``measure_pod_creates`` of ``_pods``:
``size`` creates, 64 in flight, while the scheduler and kubelets bind and start every pod
on the same server. The figure that survives a loaded machine is the server's CPU per
create (from ``/proc``): pods/s on one free core is its inverse. Binding and starting
the pods may go on after the last create; so the run then waits until the server's CPU
goes quiet and also reports all it did per pod until then, and how long after the last
create that was (the control plane's lag behind the creates). ``--base-src`` names
another checkout's ``src`` directory (by default that of the checkout ``$KF_BENCH_BASE``
names, as the other phases take it; say a ``git worktree`` of the commit before a
change): each size (or each of ``--base-sizes``) then also runs on a server started
from it, the two servers taking turns, so before and after share the machine's load. Writes
``results/apiserver-pods.json`` (``--name`` to change; ``-quick`` for ``--quick``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks._report import clean_exit_on_sigterm, environment, print_table, write_results
from benchmarks.apiserver.__main__ import Client, _base_source, _on_server, _server_cpu
from benchmarks.apiserver._pods import PodCreates, measure_pod_creates

_PODS_PER_NODE = 100


async def one_run(size: int, concurrency: int, source: str | None) -> dict[str, Any]:
    """``size`` pod creates on a fresh server (started from ``source`` when given)."""
    nodes = size // _PODS_PER_NODE + 1

    async def creates(client: Client) -> PodCreates:
        return await measure_pod_creates(
            client, "bench-pods", size, concurrency, nodes, _server_cpu
        )

    with tempfile.TemporaryDirectory(prefix="kubeforge-bench-") as data_dir:
        result = await _on_server(Path(data_dir), creates, nodes, source)
    row = asdict(result)
    row["server"] = "base" if source is not None else "this"
    row["pods_per_second_one_core"] = 1e6 / result.server_cpu_us_per_create
    return row


async def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for size in args.sizes:
        # The base first: if the machine gets busier during a run, the change pays for it.
        compared = args.base_src and size in (args.base_sizes or args.sizes)
        for source in ([args.base_src] if compared else []) + [None]:
            row = await one_run(size, args.concurrency, source)
            row["load_average"] = os.getloadavg()[0]
            rows.append(row)
            print(
                f"{row['server']:>4} {size:>6,} pods: server CPU "
                f"{row['server_cpu_us_per_create']:,.0f} us per create "
                f"({row['pods_per_second_one_core']:,.0f}/s on one core), "
                f"{row['creates_per_second']:,.0f} creates/s here; "
                f"{row['server_cpu_us_per_pod_settled']:,.0f} us per pod until settled "
                f"({row['settle_seconds']:.1f} s after the last create)",
                flush=True,
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.apiserver.pods", description=__doc__
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 10_000])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--base-src", default=None, help="another checkout's src/ to compare ($KF_BENCH_BASE)"
    )
    parser.add_argument(
        "--base-sizes", type=int, nargs="+", default=None, help="compare at these sizes only"
    )
    parser.add_argument("--quick", action="store_true", help="500 pods, to try it out")
    parser.add_argument("--name", default="apiserver-pods", help="results file name")
    args = parser.parse_args(argv)
    args.base_src = args.base_src or _base_source()
    if args.quick:
        args.sizes = [500]
    clean_exit_on_sigterm()
    env = environment("benchmarks.apiserver.pods", argv)
    rows = asyncio.run(measure(args))
    headers = [
        "server",
        "pods",
        "nodes",
        "server CPU us/create",
        "pods/s one core",
        "us/pod settled",
        "settle s",
        "load",
    ]
    print_table(
        headers,
        [
            [
                r["server"],
                r["pods"],
                r["nodes"],
                r["server_cpu_us_per_create"],
                r["pods_per_second_one_core"],
                r["server_cpu_us_per_pod_settled"],
                r["settle_seconds"],
                r["load_average"],
            ]
            for r in rows
        ],
    )
    base = {"base_src": args.base_src} if args.base_src else {}
    write_results(args.name, {**env, **base, "runs": rows}, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
