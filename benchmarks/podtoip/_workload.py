"""One PodToIp run against a fresh local API server: seed, start a controller, churn, converge.

Entry point: ``run_once(contender, workload)`` -> ``Run``. The driver (this
process) watches pods and PodToIps with kubeforge informers and keeps, per key,
what the pod calls for and what the PodToIp says (``Tracker``); "converged" is
the first moment after the last churn write when the two agree and every live
pod has an IP. The answer is then checked once more from fresh lists with
``examples/podtoip``'s own ``differences``.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from benchmarks.peers import Contender, ControllerProcess

from kubeforge.cache import Informer
from kubeforge.cli._targets import load_module
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import ObjectMeta
from kubeforge.crd import install_crds, load_manifests
from kubeforge.models.core_v1 import Container, Namespace, Pod, PodSpec
from kubeforge.testing import LocalApiServer

__all__ = ["EXAMPLE", "Run", "Tracker", "Workload", "podtoip_module", "run_once"]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "podtoip"
NAMESPACE = "bench"
_POLL = 0.02  # how often the driver compares its two views (cheap: two dicts)


@dataclass(frozen=True)
class Workload:
    existing: int = 1000  # pods before the controller starts
    created: int = 1000  # pods created during the run
    ip_changes: int = 500  # existing pods whose status.podIP changes during the run
    deletes: int = 500  # existing pods deleted during the run
    concurrency: int = 4  # churn requests in flight
    timeout: float = 600.0  # give up converging after this long
    seed: int = 7


@dataclass
class Run:
    contender: str
    converged: bool
    wall_seconds: float  # controller start -> converged
    first_write_seconds: float  # controller start -> its first PodToIp seen
    churn_seconds: float  # first churn write -> last churn write acknowledged
    catch_up_seconds: float  # last churn write -> converged
    cpu_seconds: float  # the controller process's user + system time at convergence
    peak_rss_mib: float
    podtoips: int  # PodToIps at the end
    # When the churn ended: PodToIps missing, stale or orphaned (the controller's backlog)
    # and live pods still without an IP (the server's simulated kubelets' backlog).
    lagging_at_churn_end: int = 0
    no_ip_at_churn_end: int = 0
    problems: list[str] = field(default_factory=list)  # from a fresh list; empty when right
    # Every second from the first churn write: [seconds, PodToIps lagging, pods without IP].
    timeline: list[list[float]] = field(default_factory=list)


def podtoip_module() -> ModuleType:
    return load_module(str(EXAMPLE))


class Tracker:
    """The driver's two views, kept by informer handlers: desired and actual per key."""

    def __init__(self, pods: Informer[Pod], podtoips: Informer[object]) -> None:
        self.wanted: dict[str, tuple[str, str] | None] = {}  # None: live, no IP yet
        self.actual: dict[str, tuple[str, str]] = {}
        self.changes = 0
        pods.add_handler(
            on_add=self._pod, on_update=lambda _, new: self._pod(new), on_delete=self._pod_gone
        )
        podtoips.add_handler(
            on_add=self._ptp, on_update=lambda _, new: self._ptp(new), on_delete=self._ptp_gone
        )

    def _pod(self, pod: Pod) -> None:
        self.changes += 1
        key = pod.metadata.name or ""
        if pod.metadata.deletion_timestamp:
            self.wanted.pop(key, None)
            return
        ip = pod.status.pod_ip if pod.status else None
        self.wanted[key] = (ip, pod.metadata.uid or "") if ip else None

    def _pod_gone(self, pod: Pod) -> None:
        self.changes += 1
        self.wanted.pop(pod.metadata.name or "", None)

    def _ptp(self, ptp: object) -> None:
        self.changes += 1
        meta = ptp.metadata  # type: ignore[attr-defined]
        owners = meta.owner_references or []
        uid = owners[0].uid if len(owners) == 1 else "?"
        self.actual[meta.name or ""] = (ptp.spec.pod_address, uid)  # type: ignore[attr-defined]

    def _ptp_gone(self, ptp: object) -> None:
        self.changes += 1
        self.actual.pop(ptp.metadata.name or "", None)  # type: ignore[attr-defined]

    def waiting(self) -> int:
        return sum(1 for v in self.wanted.values() if v is None)

    def lagging(self) -> int:
        """PodToIps missing, stale or orphaned: what the controller has yet to write."""
        wanted, actual = self.wanted, self.actual
        behind = sum(
            1 for key, want in wanted.items() if want is not None and actual.get(key) != want
        )
        return behind + sum(1 for key in actual if key not in wanted)

    async def sample(self, timeline: list[list[float]], every: float = 1.0) -> None:
        """``[seconds, lagging, waiting]`` into ``timeline`` every ``every`` s until cancelled."""
        began = time.monotonic()
        while True:
            timeline.append([round(time.monotonic() - began, 1), self.lagging(), self.waiting()])
            await asyncio.sleep(every)

    def converged(self) -> bool:
        return self.wanted == self.actual  # a None (no IP yet) never equals a PodToIp

    async def until(self, condition: Callable[[], bool] | None, timeout: float, what: str) -> None:
        """Wait for ``condition`` (default: converged), re-checking after each change."""
        check = condition or self.converged
        deadline = time.monotonic() + timeout
        seen = -1
        while True:
            if self.changes != seen:
                seen = self.changes
                if check():
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what}: not reached within {timeout:g}s")
            await asyncio.sleep(_POLL)


def _pod(name: str) -> Pod:
    return Pod(
        metadata=ObjectMeta(name=name, namespace=NAMESPACE),
        spec=PodSpec(containers=[Container(name="app", image="nginx:1.27")]),
    )


async def _bounded(concurrency: int, jobs: list[object]) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(job: object) -> None:
        async with gate:
            await job  # type: ignore[misc]

    await asyncio.gather(*(one(job) for job in jobs))


def _churn(client: Client, workload: Workload) -> list[object]:
    """The run's writes, shuffled: creates, IP changes (``/status``), deletes."""
    pods = client.api(Pod, namespace=NAMESPACE)
    jobs: list[object] = [pods.create(_pod(f"new-{i}")) for i in range(workload.created)]
    for i in range(workload.ip_changes):
        ip = f"10.250.{i // 250}.{i % 250 + 1}"
        body = {"status": {"podIP": ip, "podIPs": [{"ip": ip}]}}
        jobs.append(pods.patch_status(f"old-{i}", body))
    for i in range(workload.ip_changes, workload.ip_changes + workload.deletes):
        jobs.append(pods.delete(f"old-{i}"))
    random.Random(workload.seed).shuffle(jobs)
    return jobs


async def _verify(client: Client, podtoip: ModuleType) -> tuple[int, list[str]]:
    pods = (await client.api(Pod, namespace=NAMESPACE).list()).items
    ptps = (await client.api(podtoip.PodToIp, namespace=NAMESPACE).list()).items
    problems: list[str] = podtoip.waiting_for_ip(pods) + podtoip.differences(pods, ptps)
    return len(ptps), problems


async def _drive(
    server: LocalApiServer,
    contender: Contender,
    workload: Workload,
    logs: Path,
    profile: Path | None,
) -> Run:
    if workload.ip_changes + workload.deletes > workload.existing:
        raise ValueError("IP changes and deletes each need their own existing pod")
    podtoip = podtoip_module()
    async with Client(load_config(server.kubeconfig)) as client:
        await install_crds(client, load_manifests(podtoip.CRD_PATH))
        await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=NAMESPACE)))
        pods_informer = Informer(client.api(Pod, namespace=NAMESPACE), name="bench-pods")
        ptp_informer = Informer(client.api(podtoip.PodToIp, namespace=NAMESPACE))
        tracker = Tracker(pods_informer, ptp_informer)
        pods_informer.start()
        ptp_informer.start()
        try:
            await pods_informer.wait_for_sync(60)
            await ptp_informer.wait_for_sync(60)
            pods = client.api(Pod, namespace=NAMESPACE)
            await _bounded(8, [pods.create(_pod(f"old-{i}")) for i in range(workload.existing)])
            await tracker.until(
                lambda: len(tracker.wanted) == workload.existing and not tracker.waiting(),
                120,
                "seed pods running",
            )
            return await _measure(
                client, podtoip, tracker, contender, workload, server, logs, profile
            )
        finally:
            await pods_informer.stop()
            await ptp_informer.stop()


async def _measure(
    client: Client,
    podtoip: ModuleType,
    tracker: Tracker,
    contender: Contender,
    workload: Workload,
    server: LocalApiServer,
    logs: Path,
    profile: Path | None,
) -> Run:
    log = logs / f"{contender.name}.log"
    controller = ControllerProcess(contender, server.kubeconfig, log, profile=profile)
    started = time.monotonic()
    try:
        await tracker.until(lambda: bool(tracker.actual), 120, "first PodToIp")
        first = time.monotonic()
        timeline: list[list[float]] = []
        sampler = asyncio.create_task(tracker.sample(timeline))
        await _bounded(workload.concurrency, _churn(client, workload))
        churned = time.monotonic()
        lagging, no_ip = tracker.lagging(), tracker.waiting()
        converged = True
        try:
            await tracker.until(None, workload.timeout, "convergence")
        except TimeoutError:
            converged = False
        done = time.monotonic()
        sampler.cancel()
        cpu, rss = controller.cpu_seconds(), controller.peak_rss_mib()
        # The informers may be a hair ahead of a list: give the check a moment to agree.
        count, problems = await _verify(client, podtoip)
        for _ in range(50):
            if not problems:
                break
            await asyncio.sleep(0.1)
            count, problems = await _verify(client, podtoip)
    except TimeoutError as err:
        raise RuntimeError(f"{contender.name}: {err}\n{controller.output()[-3000:]}") from err
    finally:
        controller.stop()
    return Run(
        contender=contender.name,
        converged=converged and not problems,
        wall_seconds=done - started,
        first_write_seconds=first - started,
        churn_seconds=churned - first,
        catch_up_seconds=done - churned,
        cpu_seconds=cpu,
        peak_rss_mib=rss,
        podtoips=count,
        lagging_at_churn_end=lagging,
        no_ip_at_churn_end=no_ip,
        problems=problems[:20],
        timeline=timeline,
    )


def run_once(
    contender: Contender, workload: Workload, logs: Path | None = None, profile: Path | None = None
) -> Run:
    """A fresh in-memory server (simulated nodes on), the workload, one controller.

    ``profile``: sample the controller with py-spy into this file (collapsed stacks).
    """
    logs = logs or Path(tempfile.mkdtemp(prefix="kubeforge-bench-"))
    # A simulated node runs at most 110 pods (the kubelet's maxPods): enough nodes for all.
    nodes = (workload.existing + workload.created) // 100 + 1
    with LocalApiServer(nodes=nodes) as server:
        return asyncio.run(_drive(server, contender, workload, logs, profile))
