"""One contender's informer over every pod, in a process of its own (for honest RSS).

Run by ``benchmarks.scale``: ``python -m benchmarks.scale._child CONTENDER KUBECONFIG
PODS``. It prints one JSON line when its cache holds ``PODS`` pods (sync time, RSS
before the informer, peak RSS, steady RSS after a collection), then reads a line
with the number of churn events to expect, prints one JSON line when it has seen
them all (CPU seconds spent meanwhile), and exits.

Contenders: ``kubeforge-paged`` and ``kubeforge-streaming`` (``Informer`` over
``Pod`` with ``drop_managed_fields``, initial list in pages of 500 or streamed) and
``official`` (``kubernetes.informer.SharedInformer`` over
``list_pod_for_all_namespaces``: one unpaged LIST, decoded into its models).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["CONTENDERS"]

# Seconds to wait for the churn's events after the last patch was sent; a contender
# that misses events reports how many it saw instead of hanging the run.
_CHURN_TIMEOUT = float(os.environ.get("KF_CHURN_TIMEOUT", 300))


def _status_mib(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return 0.0


def _rss_mib() -> float:
    return _status_mib("VmRSS:")


def _peak_rss_mib() -> float:
    # VmHWM belongs to this program's address space; ru_maxrss would also count the
    # parent's pages this process had between fork and exec.
    return _status_mib("VmHWM:")


def _report(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


def _read_events() -> int:
    return int(sys.stdin.readline())


class _Counter:
    """Counts adds and updates; sets ``synced`` at ``pods`` adds, ``churned`` at a target."""

    def __init__(self, pods: int) -> None:
        self.pods, self.adds, self.updates = pods, 0, 0
        self.target = -1
        self.synced, self.churned = threading.Event(), threading.Event()

    def add(self, _: object) -> None:
        self.adds += 1
        if self.adds == self.pods:
            self.synced.set()

    def update(self, *_: object) -> None:
        self.updates += 1
        if self.updates == self.target:
            self.churned.set()

    def expect(self, updates: int) -> None:
        self.target = updates
        if self.updates >= updates:
            self.churned.set()


async def _kubeforge(kubeconfig: Path, pods: int, initial_list: str) -> None:
    # The informer's first watch imports aiohttp (~8 MiB); imported here, before the
    # baseline, so that the cache's share counts the cache and not an import.
    import aiohttp  # noqa: F401

    from kubeforge.cache import Informer, drop_managed_fields
    from kubeforge.client import Client
    from kubeforge.config import load_config
    from kubeforge.models.core_v1 import Pod
    from kubeforge.watch import WatcherConfig

    async with Client(load_config(kubeconfig)) as client:
        baseline = _rss_mib()
        counter = _Counter(pods)
        config = WatcherConfig(initial_list=initial_list)  # type: ignore[arg-type]
        informer = Informer(client.api(Pod), config, transform=drop_managed_fields)
        informer.add_handler(on_add=counter.add, on_update=counter.update)
        started = time.perf_counter()
        informer.start()
        await informer.wait_for_sync()
        await asyncio.to_thread(counter.synced.wait)
        sync_seconds = time.perf_counter() - started
        peak = _peak_rss_mib()
        gc.collect()
        _report(
            sync_seconds=sync_seconds,
            baseline_mib=baseline,
            peak_mib=peak,
            steady_mib=_rss_mib(),
            cached=len(informer.store),
        )
        counter.expect(await asyncio.to_thread(_read_events))
        cpu = time.process_time()
        await asyncio.to_thread(counter.churned.wait, _CHURN_TIMEOUT)
        _report(churn_cpu_seconds=time.process_time() - cpu, updates=counter.updates)
        await informer.stop()


def _official(kubeconfig: Path, pods: int) -> None:
    import logging

    from kubernetes import client as k8s
    from kubernetes import config as k8s_config
    from kubernetes.informer import SharedInformer

    api = k8s.CoreV1Api(k8s_config.new_client_from_config(config_file=str(kubeconfig)))
    baseline = _rss_mib()
    counter = _Counter(pods)
    informer = SharedInformer(api.list_pod_for_all_namespaces)
    informer.add_event_handler("ADDED", counter.add)
    informer.add_event_handler("MODIFIED", counter.update)
    started = time.perf_counter()
    informer.start()
    counter.synced.wait()
    sync_seconds = time.perf_counter() - started
    peak = _peak_rss_mib()
    gc.collect()
    _report(
        sync_seconds=sync_seconds,
        baseline_mib=baseline,
        peak_mib=peak,
        steady_mib=_rss_mib(),
        cached=len(informer.cache.list_keys()),
    )
    counter.expect(_read_events())
    cpu = time.process_time()
    counter.churned.wait(_CHURN_TIMEOUT)
    _report(churn_cpu_seconds=time.process_time() - cpu, updates=counter.updates)
    # Stopping cuts its watch short, which it logs as an error with a traceback.
    logging.getLogger("kubernetes.informer").setLevel(logging.CRITICAL)
    informer.stop()


CONTENDERS: dict[str, Callable[[Path, int], None]] = {
    "kubeforge-paged": lambda k, n: asyncio.run(_kubeforge(k, n, "paged")),
    "kubeforge-streaming": lambda k, n: asyncio.run(_kubeforge(k, n, "streaming")),
    "official": _official,
}


if __name__ == "__main__":
    name, kubeconfig, pods = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    CONTENDERS[name](kubeconfig, pods)
