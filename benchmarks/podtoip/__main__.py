"""PodToIp end to end, kubeforge vs kopf vs the official client: ``python -m benchmarks.podtoip``.

Each contender gets its own fresh local API server (in memory, simulated node on)
and the same work, one after the other in one run: ``--existing`` pods are
running before the controller starts; once its first PodToIp appears, the driver
creates ``--created`` pods, changes the IP of ``--ip-changes`` pods through their
``/status`` and deletes ``--deletes`` pods, shuffled, ``--concurrency`` at a time.
Measured per contender: wall time from the process's start to convergence, and
the controller process's CPU seconds (user + system) and peak RSS at that moment;
ratios are "the peer's number divided by kubeforge's". ``--quick`` runs a tenth
of the work (a smoke test). ``--profile`` also samples kubeforge's controller with
py-spy and prints where its CPU time goes.

Writes ``benchmarks/results/podtoip.json`` and ``podtoip.png`` (``-quick`` for
``--quick`` runs).
"""

from __future__ import annotations

import argparse
import compileall
import dataclasses
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._report import (
    bar_chart,
    clean_exit_on_sigterm,
    compile_bytecode,
    environment,
    print_table,
    write_results,
)
from benchmarks.peers import available, base_source, py_spy
from benchmarks.podtoip._workload import Run, Workload, run_once

_ROOT = Path(__file__).resolve().parents[2]
_METRICS = ("wall_seconds", "cpu_seconds", "peak_rss_mib")
_RATIO_NAMES = {"wall_seconds": "wall_x", "cpu_seconds": "cpu_x", "peak_rss_mib": "rss_x"}


def _ratio(peer: float, ours: float) -> float | None:
    return round(peer / ours, 2) if ours > 0 else None


def _median_run(runs: list[Run]) -> Run:
    """The run with the median wall time (its CPU and memory belong to the same run)."""
    ordered = sorted(runs, key=lambda r: r.wall_seconds)
    return ordered[(len(ordered) - 1) // 2]


# Frames every sample passes through (interpreter entry, click, the event loop itself):
# they say nothing about where the time goes.
_PLUMBING = ("runpy", "click/", "asyncio/", "kubeforge/cli/", "threading.py", "<frozen importlib")
# Where a sample ends when no Python code runs: asyncio's select(), a thread's wait, or
# uvloop's loop (its compiled I/O and waiting both end in Runner.run; py-spy cannot tell
# the two apart without native frames, so uvloop's own work counts as waiting here).
_WAITING = ("select (selectors.py", "wait (threading.py", "Runner.run (asyncio/runners.py")


def _summarize_profile(raw: Path, top: int = 15) -> dict[str, Any]:
    """From py-spy's collapsed stacks: the waiting share, then self and inclusive shares."""
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    samples = waiting = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        samples += count
        frames = [_short_frame(f) for f in stack.split(";")]
        if any(marker in frames[-1] for marker in _WAITING):
            waiting += count
            continue
        own[frames[-1]] = own.get(frames[-1], 0) + count
        for frame in set(frames):
            if not any(marker in frame for marker in _PLUMBING):
                inclusive[frame] = inclusive.get(frame, 0) + count

    def share(counts: dict[str, int]) -> list[tuple[str, float]]:
        ranked = sorted(counts.items(), key=lambda item: -item[1])[:top]
        return [(frame, round(100 * n / max(1, samples), 1)) for frame, n in ranked]

    return {
        "samples": samples,
        "waiting_percent_of_samples": round(100 * waiting / max(1, samples), 1),
        "self_percent": share(own),
        "inclusive_percent": share(inclusive),
    }


def _short_frame(frame: str) -> str:
    """``func (/abs/.../site-packages/pkg/mod.py:12)`` -> ``func (pkg/mod.py:12)``."""
    match = re.match(r"(.*) \((/.*)\)$", frame)
    if match is None:
        return frame
    function, path = match.groups()
    for marker in ("site-packages/", "/src/", "/lib/python3.11/", "/lib/python3.12/"):
        if marker in path:
            path = path.rsplit(marker, 1)[1]
            break
    else:
        path = path.replace(str(_ROOT) + "/", "")
    return f"{function} ({path})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the work")
    parser.add_argument("--existing", type=int, default=None)
    parser.add_argument("--created", type=int, default=None)
    parser.add_argument("--ip-changes", type=int, default=None)
    parser.add_argument("--deletes", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1, help="runs per contender (median)")
    parser.add_argument("--only", action="append", help="contender(s) to run (repeatable)")
    parser.add_argument("--profile", action="store_true", help="py-spy kubeforge's controller")
    parser.add_argument(
        "--name", default="podtoip", help="results file name (keep the main one for the report)"
    )
    args = parser.parse_args()
    clean_exit_on_sigterm()
    compile_bytecode()
    scale = 10 if args.quick else 1
    workload = Workload(
        existing=args.existing if args.existing is not None else 1000 // scale,
        created=args.created if args.created is not None else 1000 // scale,
        ip_changes=args.ip_changes if args.ip_changes is not None else 500 // scale,
        deletes=args.deletes if args.deletes is not None else 500 // scale,
        concurrency=args.concurrency,
        timeout=120.0 if args.quick else 600.0,
    )
    contenders = available(args.only)
    if any(c.name == "kubeforge-base" for c in contenders):
        compileall.compile_dir(base_source(), quiet=1, workers=1)  # as compile_bytecode() does
    missing = set(args.only or ["kubeforge", "kopf", "official"]) - {c.name for c in contenders}
    if missing:
        print(f"not installed, skipped: {', '.join(sorted(missing))} (pip install -e '.[bench]')")
    logs = Path(tempfile.mkdtemp(prefix="kubeforge-bench-podtoip-"))
    profile_raw = logs / "kubeforge.pyspy.txt"
    if args.profile and py_spy() is None:
        print("(no profile: py-spy is missing; pip install -e '.[bench]')")

    print(f"PodToIp: {dataclasses.asdict(workload)}; controller logs in {logs}")
    # Rounds are interleaved (A B C A B C ...) so a busy moment on the machine does not
    # land on one contender only; each contender's median-wall run is reported.
    runs: dict[str, list[Run]] = {c.name: [] for c in contenders}
    for round_ in range(args.rounds):
        for contender in contenders:
            print(f"  {contender.name}: round {round_ + 1}/{args.rounds} ...", flush=True)
            profile = profile_raw if args.profile and contender.name == "kubeforge" else None
            runs[contender.name].append(run_once(contender, workload, logs, profile=profile))
    results = {name: _median_run(each) for name, each in runs.items()}
    if args.rounds > 1:
        for name, each in runs.items():
            walls = [round(r.wall_seconds, 2) for r in each]
            cpus = [round(r.cpu_seconds, 2) for r in each]
            print(f"  {name}: wall {walls} (sd {statistics.pstdev(walls):.2f}), CPU {cpus}")

    ours = results.get("kubeforge")
    rows = []
    for name, run in results.items():
        row: list[Any] = [name, "yes" if run.converged else "NO"]
        row += [run.wall_seconds, run.cpu_seconds, run.peak_rss_mib]
        row += [run.first_write_seconds, run.churn_seconds, run.catch_up_seconds]
        row += [run.lagging_at_churn_end, run.no_ip_at_churn_end]
        if ours is not None:
            row += [_ratio(getattr(run, m), getattr(ours, m)) for m in _METRICS]
        rows.append(row)
    headers = ["controller", "converged", "wall s", "CPU s", "peak RSS MiB"]
    headers += ["first write s", "churn s", "catch-up s", "lagging at churn end", "no IP then"]
    if ours is not None:
        headers += ["wall x", "CPU x", "RSS x"]
    print()
    print_table(headers, rows)
    for run in results.values():
        for problem in run.problems:
            print(f"  {run.contender}: {problem}")

    payload: dict[str, Any] = {
        "benchmark": "PodToIp end to end on the local API server",
        **environment("benchmarks.podtoip"),
        "workload": dataclasses.asdict(workload),
        "rounds": args.rounds,
        "ratios_are": "peer / kubeforge (above 1: kubeforge is better)",
        "results": [
            {
                # The per-second timeline is kept once, under all_rounds.
                **{k: v for k, v in dataclasses.asdict(run).items() if k != "timeline"},
                **(
                    {_RATIO_NAMES[m]: _ratio(getattr(run, m), getattr(ours, m)) for m in _METRICS}
                    if ours is not None
                    else {}
                ),
            }
            for run in results.values()
        ],
        "all_rounds": {name: [dataclasses.asdict(r) for r in each] for name, each in runs.items()},
    }
    if ours is not None:
        payload["ratios"] = {
            name: {m: _ratio(getattr(run, m), getattr(ours, m)) for m in _METRICS}
            for name, run in results.items()
        }
    if args.profile and profile_raw.exists():
        summary = _summarize_profile(profile_raw)
        payload["profile_samples"] = summary["samples"]
        payload["profile_waiting_percent"] = summary["waiting_percent_of_samples"]
        payload["profile_self_percent"] = summary["self_percent"]
        payload["profile_inclusive_percent"] = summary["inclusive_percent"]
        print(
            f"\nkubeforge controller: {summary['samples']} samples at 500 Hz, "
            f"{summary['waiting_percent_of_samples']}% waiting on the network "
            "(or in uvloop's compiled code)"
        )
        for kind in ("self", "inclusive"):
            print(f"share of samples, {kind}:")
            for frame, percent in summary[f"{kind}_percent"]:
                print(f"  {percent:5.1f}%  {frame}")
    path = write_results(args.name, payload, quick=args.quick)
    chart = bar_chart(
        args.name,
        f"PodToIp: {workload.existing} existing + {workload.created} created pods, "
        f"{workload.ip_changes} IP changes, {workload.deletes} deletes",
        ["wall time to convergence (s)", "controller CPU (s)", "controller peak RSS (MiB)"],
        {name: [getattr(run, m) for m in _METRICS] for name, run in results.items()},
        quick=args.quick,
    )
    print(f"\nwrote {path}" + (f" and {chart}" if chart else ""))
    if not all(run.converged for run in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
