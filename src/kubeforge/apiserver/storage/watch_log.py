"""A watch group's log of encoded lines, and each member stream's place in it.

Watches that filter and render alike form one ``WatchGroup``: the fan-out appends each
event's line to the group's log once, and every ``Member`` (one per stream) reads the
log at its own position. Deliveries are batched per tick (``gap``): the first event
after a quiet tick goes out at once, later ones with the next tick. A member too far
behind (``_MAX_BACKLOG`` events or the hub's byte limit) is cut off, as the real
server drops watchers that cannot keep up; the log is trimmed behind the slowest member.

Entry points: ``WatchGroup(matches, encode, gap, max_bytes)`` and ``Member(group)``,
made by ``fanout.WatchHub.join``; ``Member.take`` is what a stream writes.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Callable
from typing import Any

__all__ = ["DEFAULT_BACKLOG_BYTES", "WRITE_BATCH", "Member", "WatchGroup"]

# A watcher this many events, or more than the hub's max_backlog_bytes, behind its
# group is cut off (the real server drops watchers that cannot keep up); its client
# re-watches from the last RV it saw, or relists on 410.
_MAX_BACKLOG = 50_000
DEFAULT_BACKLOG_BYTES = 32 * 1024 * 1024
# At most this many events per socket write, so a huge backlog is not one huge buffer.
WRITE_BATCH = 2048
# The group log is trimmed once this many entries were read by every member.
_TRIM_AT = 1024


class Member:
    """One stream's place in its group's log, and how to hand it new events.

    While its stream is parked (waiting for events) and its socket has room, new
    events are written from the fan-out itself (``sink``): no task wake-up per
    stream per tick. Otherwise (a write in progress, a slow client) the stream's own
    task is woken and writes with back-pressure.
    """

    __slots__ = (
        "abort",
        "closed",
        "group",
        "last_sent",
        "overflowed",
        "position",
        "sink",
        "waiter",
    )

    def __init__(self, group: WatchGroup, last_sent: int = 0) -> None:
        self.group = group
        self.position = group.end  # absolute index of the next entry to read
        self.last_sent = last_sent  # revision of the last event written (or skipped)
        self.waiter: asyncio.Future[None] | None = None
        self.sink: Callable[[bytes], bool] | None = None
        """Writes bytes at once, or returns False (socket full or closing): set by the stream."""
        self.abort: Callable[[], None] | None = None
        """Drops the connection: set by the stream, for a client that stopped reading."""
        self.closed = False
        self.overflowed = False

    def wake(self) -> None:
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def notify(self) -> None:
        """New events: write them from here when the stream is parked, else wake it."""
        sink = self.sink
        if sink is not None and self.waiter is not None and not self.closed:
            while self.pending():
                position, last_sent = self.position, self.last_sent
                data, self.last_sent = self.take(last_sent)
                if data and not sink(data):
                    self.position, self.last_sent = position, last_sent  # the task retries
                    break
            else:
                return
        self.wake()

    def close(self) -> None:
        self.closed = True
        self.wake()

    def pending(self) -> bool:
        return self.position < self.group.end

    def take(self, after: int) -> tuple[bytes, int]:
        """Up to ``WRITE_BATCH`` new lines for events after revision ``after``, joined,
        and the revision of the last one taken (``after`` when none)."""
        group = self.group
        start = self.position - group.base
        stop = min(len(group.revisions), start + WRITE_BATCH)
        self.position = group.base + stop
        if start >= stop:
            return b"", after
        last = max(after, group.revisions[stop - 1])
        if group.revisions[start] <= after:
            # Only when the requested RV was ahead of the store: skip up to it.
            start = bisect.bisect_right(group.revisions, after, start, stop)
        return group.joined(start, stop), last


class WatchGroup:
    """Watches sharing one filter and rendering: each event is checked and encoded once."""

    __slots__ = (
        "_joined",
        "base",
        "base_bytes",
        "encode",
        "ends",
        "flush_at",
        "flush_due",
        "gap",
        "late",
        "lines",
        "matches",
        "max_bytes",
        "members",
        "revisions",
    )

    def __init__(
        self,
        matches: Callable[[dict[str, Any]], bool],
        encode: Callable[[str, dict[str, Any]], bytes],
        gap: Callable[[float], float],
        max_bytes: int = DEFAULT_BACKLOG_BYTES,
    ) -> None:
        self.matches = matches
        self.encode = encode
        self.gap = gap
        self.max_bytes = max_bytes
        self.members: set[Member] = set()
        self.revisions: list[int] = []
        self.lines: list[bytes] = []
        self.ends: list[int] = []  # bytes appended up to and including each line
        self.base = 0  # absolute index of revisions[0]
        self.base_bytes = 0  # bytes appended before revisions[0]
        self.flush_at: asyncio.TimerHandle | asyncio.Handle | None = None
        self.flush_due = 0.0  # loop time the pending flush was asked for
        self.late = 0.0  # how late the last flush came
        self._joined: tuple[int, int, bytes] = (0, 0, b"")

    @property
    def end(self) -> int:
        return self.base + len(self.revisions)

    def joined(self, start: int, stop: int) -> bytes:
        """Lines ``start:stop`` (relative to ``base``) as one bytes object: the members of
        a tick all read the same slice, so it is joined once and shared."""
        first, last, data = self._joined
        if (first, last) != (self.base + start, self.base + stop):
            data = b"".join(self.lines[start:stop])
            self._joined = (self.base + start, self.base + stop, data)
        return data

    def bytes_from(self, position: int) -> int:
        """Bytes of the lines from absolute index ``position`` to the end."""
        index = position - self.base
        before = self.ends[index - 1] if index > 0 else self.base_bytes
        return (self.ends[-1] if self.ends else self.base_bytes) - before

    def append(self, revision: int, data: bytes, loop: asyncio.AbstractEventLoop) -> None:
        self.revisions.append(revision)
        self.lines.append(data)
        self.ends.append((self.ends[-1] if self.ends else self.base_bytes) + len(data))
        if len(self.revisions) >= _TRIM_AT:
            self._trim()
        if self.flush_at is None:
            self._arm(loop, self.gap(0.0))
            # Deliver now too: the gap only delays the *next* delivery, not this one.
            for member in list(self.members):
                member.notify()

    def _arm(self, loop: asyncio.AbstractEventLoop, gap: float) -> None:
        self.flush_due = loop.time() + gap
        self.flush_at = loop.call_at(self.flush_due, self.flush)

    def flush(self) -> None:
        self.flush_at = None
        busy = False
        for member in list(self.members):
            if member.pending():
                busy = True
                member.notify()
        if busy and self.bytes_from(self.base) > self.max_bytes:
            # Checked once a tick, after every member had its chance to take its share,
            # so only a watcher that stopped reading is cut, not one caught by a burst.
            self._trim()
        if busy and self.members:
            # Still busy: the next event waits for the next tick instead of going out
            # at once, so a steady stream costs one delivery per tick, not two. Ticks
            # that keep coming late (the process is short of CPU) make the next one
            # longer by as much: fewer, fuller writes while the server is behind. One
            # late tick alone (a long callback, a collection) does not: the events that
            # waited through it would wait that long again.
            loop = asyncio.get_running_loop()
            late, self.late = self.late, max(0.0, loop.time() - self.flush_due)
            self._arm(loop, self.gap(min(late, self.late)))

    def _trim(self) -> None:
        behind = [
            member
            for member in self.members
            if self.end - member.position > _MAX_BACKLOG
            or self.bytes_from(member.position) > self.max_bytes
        ]
        for member in behind:
            member.overflowed = True
            member.close()  # too far behind: ends its stream, and stops pinning the log
            if member.abort is not None:
                member.abort()  # its task may be stuck writing to a client that stopped reading
            self.members.discard(member)
        lowest = min((m.position for m in self.members), default=self.end)
        drop = lowest - self.base
        if drop > 0:
            self.base_bytes = self.ends[drop - 1]
            del self.revisions[:drop]
            del self.lines[:drop]
            del self.ends[:drop]
            self.base = lowest
