"""The server's CPU per write, by kind of write, in one process with no HTTP and no control
plane: ``python -m benchmarks.apiserver.writes [--pods N] [--durable] [--base-src DIR]``.

A pod's life on a server with nodes is eight writes: the client's create (with its
managedFields), the scheduler's binding, two kubelet status writes and four Events. This
makes those writes straight through the ``Engine`` of a ``LocalServer`` (in memory, or
``--durable``: a data directory, as ``kubeforge apiserver`` keeps it), in rounds of
``--batch`` pods per loop iteration (so they share commits, as concurrent requests do),
and reports the CPU each kind costs (``time.process_time``), without the HTTP stack, the
scheduler's search or the kubelets' bookkeeping around them: what is left is the generic
write path (engine, managedFields, storage). ``--base-src`` names another checkout's
``src`` (say a ``git worktree`` of the commit before a change): the same runs in a process
of that code, alternating with this one ``--rounds`` times, so both share the machine's
load; each row is a contender's median. Writes ``results/apiserver-writes.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._report import environment, print_table, write_results
from benchmarks.apiserver._pods import pod_body

KINDS = ("create", "binding", "status", "event")
_PER_POD = {"create": 1, "binding": 1, "status": 2, "event": 4}


def _status(phase: str, node: str) -> dict[str, Any]:
    ready = "True" if phase == "Running" else "False"
    now = "2026-01-01T00:00:00Z"
    state = {"running": {"startedAt": now}} if phase == "Running" else {"waiting": {}}
    return {
        "phase": phase,
        "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": now},
            {"type": "Ready", "status": ready, "lastTransitionTime": now},
        ],
        "hostIP": "10.0.0.1",
        "podIP": "10.244.0.7" if phase == "Running" else None,
        "startTime": now,
        "containerStatuses": [
            {
                "name": "app",
                "image": "registry.example.com/team/app:1.27.3",
                "imageID": "",
                "ready": phase == "Running",
                "restartCount": 0,
                "started": phase == "Running",
                "state": state,
            }
        ],
        "qosClass": "Burstable",
        "nodeName": node,
    }


def _event(pod: dict[str, Any], reason: str) -> dict[str, Any]:
    meta = pod["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{meta['name']}.{reason.lower()}", "namespace": meta["namespace"]},
        "involvedObject": {
            "kind": "Pod",
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta["uid"],
            "apiVersion": "v1",
        },
        "reason": reason,
        "message": f"{reason} pod",
        "source": {"component": "kubelet", "host": "node-0"},
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:00:00Z",
        "count": 1,
        "type": "Normal",
        "reportingComponent": "kubelet",
        "reportingInstance": "node-0",
    }


async def _measure(pods: int, batch: int, durable: bool) -> dict[str, float]:
    """CPU seconds per write of each kind, over ``pods`` pods' writes."""
    from kubeforge.apiserver.admission.plugins import enabled_plugins
    from kubeforge.apiserver.fieldmanager.apply import tracker
    from kubeforge.apiserver.registry.options import TRUSTED, WriteOptions
    from kubeforge.apiserver.server.app import LocalServer, ServerOptions

    data_dir = Path(tempfile.mkdtemp(prefix="kubeforge-bench-")) if durable else None
    server = LocalServer(
        ServerOptions(
            token="bench",
            data_dir=data_dir,
            simulate_node=False,
            admission_plugins=enabled_plugins((), ()),  # ServiceAccount too, as with nodes
            tune_garbage_collector=True,
        )
    )
    await server.start()
    engine, registry = server.engine, server.registry

    def served(plural: str) -> Any:
        found = registry.lookup("", "v1", plural)
        assert found is not None
        return found

    namespaces, pods_, events, accounts = (
        served(p) for p in ("namespaces", "pods", "events", "serviceaccounts")
    )
    engine.create(namespaces, "", {"metadata": {"name": "bench"}})
    engine.create(accounts, "bench", {"metadata": {"name": "default"}})
    spent = dict.fromkeys(KINDS, 0.0)

    def timed(kind: str, write: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        began = time.process_time()
        result = write(*args, **kwargs)
        spent[kind] += time.process_time() - began
        return result

    for start in range(0, pods, batch):
        for index in range(start, min(start + batch, pods)):
            name = f"p-{index:06d}"
            options = WriteOptions(
                field_manager="bench", fields=tracker(engine, pods_, "bench"), warnings=[]
            )
            pod = timed("create", engine.create, pods_, "bench", pod_body(name), options)
            ident = {"metadata": {"name": name, "namespace": "bench"}}
            scheduled = {"type": "PodScheduled", "status": "True"}
            bound = {**ident, "spec": {"nodeName": "node-0"}, "status": {"conditions": [scheduled]}}
            for kind, body, sub in (
                ("binding", bound, "binding"),
                ("status", {**ident, "status": _status("Pending", "node-0")}, "status"),
                ("status", {**ident, "status": _status("Running", "node-0")}, "status"),
            ):
                timed(kind, engine.update, pods_, "bench", name, body, TRUSTED, subresource=sub)
            for reason in ("Scheduled", "Pulled", "Created", "Started"):
                timed("event", engine.create, events, "bench", _event(pod, reason))
        commit = time.process_time()
        await asyncio.sleep(0)  # the loop iteration ends: the batch's writes commit together
        share = (time.process_time() - commit) / sum(_PER_POD.values())
        for kind in KINDS:  # each write pays its share of the commit
            spent[kind] += share * _PER_POD[kind] * min(batch, pods - start)
    await server.stop()
    server.close()
    return {kind: spent[kind] / (pods * _PER_POD[kind]) for kind in KINDS}


def _child(args: argparse.Namespace, source: str | None) -> dict[str, float]:
    """One run in a fresh interpreter (of ``source``'s kubeforge when given)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = source
    command = [sys.executable, "-m", "benchmarks.apiserver.writes", "--child"]
    command += ["--pods", str(args.pods), "--batch", str(args.batch)]
    command += ["--durable"] if args.durable else []
    root = Path(__file__).resolve().parents[2]
    output = subprocess.run(command, env=env, cwd=root, check=True, capture_output=True)
    result: dict[str, float] = json.loads(output.stdout.decode().strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.apiserver.writes")
    parser.add_argument("--pods", type=int, default=2_000)
    parser.add_argument("--batch", type=int, default=8, help="pods per loop iteration")
    parser.add_argument("--durable", action="store_true", help="a data directory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base-src", default=None, help="another checkout's src/ to compare")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="200 pods, one round")
    parser.add_argument("--name", default="apiserver-writes", help="results file name")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(asyncio.run(_measure(args.pods, args.batch, args.durable))))
        return 0
    if args.quick:
        args.pods, args.rounds = 200, 1
    contenders = ([("base", args.base_src)] if args.base_src else []) + [("this", None)]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in contenders}
    for _ in range(args.rounds):
        for name, source in contenders:
            runs[name].append(_child(args, source))
    rows = []
    for name, _ in contenders:
        median = {k: statistics.median(r[k] for r in runs[name]) for k in KINDS}
        per_pod = sum(median[k] * _PER_POD[k] for k in KINDS)
        rows.append({"code": name, **{k: median[k] * 1e6 for k in KINDS}, "pod": per_pod * 1e6})
    print_table(
        ["code", *(f"{k} us" for k in KINDS), "8 writes of a pod, us"],
        [[r["code"], *(r[k] for k in KINDS), r["pod"]] for r in rows],
    )
    env = environment("benchmarks.apiserver.writes", argv)
    payload = {**env, "pods": args.pods, "durable": args.durable, "batch": args.batch}
    payload["base_src"] = args.base_src
    write_results(args.name, {**payload, "rows": rows, "runs": runs}, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
