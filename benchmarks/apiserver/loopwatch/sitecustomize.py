"""Put on the benchmark server's PYTHONPATH, this ``sitecustomize`` times every event-loop
callback by CPU time, so the longest run without yielding (what another client waits at
least, on a free core) can be read apart from the load on the machine.

Only active with ``$KF_LOOP_STRETCH`` set (a file path): SIGUSR1 starts a new measure,
SIGUSR2 writes the longest callback since then, in seconds, to that file. With
``$KF_WATCH_TRACE`` instead, ``_watchtrace`` records where watch events' time goes.
Nothing here is part of kubeforge; the benchmark alone uses it.
"""

from __future__ import annotations

import asyncio.events
import os
import signal
import time
from typing import Any

_PATH = os.environ.get("KF_LOOP_STRETCH")

if _PATH:
    _longest = [0.0]
    _run = asyncio.events.Handle._run

    def _timed(self: asyncio.events.Handle) -> None:
        start = time.thread_time()
        try:
            _run(self)
        finally:
            spent = time.thread_time() - start
            if spent > _longest[0]:
                _longest[0] = spent

    def _restart(signum: int, frame: Any) -> None:
        _longest[0] = 0.0

    def _write(signum: int, frame: Any) -> None:
        assert _PATH is not None
        with open(_PATH, "w", encoding="ascii") as out:
            out.write(repr(_longest[0]))

    asyncio.events.Handle._run = _timed  # type: ignore[method-assign]
    signal.signal(signal.SIGUSR1, _restart)
    signal.signal(signal.SIGUSR2, _write)

_TRACE = os.environ.get("KF_WATCH_TRACE")

if _TRACE and not _PATH:  # both use SIGUSR1/2: one at a time
    from _watchtrace import install  # this folder is on the path, as this file is

    install(_TRACE)
