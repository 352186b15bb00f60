"""Watch streams: newline-delimited JSON events, one flushed write per event.

Entry point: ``stream_watch`` (called by the list handler for ``?watch=true``).

* ``resourceVersion`` unset or ``"0"``: synthetic ADDED for every matching object,
  then changes. ``"N"``: every change after N from the kept history; N older than
  the history gets HTTP 200 and one ERROR event (410 ``Expired``), as the watch
  cache answers.
* The snapshot (or history slice) and the subscription are taken in one
  synchronous step, so no change can fall between them.
* Selector transitions: an update that makes an object stop matching is sent as
  DELETED, one that makes it start matching as ADDED.
* ``allowWatchBookmarks``: a BOOKMARK every ``bookmark_interval`` seconds and one
  when the stream ends on its timeout; its RV means "everything up to here sent".
* ``WatchHub`` ends streams when the server stops or a CRD's resource goes away.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver.storage import Event, ExpiredError, ResourceKey, Storage
from kubeforge.core.status import failure

__all__ = ["WatchHub", "WatchRequest", "stream_watch"]

# A watcher this far behind is cut off (the real server drops slow watchers too);
# its client re-watches from the last RV it saw.
_MAX_BACKLOG = 20000


class WatchHub:
    """The open watch streams, so they can be ended from outside."""

    def __init__(self) -> None:
        self._streams: dict[asyncio.Event, ResourceKey] = {}
        self.bookmark_interval = 5.0

    def register(self, resource: ResourceKey) -> asyncio.Event:
        stop = asyncio.Event()
        self._streams[stop] = resource
        return stop

    def unregister(self, stop: asyncio.Event) -> None:
        self._streams.pop(stop, None)

    def close(self, resource: ResourceKey) -> None:
        """End every stream on ``resource`` (its CRD was deleted)."""
        for stop, key in list(self._streams.items()):
            if key == resource:
                stop.set()

    def close_all(self) -> None:
        for stop in list(self._streams):
            stop.set()


@dataclass
class WatchRequest:
    """What one watch asks for; ``matches`` applies namespace, label and field selectors."""

    resource: ResourceKey
    kind: str
    api_version: str
    matches: Callable[[dict[str, Any]], bool]
    resource_version: str = ""
    timeout: float | None = None
    bookmarks: bool = False
    send_initial_events: bool | None = None
    render: Callable[[dict[str, Any]], dict[str, Any]] = field(default=lambda obj: obj)


def _line(type_: str, obj: dict[str, Any]) -> bytes:
    return orjson.dumps({"type": type_, "object": obj}) + b"\n"


def _transition(event: Event, matches: Callable[[dict[str, Any]], bool]) -> str | None:
    """The event type this watcher sees, given its filter on the old and new state."""
    now = matches(event.object)
    if event.type == "ADDED":
        return "ADDED" if now else None
    if event.type == "DELETED":
        before = matches(event.previous) if event.previous is not None else now
        return "DELETED" if before else None
    before = matches(event.previous) if event.previous is not None else now
    if now and before:
        return "MODIFIED"
    if now:
        return "ADDED"
    if before:
        return "DELETED"
    return None


async def stream_watch(
    request: web.Request, storage: Storage, hub: WatchHub, watch: WatchRequest
) -> web.StreamResponse:
    """Serve one watch until its timeout, the client leaving, or the hub stopping it."""
    queue: asyncio.Queue[Event | None] = asyncio.Queue()

    def listener(event: Event) -> None:
        if event.resource != watch.resource:
            return
        if queue.qsize() > _MAX_BACKLOG:
            queue.put_nowait(None)  # sentinel: give up on this slow watcher
            return
        queue.put_nowait(event)

    # --- snapshot + subscribe in one synchronous step --------------------------------------
    initial: list[bytes] = []
    expired: ExpiredError | None = None
    rv = watch.resource_version
    start_revision = storage.revision
    if rv in ("", "0") or (watch.send_initial_events and rv):
        for obj in storage.objects(watch.resource):
            if watch.matches(obj):
                initial.append(_line("ADDED", watch.render(obj)))
        if rv not in ("", "0"):
            start_revision = max(start_revision, int(rv))
    else:
        try:
            for event in storage.events_after(int(rv)):
                if event.resource != watch.resource:
                    continue  # the history holds every resource's events
                type_ = _transition(event, watch.matches)
                if type_ is not None:
                    initial.append(_line(type_, watch.render(event.object)))
        except ExpiredError as error:
            expired = error
    unsubscribe = storage.subscribe(listener) if expired is None else (lambda: None)
    stop = hub.register(watch.resource)

    response = web.StreamResponse(status=200)
    response.content_type = "application/json"
    response.enable_chunked_encoding()
    try:
        await response.prepare(request)
        if expired is not None:
            status = failure(410, "Expired", str(expired))
            await response.write(_line("ERROR", status))
            return response
        for line in initial:
            await response.write(line)
        last_sent = max(start_revision, int(rv) if rv.isdigit() else 0)
        if watch.send_initial_events and watch.bookmarks:
            await response.write(_bookmark(watch, last_sent, initial_end=True))
        await _pump(response, queue, stop, hub, watch, storage, last_sent)
    except ConnectionResetError:
        pass  # the client went away; nothing to tell it
    finally:
        unsubscribe()
        hub.unregister(stop)
    return response


def _bookmark(watch: WatchRequest, revision: int, *, initial_end: bool = False) -> bytes:
    meta: dict[str, Any] = {"resourceVersion": str(revision), "creationTimestamp": None}
    if initial_end:
        meta["annotations"] = {"k8s.io/initial-events-end": "true"}
    return _line(
        "BOOKMARK", {"kind": watch.kind, "apiVersion": watch.api_version, "metadata": meta}
    )


async def _pump(
    response: web.StreamResponse,
    queue: asyncio.Queue[Event | None],
    stop: asyncio.Event,
    hub: WatchHub,
    watch: WatchRequest,
    storage: Storage,
    last_sent: int,
) -> None:
    loop = asyncio.get_running_loop()
    # No timeoutSeconds: the real server picks one in [30 min, 60 min).
    timeout = watch.timeout if watch.timeout is not None else 1800 * (1 + random.random())
    deadline = loop.time() + timeout
    next_bookmark = loop.time() + hub.bookmark_interval
    stopper = asyncio.ensure_future(stop.wait())
    try:
        while True:
            now = loop.time()
            if now >= deadline:
                if watch.bookmarks:
                    await response.write(_bookmark(watch, max(last_sent, storage.revision)))
                return
            wake = min(deadline, next_bookmark) if watch.bookmarks else deadline
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait(
                {getter, stopper}, timeout=max(0.0, wake - now), return_when=asyncio.FIRST_COMPLETED
            )
            if getter not in done:
                getter.cancel()
            if stopper in done:
                return
            if getter in done:
                event = getter.result()
                if event is None:
                    return
                if event.revision <= last_sent:
                    continue  # at or before the requested RV (it was ahead of the store)
                last_sent = event.revision
                type_ = _transition(event, watch.matches)
                if type_ is not None:
                    await response.write(_line(type_, watch.render(event.object)))
                continue
            if watch.bookmarks and loop.time() >= next_bookmark and queue.empty():
                # Queue drained: every event up to the current revision has been handled.
                await response.write(_bookmark(watch, max(last_sent, storage.revision)))
                next_bookmark = loop.time() + hub.bookmark_interval
    finally:
        stopper.cancel()
