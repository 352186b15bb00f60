"""``kubeforge demo``: PodToIp converging live on an embedded local API server.

Starts a local API server (in memory, with its simulated node), installs the
PodToIp CRD, creates a handful of pods and a Deployment (``_demo_rollout``), runs
the PodToIp controller in this process and draws pods next to their PodToIps,
with the Deployment's ReplicaSets below, until Ctrl-C. Once converged it keeps
deleting and creating a pod every few seconds, and every third time switches the
Deployment's image, so the controller and the rollout have something to follow.
``--exit-when-converged`` exits 0 as soon as everything matches and the rollout is
complete (non-zero after ``--timeout``), which is how CI runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import signal
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import click
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from kubeforge.cli import _demo_rollout as rollout
from kubeforge.cli._errors import readable_errors
from kubeforge.cli._targets import load_module
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.crd import install_crds, load_manifests
from kubeforge.models.core_v1 import Container, Pod, PodSpec
from kubeforge.runtime import Manager
from kubeforge.testing import LocalApiServer

__all__ = ["demo_command"]

NAMESPACE = "default"
CHURN_EVERY = 4.0


@click.command()
@click.option("--pods", "pod_count", default=5, show_default=True, help="Pods to create.")
@click.option(
    "--replicas",
    default=3,
    show_default=True,
    type=click.IntRange(0),
    help="Replicas of the Deployment rolled out beside the pods (0: no Deployment).",
)
@click.option("--exit-when-converged", is_flag=True, help="Exit 0 once every pod has its PodToIp.")
@click.option(
    "--timeout",
    default=120.0,
    show_default=True,
    help="With --exit-when-converged: fail after this many seconds.",
)
@click.option(
    "--example",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="The PodToIp example package (default: the copy installed with kubeforge).",
)
def demo_command(
    pod_count: int, replicas: int, exit_when_converged: bool, timeout: float, example: str | None
) -> None:
    """Watch the PodToIp controller converge on an embedded local API server.

    \b
    Examples:
      kubeforge demo
      kubeforge demo --pods 20 --replicas 5 --exit-when-converged
    """
    with readable_errors():
        podtoip = load_module(str(_example_dir(example)))
        console = Console()
        # SIGTERM ends the demo like Ctrl-C, so the embedded server is stopped too.
        signal.signal(signal.SIGTERM, _interrupt)
        try:
            with LocalApiServer() as server:
                console.print(
                    f"local API server at {server.url}; try: "
                    f"kubectl --kubeconfig {server.kubeconfig} get pods,ptp,rs -w",
                    soft_wrap=True,  # one line, so the command can be copied whole
                )
                shape = _Shape(pod_count, replicas, exit_when_converged, timeout)
                converged = asyncio.run(_demo(podtoip, server.kubeconfig, shape, console))
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM, whenever it comes: a normal end
            converged = True
        if not converged:
            raise click.ClickException(f"not converged after {timeout:g}s")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _example_dir(explicit: str | None) -> Path:
    if explicit is not None:
        return Path(explicit)
    package = Path(__file__).resolve().parents[1]
    candidates = (
        package / "_examples" / "podtoip",  # an installed wheel carries its own copy
        package.parents[1] / "examples" / "podtoip",  # a source checkout (editable install)
        Path.cwd() / "examples" / "podtoip",
    )
    for candidate in candidates:
        if (candidate / "__init__.py").is_file():
            return candidate
    raise click.ClickException(
        "the PodToIp example is not installed with kubeforge: pass --example DIR"
    )


@dataclass(frozen=True)
class _Shape:
    """What the command line asked for."""

    pods: int
    replicas: int
    exit_when_converged: bool
    timeout: float


async def _demo(podtoip: ModuleType, kubeconfig: Path, shape: _Shape, console: Console) -> bool:
    config = load_config(kubeconfig)
    async with Client(config) as client:
        await install_crds(client, load_manifests(podtoip.CRD_PATH))
        names = itertools.count()
        for _ in range(shape.pods):
            await client.api(Pod, namespace=NAMESPACE).create(_pod(f"web-{next(names)}"))
        if shape.replicas:
            await rollout.create(client, NAMESPACE, shape.replicas)
        manager = Manager(config)
        podtoip.setup(manager)
        running = asyncio.create_task(manager.run())
        try:
            return await _watch(client, podtoip, names, shape, console)
        finally:
            manager.stop()
            with contextlib.suppress(asyncio.CancelledError):
                await running


async def _watch(
    client: Client,
    podtoip: ModuleType,
    names: itertools.count[int],
    shape: _Shape,
    console: Console,
) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + shape.timeout
    next_churn = None
    churns = itertools.count(1)
    with Live(console=console, refresh_per_second=8, transient=False) as live:
        while True:
            pods = (await client.api(Pod, namespace=NAMESPACE).list()).items
            ptps = (await client.api(podtoip.PodToIp, namespace=NAMESPACE).list()).items
            problems = podtoip.waiting_for_ip(pods) + podtoip.differences(pods, ptps)
            state = await rollout.observe(client, NAMESPACE) if shape.replicas else None
            if state is not None and not rollout.complete(state):
                problems.append(f"deployment {rollout.NAME} is rolling out")
            live.update(_render(pods, ptps, problems, state))
            if not problems and shape.exit_when_converged:
                console.print()
                return True
            if shape.exit_when_converged and loop.time() > deadline:
                return False
            if not problems and not shape.exit_when_converged:
                next_churn = next_churn or loop.time() + CHURN_EVERY
                if loop.time() >= next_churn:
                    await _churn(client, pods, f"web-{next(names)}")
                    if state is not None and next(churns) % 3 == 0:
                        await rollout.new_image(client, NAMESPACE, state.deployment)
                    next_churn = None
            await asyncio.sleep(0.25)


async def _churn(client: Client, pods: list[Pod], new_name: str) -> None:
    api = client.api(Pod, namespace=NAMESPACE)
    live = [p for p in pods if not p.metadata.deletion_timestamp and _bare(p)]
    if live:
        oldest = min(live, key=lambda p: p.metadata.creation_timestamp or "")
        await api.delete(oldest.metadata.name or "")
    await api.create(_pod(new_name))


def _pod(name: str) -> Pod:
    return Pod(
        metadata=ObjectMeta(name=name, namespace=NAMESPACE, labels={"app": "demo"}),
        spec=PodSpec(containers=[Container(name="web", image="nginx:1.27")]),
    )


def _bare(pod: Pod) -> bool:
    """A pod the demo made itself (the Deployment's pods are its ReplicaSets')."""
    return not pod.metadata.owner_references


def _render(
    pods: list[Pod], ptps: list[Any], problems: list[str], state: rollout.Rollout | None
) -> Group:
    by_name = {p.metadata.name: p for p in ptps}
    table = Table(title="pods and their PodToIps", expand=False)
    for column in ("pod", "phase", "pod IP", "podtoip address", ""):
        table.add_column(column)
    for pod in sorted(pods, key=lambda p: p.metadata.name or ""):
        name = pod.metadata.name or ""
        ip = (pod.status.pod_ip if pod.status else None) or ""
        phase = (
            "Terminating"
            if pod.metadata.deletion_timestamp
            else ((pod.status.phase if pod.status else None) or "Pending")
        )
        ptp = by_name.pop(name, None)
        address = ptp.spec.pod_address if ptp is not None else ""
        waiting = not ip and not pod.metadata.deletion_timestamp
        wanted = ip and not pod.metadata.deletion_timestamp
        ok = not waiting and ((address == ip) if wanted else ptp is None)
        table.add_row(name, phase, ip, address, Text("✓", "green") if ok else Text("…", "yellow"))
    for name, ptp in sorted(by_name.items()):
        table.add_row(str(name), "(gone)", "", ptp.spec.pod_address, Text("…", "yellow"))
    status = (
        Text("converged", "bold green")
        if not problems
        else Text(f"converging: {len(problems)} difference(s)", "yellow")
    )
    parts: list[Any] = [table]
    if state is not None:
        parts.append(rollout.render(state))
    return Group(*parts, status)
