"""Controller startup, kubeforge vs kopf vs the official client: ``python -m benchmarks.startup``.

Two numbers per contender, the median of ``--rounds`` runs each:

- **import**: seconds to import what the PodToIp controller needs, measured
  inside a fresh interpreter (``perf_counter`` around the imports, so the
  interpreter's own start is excluded and printed separately);
- **first reconcile**: seconds from spawning the controller process (see
  ``benchmarks/peers``) until the driver sees the PodToIp it makes for the one
  running pod on a local API server: interpreter start, imports, connecting,
  listing, and the first write.

``--quick`` does two rounds. Writes ``benchmarks/results/startup.json`` and
``startup.png`` (``-quick`` for ``--quick`` runs).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
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
from benchmarks.peers import Contender, ControllerProcess, available
from benchmarks.podtoip._workload import NAMESPACE, podtoip_module

from kubeforge.cache import Informer
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.crd import install_crds, load_manifests
from kubeforge.models.core_v1 import Container, Namespace, Pod, PodSpec
from kubeforge.testing import LocalApiServer

# What each controller program imports before it can do anything.
IMPORTS = {
    "kubeforge": (
        "import kubeforge, kubeforge.cli.main, kubeforge.runtime, kubeforge.models.core_v1"
    ),
    "kopf": "import kopf, kubernetes",
    "official": "import kubernetes.client, kubernetes.config, kubernetes.informer",
}
# Wall and CPU seconds: on a machine other work keeps busy the wall time mostly says how
# long the interpreter waited for a core, the CPU time what the imports cost.
_TIMED = (
    "import time; started, cpu = time.perf_counter(), time.process_time(); {imports}; "
    "print(time.perf_counter() - started, time.process_time() - cpu)"
)


def import_seconds(statement: str, rounds: int) -> tuple[float, float]:
    """Median wall and CPU seconds the import statement takes in a fresh interpreter."""
    walls, cpus = [], []
    for _ in range(rounds):
        out = subprocess.run(
            [sys.executable, "-c", _TIMED.format(imports=statement)],
            capture_output=True,
            text=True,
            check=True,
        )
        wall, cpu = out.stdout.strip().splitlines()[-1].split()
        walls.append(float(wall))
        cpus.append(float(cpu))
    return statistics.median(walls), statistics.median(cpus)


def help_seconds(rounds: int) -> float:
    """Median wall seconds of ``kubeforge --help``, process start included."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "kubeforge.cli", "--help"], check=True, capture_output=True
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def interpreter_seconds(rounds: int) -> float:
    """Median wall time of ``python -c pass``: the floor under every process start."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def _first_reconcile(server: LocalApiServer, contenders: list[Contender], rounds: int,
                           logs: Path) -> dict[str, float]:  # fmt: skip
    podtoip = podtoip_module()
    results: dict[str, float] = {}
    async with Client(load_config(server.kubeconfig)) as client:
        await install_crds(client, load_manifests(podtoip.CRD_PATH))
        await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=NAMESPACE)))
        pods = client.api(Pod, namespace=NAMESPACE)
        ptps = client.api(podtoip.PodToIp, namespace=NAMESPACE)
        await pods.create(
            Pod(
                metadata=ObjectMeta(name="web", namespace=NAMESPACE),
                spec=PodSpec(containers=[Container(name="app", image="nginx:1.27")]),
            )
        )
        for _ in range(400):  # the simulated node gives it an IP within moments
            pod = await pods.get("web")
            if pod.status and pod.status.pod_ip:
                break
            await asyncio.sleep(0.05)
        appeared = asyncio.Event()
        informer = Informer(ptps)
        informer.add_handler(on_add=lambda _: appeared.set())
        informer.start()
        await informer.wait_for_sync(30)
        try:
            for contender in contenders:
                times = []
                for round_ in range(rounds):
                    if informer.store.list():
                        await ptps.delete("web")
                        while informer.store.list():
                            await asyncio.sleep(0.01)
                    appeared.clear()
                    log = logs / f"{contender.name}-{round_}.log"
                    started = time.perf_counter()
                    controller = ControllerProcess(contender, server.kubeconfig, log)
                    try:
                        await asyncio.wait_for(appeared.wait(), 120)
                        times.append(time.perf_counter() - started)
                    except TimeoutError as err:
                        raise RuntimeError(f"{contender.name}: {controller.output()}") from err
                    finally:
                        controller.stop()
                results[contender.name] = statistics.median(times)
        finally:
            await informer.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two rounds only")
    parser.add_argument("--rounds", type=int, default=None, help="runs per number (median)")
    parser.add_argument("--only", action="append", help="contender(s) to run (repeatable)")
    args = parser.parse_args()
    clean_exit_on_sigterm()
    compile_bytecode()
    rounds = args.rounds or (2 if args.quick else 7)
    contenders = available(args.only)
    logs = Path(tempfile.mkdtemp(prefix="kubeforge-bench-startup-"))

    floor = interpreter_seconds(rounds)
    measured = {c.name: import_seconds(IMPORTS[c.name.split("-")[0]], rounds) for c in contenders}
    imports = {name: wall for name, (wall, _) in measured.items()}
    import_cpu = {name: cpu for name, (_, cpu) in measured.items()}
    cli_help = help_seconds(rounds)
    with LocalApiServer() as server:
        first = asyncio.run(_first_reconcile(server, contenders, rounds, logs))

    ours_import, ours_first = imports.get("kubeforge"), first.get("kubeforge")
    rows: list[list[Any]] = []
    for contender in contenders:
        name = contender.name
        rows.append([
            name, imports[name], first[name],
            round(imports[name] / ours_import, 2) if ours_import else None,
            round(first[name] / ours_first, 2) if ours_first else None,
        ])  # fmt: skip
    print(f"median of {rounds}; `python -c pass` takes {floor:.3f}s on this machine")
    print(f"`kubeforge --help`: {cli_help:.3f}s wall; import CPU seconds: {import_cpu}")
    print_table(["controller", "import s", "first reconcile s", "import x", "first x"], rows)

    payload: dict[str, Any] = {
        "benchmark": "controller startup: import time, process start to first reconcile",
        **environment("benchmarks.startup"),
        "rounds": rounds,
        "interpreter_start_seconds": round(floor, 4),
        "kubeforge_help_seconds": round(cli_help, 4),
        "imports": IMPORTS,
        "ratios_are": "peer / kubeforge (above 1: kubeforge is better)",
        "results": [
            {
                "name": c.name,
                "label": c.label,
                "import_seconds": round(imports[c.name], 4),
                "import_cpu_seconds": round(import_cpu[c.name], 4),
                "first_reconcile_seconds": round(first[c.name], 4),
                "import_ratio": row[3],
                "first_reconcile_ratio": row[4],
            }
            for c, row in zip(contenders, rows, strict=True)
        ],
    }
    path = write_results("startup", payload, quick=args.quick)
    chart = bar_chart(
        "startup",
        "Controller startup (median)",
        ["import (s)", "process start to first reconcile (s)"],
        {c.name: [imports[c.name], first[c.name]] for c in contenders},
        quick=args.quick,
    )
    print(f"\nwrote {path}" + (f" and {chart}" if chart else ""))


if __name__ == "__main__":
    main()
