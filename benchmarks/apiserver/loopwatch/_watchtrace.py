"""Where a watch event's time goes inside the benchmark's server: loaded by this folder's
``sitecustomize`` when ``$KF_WATCH_TRACE`` names a file (``python -m benchmarks.apiserver
--trace``). Nothing here is part of kubeforge; the benchmark alone uses it.

It records, in the server process: when each event reached the fan-out (it is committed
by then), when each stream took lines for the socket (``Member.take``: they are handed
to the transport in the same step), every collection of the cyclic garbage collector
(wall and CPU), and every event-loop callback longer than 2 ms of wall time. SIGUSR1
starts a new record; SIGUSR2 writes it to the file (JSON), for ``_fanout`` to read next
to its own arrival times. Clocks: ``time.perf_counter`` (CLOCK_MONOTONIC, the same in
every process of the machine), so server and client times compare.
"""

from __future__ import annotations

import asyncio.events
import gc
import json
import signal
import time
from typing import Any

_SLOW_CALLBACK = 0.002


def install(path: str) -> None:
    """Start recording (see the module docstring); ``path``: where SIGUSR2 writes."""
    from kubeforge.apiserver.storage import fanout, watch_log

    record: dict[str, list[Any]] = {"commit": [], "take": [], "gc": [], "slow": []}
    commits, takes, collections, slow = (record[k] for k in ("commit", "take", "gc", "slow"))
    clock, cpu = time.perf_counter, time.thread_time
    started = [0.0, 0.0]

    def on_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0], started[1] = clock(), cpu()
        else:
            collections.append([info["generation"], clock() - started[0], cpu() - started[1]])

    gc.callbacks.append(on_collection)

    run = asyncio.events.Handle._run

    def timed_run(self: asyncio.events.Handle) -> None:
        begin, begin_cpu = clock(), cpu()
        try:
            run(self)
        finally:
            spent = clock() - begin
            if spent > _SLOW_CALLBACK:
                name = repr(getattr(self, "_callback", None))[:120]
                slow.append([spent, cpu() - begin_cpu, name])

    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]

    on_event = fanout.WatchHub._on_event

    def traced_event(self: Any, event: Any) -> None:
        if self._groups.get(event.resource):  # some stream watches it
            commits.append([event.revision, clock()])
        on_event(self, event)

    fanout.WatchHub._on_event = traced_event  # type: ignore[method-assign]

    take = watch_log.Member.take

    def traced_take(self: Any, after: int) -> tuple[bytes, int]:
        group = self.group
        start = self.position - group.base
        data, last = take(self, after)
        stop = self.position - group.base
        if data and stop > start:
            takes.append([clock(), group.revisions[start:stop]])
        return data, last

    watch_log.Member.take = traced_take  # type: ignore[method-assign]

    def restart(signum: int, frame: Any) -> None:
        for entries in record.values():
            entries.clear()

    def write(signum: int, frame: Any) -> None:
        with open(path, "w", encoding="ascii") as out:
            json.dump(record, out)

    signal.signal(signal.SIGUSR1, restart)
    signal.signal(signal.SIGUSR2, write)
