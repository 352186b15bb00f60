"""Where a fan-out run's latency goes (``python -m benchmarks.apiserver --trace``).

Entry points: ``ServerTrace.of(server)`` (the server runs with ``loopwatch/_watchtrace``
loaded: ``$KF_WATCH_TRACE`` names the file, ``loopwatch/`` is on its ``PYTHONPATH``),
``restart()`` before a run's writes, and ``await breakdown(sent, timed)`` after: the
distribution of each leg of an event's way, in milliseconds, from the server's record
and the timed watchers' arrivals:

* ``sent_commit``: the write sent by the benchmark -> its event at the fan-out (committed);
* ``commit_handoff``: committed -> its line taken for a stream's socket (every stream);
* ``commit_read``: committed -> read by a timed watcher (the server's tick and its pass
  over the streams, the loopback, the reader's own pass over its sockets);

and the server's longest garbage collections and event-loop callbacks meanwhile. The
clocks are ``time.perf_counter`` in both processes (CLOCK_MONOTONIC: one clock).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["TRACE_ENV", "ServerTrace"]

TRACE_ENV = "KF_WATCH_TRACE"


def _spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    values.sort()
    at = lambda q: values[min(len(values) - 1, int(len(values) * q))] * 1000  # noqa: E731
    return {"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": values[-1] * 1000}


@dataclass
class ServerTrace:
    pid: int
    path: Path

    @classmethod
    def of(cls, server: Any) -> ServerTrace:
        return cls(server._process.pid, Path(os.environ[TRACE_ENV]))

    def restart(self) -> None:
        os.kill(self.pid, signal.SIGUSR1)

    async def _record(self) -> dict[str, Any]:
        self.path.unlink(missing_ok=True)
        os.kill(self.pid, signal.SIGUSR2)
        for _ in range(600):  # the server writes it between two loop iterations
            await asyncio.sleep(0.05)
            try:
                record: dict[str, Any] = json.loads(self.path.read_text(encoding="ascii"))
                return record
            except (FileNotFoundError, ValueError):
                continue
        raise TimeoutError(f"the server wrote no trace to {self.path}")

    async def breakdown(
        self, sent: dict[int, float], timed: Iterable[tuple[float, list[int], list[int]]]
    ) -> dict[str, Any]:
        """``timed``: per read of a timed watcher, ``(arrival, resourceVersions, indexes)``."""
        record = await self._record()
        committed = dict(record["commit"])
        handoff = [at - committed[rv] for at, rvs in record["take"] for rv in rvs]
        reads, writes = [], {}
        for arrival, rvs, indexes in timed:
            for rv, index in zip(rvs, indexes, strict=True):
                if rv in committed:
                    reads.append(arrival - committed[rv])
                    writes[rv] = committed[rv] - sent[index]
        collections = sorted(record["gc"], key=lambda c: -c[1])
        slow = sorted(record["slow"], key=lambda s: -s[0])
        return {
            "sent_commit_ms": _spread(list(writes.values())),
            "commit_handoff_ms": _spread(handoff),
            "commit_read_ms": _spread(reads),
            "gc_collections": len(collections),
            "gc_longest_ms": [[g, w * 1000, c * 1000] for g, w, c in collections[:3]],
            "callbacks_over_2ms": len(slow),
            "callbacks_longest_ms": [[w * 1000, c * 1000, name] for w, c, name in slow[:3]],
        }
