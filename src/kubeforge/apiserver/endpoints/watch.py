"""Watch streams: newline-delimited JSON events, written in order, batched per wake-up.

Entry point: ``stream_watch`` (called by the list handler for ``?watch=true``);
``storage.fanout`` delivers the events (``WatchHub`` and ``WatchRequest`` are re-exported).

* ``resourceVersion`` unset or ``"0"``: synthetic ADDED for every matching object,
  then changes. ``"N"``: every change after N from the kept history; N older than
  the history gets HTTP 200 and one ERROR event (410 ``Expired``), as the watch
  cache answers.
* The snapshot (or history slice) and joining the fan-out are one synchronous
  step, so no change can fall between them.
* ``allowWatchBookmarks``: a BOOKMARK ``bookmark_interval`` seconds (60, as 1.32's
  watch cache) after the watch began or after its last bookmark, and one 2 s before
  its timeout (``_next_bookmark``), each only if its RV is past the one the watch
  started from; its RV means "everything up to here sent". None when the stream ends.
* ``WatchHub`` ends streams when the server stops or a CRD's resource goes away.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractStreamWriter

from kubeforge.apiserver.storage.fanout import WatchHub, WatchRequest, line, transition
from kubeforge.apiserver.storage.sqlite import ExpiredError, Storage
from kubeforge.apiserver.storage.watch_log import WRITE_BATCH, Member
from kubeforge.core.status import failure

__all__ = ["MIN_REQUEST_TIMEOUT", "WatchHub", "WatchRequest", "stream_watch"]

Finish = Callable[[bytes], Awaitable[bytes]]
"""Turns a chunk of watch lines into what is written (see ``watch_conversion``)."""

MIN_REQUEST_TIMEOUT = web.AppKey("kubeforge.min_request_timeout", float)
"""Seconds (``--min-request-timeout``): a watch without ``timeoutSeconds`` ends after a
random time in [1x, 2x) of it, as on the real server (1800 when unset)."""

# How often an idle stream checks that its client is still connected: the server
# does not cancel handlers on disconnect, and an idle watch never fails a write.
_IDLE_CHECK = 1.0
# The watch cache's last bookmark comes this long before a watch's deadline, so a
# client resuming after the timeout starts from as recent a revision as it can.
_BOOKMARK_BEFORE_DEADLINE = 2.0
# Unsent bytes above which a stream stops taking direct writes from the fan-out and
# its task writes instead, waiting for the client to read (aiohttp's own limit).
_SINK_LIMIT = 0x10000


async def stream_watch(
    request: web.Request,
    storage: Storage,
    hub: WatchHub,
    watch: WatchRequest,
    finish: Finish | None = None,
) -> web.StreamResponse:
    """Serve one watch until its timeout, the client leaving, or the hub stopping it;
    ``finish`` (a conversion webhook's, see ``watch_conversion``) is awaited on every
    chunk before it is written, so the fan-out never writes to this stream directly."""
    hub.attach(storage)
    encode = hub.encoder(watch)

    # Snapshot and subscribe in one synchronous step: no change can fall between them.
    initial, start_revision, expired = _initial_lines(storage, watch, encode)
    rv = watch.resource_version
    member: Member | None = None
    leave: Callable[[], None] = lambda: None  # noqa: E731
    if expired is None:
        last_sent = max(start_revision, int(rv) if rv.isdigit() else 0)
        member, leave = hub.join(watch, object(), last_sent)

    response = web.StreamResponse(status=200)
    response.content_type = "application/json"
    response.enable_chunked_encoding()
    try:
        # The snapshot may hold writes still in the open transaction: send it once
        # they are durable (events after it come from the fan-out, committed only).
        await storage.durable(start_revision)
        writer = await response.prepare(request)  # headers are on the wire from here
        if member is None:
            status = failure(410, "Expired", str(expired))
            await response.write(line("ERROR", status))
            return response
        for start in range(0, len(initial), WRITE_BATCH):
            chunk = b"".join(initial[start : start + WRITE_BATCH])
            await response.write(chunk if finish is None else await finish(chunk))
        if watch.send_initial_events and watch.bookmarks:
            await response.write(_bookmark(watch, member.last_sent, initial_end=True))
        assert writer is not None
        member.sink = _sink(request) if finish is None else None
        member.abort = _abort(request)
        await _pump(request, response, writer, member, hub, watch, storage, finish)
    except ConnectionResetError:
        pass  # the client went away; nothing to tell it
    finally:
        if member is not None:
            member.sink = member.abort = None
        leave()
    return response


def _initial_lines(
    storage: Storage, watch: WatchRequest, encode: Callable[[str, dict[str, Any]], bytes]
) -> tuple[list[bytes], int, ExpiredError | None]:
    """What the stream starts with: ``(lines, revision they reach, expired)``. Synthetic
    ADDED lines for every matching object (``resourceVersion`` unset, ``"0"``, or with
    ``sendInitialEvents``), else every change after the resourceVersion from the kept
    history (``expired`` once it left the history)."""
    initial: list[bytes] = []
    rv = watch.resource_version
    start_revision = storage.revision
    if rv in ("", "0") or (watch.send_initial_events and rv):
        for obj in storage.objects(watch.resource):
            if watch.matches(obj):
                initial.append(encode("ADDED", obj))
        if rv not in ("", "0"):
            start_revision = max(start_revision, int(rv))
        return initial, start_revision, None
    try:
        for event in storage.events_after(int(rv)):
            if event.resource != watch.resource:
                continue  # the history holds every resource's events
            type_ = transition(event, watch.matches)
            if type_ is not None:
                initial.append(encode(type_, event.object))
    except ExpiredError as error:
        return initial, start_revision, error
    return initial, start_revision, None


def _sink(request: web.Request) -> Callable[[bytes], bool]:
    """Write one chunk of the (chunked) stream straight to the socket, unless it is
    closing or still holds ``_SINK_LIMIT`` unsent bytes (then the stream's task writes,
    waiting for the client). aiohttp sent the headers at ``prepare`` and sends the
    last chunk when the handler returns, so the framing stays whole."""
    transport = request.transport

    def sink(data: bytes) -> bool:
        if (
            transport is None
            or transport.is_closing()
            or transport.get_write_buffer_size() > _SINK_LIMIT
        ):
            return False
        transport.write(_chunk(data))
        return True

    return sink


def _abort(request: web.Request) -> Callable[[], None]:
    """Drop the connection at once: what is left for a watcher that stopped reading."""

    def abort() -> None:
        transport = request.transport
        if transport is not None:
            transport.abort()

    return abort


def _chunk(data: bytes) -> bytes:
    """``data`` framed as one HTTP/1.1 chunk. The streams of a group are handed the same
    bytes object in a tick, so the last framing is kept and reused."""
    global _last_chunk
    if _last_chunk[0] is not data:
        _last_chunk = (data, b"%x\r\n%b\r\n" % (len(data), data))
    return _last_chunk[1]


_last_chunk: tuple[bytes, bytes] = (b"", b"")


def _bookmark(watch: WatchRequest, revision: int, *, initial_end: bool = False) -> bytes:
    meta: dict[str, Any] = {"resourceVersion": str(revision), "creationTimestamp": None}
    if initial_end:
        meta["annotations"] = {"k8s.io/initial-events-end": "true"}
    return line("BOOKMARK", {"kind": watch.kind, "apiVersion": watch.api_version, "metadata": meta})


def _next_bookmark(now: float, deadline: float, every: float) -> float | None:
    """When a stream's next BOOKMARK is due, as 1.32's watch cache schedules them
    (``cacheWatcher.nextBookmarkTime``): ``every`` seconds from now, or 2 s before the
    watch's deadline if that comes first; none once that moment has passed, so a watch
    of 2 s or less gets none and no stream ends with one."""
    due = min(now + every, deadline - _BOOKMARK_BEFORE_DEADLINE)
    return due if due > now else None


def _backed_up(request: web.Request) -> bool:
    transport = request.transport
    return transport is not None and transport.get_write_buffer_size() > _SINK_LIMIT


def _disconnected(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


async def _pump(
    request: web.Request,
    response: web.StreamResponse,
    writer: AbstractStreamWriter,
    member: Member,
    hub: WatchHub,
    watch: WatchRequest,
    storage: Storage,
    finish: Finish | None,
) -> None:
    loop = asyncio.get_running_loop()
    # No timeoutSeconds: the real server picks one in [min, 2 x min) of --min-request-timeout.
    least = request.app.get(MIN_REQUEST_TIMEOUT, 1800.0)
    timeout = watch.timeout if watch.timeout is not None else least * (1 + random.random())
    deadline = loop.time() + timeout
    started_at = member.last_sent
    every = hub.bookmark_interval
    next_bookmark = _next_bookmark(loop.time(), deadline, every) if watch.bookmarks else None
    # One timer wakes the stream for deadlines, bookmarks and liveness checks; it is
    # re-armed only when it fires or something due sooner comes up, not per event.
    timer: asyncio.TimerHandle | None = None
    timer_at = 0.0
    try:
        while True:
            if member.overflowed:
                return  # too far behind: the client re-watches from the last RV it got
            if member.pending():
                data, member.last_sent = member.take(member.last_sent)
                if data and finish is not None:
                    data = await finish(data)
                if data:
                    await response.write(data)
                    if _backed_up(request):
                        await writer.drain()  # the sink's writes bypass aiohttp's own count
                continue
            if member.closed:
                return  # the server stops, or the resource went away
            now = loop.time()
            if now >= deadline:
                return
            if next_bookmark is not None and now >= next_bookmark:
                # Nothing pending: every event up to the current revision has been handled.
                revision = max(member.last_sent, storage.committed)
                if revision > started_at:  # the watch cache sends none that is not newer
                    await response.write(_bookmark(watch, revision))
                next_bookmark = _next_bookmark(now, deadline, every)
                continue
            if _disconnected(request):
                return
            wake = deadline if next_bookmark is None else min(deadline, next_bookmark)
            wake = min(wake, now + _IDLE_CHECK)
            if timer is None or timer_at <= now or wake < timer_at:
                if timer is not None:
                    timer.cancel()
                timer, timer_at = loop.call_at(wake, member.wake), wake
            member.waiter = loop.create_future()
            await member.waiter
    finally:
        if timer is not None:
            timer.cancel()
