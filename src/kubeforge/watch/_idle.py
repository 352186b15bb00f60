"""A time limit on each wait for a stream's next item, without a timer per item: ``IdleLimit``.

``async with asyncio.timeout(s): await anext(stream)`` schedules and cancels one
timer per item (~4 us of the event loop's heap work per watch event, most of what
a watcher spends per event besides decoding). ``IdleLimit`` keeps one timer for the
whole stream and only records when each wait began; the timer, when it comes due,
either re-arms itself for the current wait or cancels the waiting task, which
``next()`` turns into ``TimeoutError`` exactly as ``asyncio.timeout`` would.

Entry point::

    limit = IdleLimit(295.0)
    try:
        while True:
            item = await limit.next(stream)   # TimeoutError after 295 s of silence
    finally:
        limit.close()
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TypeVar

__all__ = ["IdleLimit"]

T = TypeVar("T")


class IdleLimit:
    """``TimeoutError`` from ``next`` when one wait lasts ``seconds``; time between waits
    (while the caller handles an item) never counts. Use it from one task only."""

    __slots__ = ("_began", "_expired", "_handle", "_loop", "_seconds", "_task", "_waiting")

    def __init__(self, seconds: float) -> None:
        self._loop = asyncio.get_running_loop()
        self._seconds = seconds
        self._task: asyncio.Task[object] | None = None
        self._began = 0.0
        self._waiting = False
        self._expired = False
        self._handle: asyncio.TimerHandle | None = None

    async def next(self, stream: AsyncIterator[T]) -> T:
        """``anext(stream)``, or ``TimeoutError`` once it has waited ``seconds``."""
        # Whoever iterates now is who waits. The loop is named: finding the running one
        # costs a system call (getpid) per item on Python 3.11.
        self._task = asyncio.current_task(self._loop)
        self._began = self._loop.time()
        if self._handle is None:
            self._handle = self._loop.call_at(self._began + self._seconds, self._due)
        self._waiting = True
        try:
            return await anext(stream)
        except asyncio.CancelledError:
            if self._expired and self._task is not None and self._task.uncancel() == 0:
                self._expired = False
                raise TimeoutError from None
            raise
        finally:
            self._waiting = False

    def close(self) -> None:
        """Drop the timer (idempotent); call it when the stream is done with."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _due(self) -> None:
        now = self._loop.time()
        if not self._waiting:
            # Between waits: the next one cannot end sooner than a whole limit from now.
            self._handle = self._loop.call_at(now + self._seconds, self._due)
            return
        deadline = self._began + self._seconds
        if now < deadline:
            # A wait that began after the timer was set: due at its own deadline.
            self._handle = self._loop.call_at(deadline, self._due)
            return
        self._handle = None
        if self._task is not None and not self._task.done():
            self._expired = True
            self._task.cancel()
