"""Watch fan-out: one storage listener hands each committed event to every open watch.

Entry point: ``WatchHub`` (one per server; ``watch.stream_watch`` joins it). Why it
is shaped like this: watches asking for the same thing (same resource, version,
selectors and output form) share a ``WatchGroup``: the filter runs and the event is
encoded once per group and appended to the group's log, which every ``Member``
reads at its own position. The encoded line is also cached by (resourceVersion,
type, apiVersion), so differently filtered watches share the encoding. Members
get everything new in one chunk at most once per tick (``WatchHub.gap``: longer
with more open streams, and while ticks come late), written straight from the
fan-out while a stream is idle, so a burst of writes costs each stream one socket
write per tick rather than one per event. Selector transitions (``transition``): an
update that makes an object stop matching is DELETED for that watch, one that makes
it start matching is ADDED. Watches scoped to a namespace or an exact field are
asked only about events on objects with that value (``watch_routes``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import orjson

from kubeforge.apiserver.storage.sqlite import Event, ResourceKey, Storage
from kubeforge.apiserver.storage.watch_log import DEFAULT_BACKLOG_BYTES, Member, WatchGroup
from kubeforge.apiserver.storage.watch_routes import Routes, WatchIndex

__all__ = ["DEFAULT_BOOKMARK_INTERVAL", "WatchHub", "WatchRequest", "line", "transition"]

log = logging.getLogger("kubeforge.apiserver.watch")

DEFAULT_BOOKMARK_INTERVAL = 60.0
"""Seconds between two BOOKMARKs on a watch that allows them: 1.32's watch cache's
``defaultBookmarkFrequency`` (a minute)."""

# Encoded lines kept for sharing between groups (a burst's worth).
_ENCODED_CACHE = 8192
# Under a steady stream of events each stream gets one socket write per tick. A
# socket write costs about the same however little it carries (~6-8 us of server CPU
# here: the kernel's loopback send, which also wakes the reader, is half of it, the
# TLS record and asyncio's SSL layer the rest), so the tick grows with the number of
# open streams to bound the fan-out's socket writes per second (_SENDS_PER_SECOND),
# between _MIN_GAP and _MAX_GAP seconds. The first event after a quiet tick goes out
# at once, so a lone write is seen without delay; under a sustained burst an event
# waits up to one tick. 100 streams get an 8 ms tick for ~0.09 of a core, whatever
# the write rate: of a 20 ms budget for delivery, the rest goes to the pass over
# the streams (~1 ms for 100), the loopback and the reader (measured at 2,000
# writes/s: committed -> read p99 16 ms with a 10 ms tick).
_MIN_GAP = 0.005
_MAX_GAP = 0.05
_SENDS_PER_SECOND = 12_500.0


def line(type_: str, obj: dict[str, Any]) -> bytes:
    return orjson.dumps({"type": type_, "object": obj}) + b"\n"


def transition(event: Event, matches: Callable[[dict[str, Any]], bool]) -> str | None:
    """The event type this watcher sees, given its filter on the old and new state."""
    now = matches(event.object)
    if event.type == "ADDED":
        return "ADDED" if now else None
    before = matches(event.previous) if event.previous is not None else now
    if event.type == "DELETED":
        return "DELETED" if before else None
    if now and before:
        return "MODIFIED"
    if now:
        return "ADDED"
    if before:
        return "DELETED"
    return None


@dataclass
class WatchRequest:
    """What one watch asks for; ``matches`` applies namespace, label and field selectors.

    ``group`` identifies watches that filter and render identically (they share the
    work); ``None`` keeps this watch on its own. ``cache_key`` (the apiVersion, when
    ``render`` only sets it) lets the encoded line be shared between groups. ``index``
    (a value every object ``matches`` accepts has) spares the fan-out from asking this
    watch about events on other objects (``watch_routes``).
    """

    resource: ResourceKey
    kind: str
    api_version: str
    matches: Callable[[dict[str, Any]], bool]
    resource_version: str = ""
    timeout: float | None = None
    bookmarks: bool = False
    send_initial_events: bool | None = None
    render: Callable[[dict[str, Any]], dict[str, Any]] = field(default=lambda obj: obj)
    group: Hashable | None = None
    cache_key: str | None = None
    index: WatchIndex | None = None


class WatchHub:
    """The open watch streams: fans each committed event out to them, and ends them."""

    def __init__(self) -> None:
        self.bookmark_interval = DEFAULT_BOOKMARK_INTERVAL
        self.max_backlog_bytes = DEFAULT_BACKLOG_BYTES
        self._groups: dict[ResourceKey, Routes] = {}
        self._attached: set[int] = set()
        self._encoded: dict[tuple[str, str, str], bytes] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._streams = 0

    def gap(self, late: float = 0.0) -> float:
        """Seconds between two deliveries to one stream while events keep coming; ``late``:
        how late the last delivery was (the loop was busy, or the process had no CPU)."""
        return min(_MAX_GAP, max(_MIN_GAP, self._streams / _SENDS_PER_SECOND) + late)

    # --- wiring ----------------------------------------------------------------------------

    def attach(self, storage: Storage) -> None:
        """Listen to ``storage`` (once); every stream of this hub reads from it."""
        self._loop = asyncio.get_running_loop()
        if id(storage) not in self._attached:
            self._attached.add(id(storage))
            storage.subscribe_durable(self._on_event)  # clients see committed events only

    def join(
        self, watch: WatchRequest, token: object, last_sent: int = 0
    ) -> tuple[Member, Callable[[], None]]:
        """A member for this watch, positioned at the current end; and how to leave."""
        routes = self._groups.get(watch.resource)
        if routes is None:
            routes = self._groups[watch.resource] = Routes()
        key: Hashable = watch.group if watch.group is not None else token
        index = watch.index
        group = routes.get(index, key)
        if group is None:
            group = WatchGroup(watch.matches, self.encoder(watch), self.gap, self.max_backlog_bytes)
            routes.add(index, key, group)
        member = Member(group, last_sent)
        group.members.add(member)
        self._streams += 1
        left = False

        def leave() -> None:
            nonlocal left
            if not left:
                left = True
                self._streams -= 1
            group.members.discard(member)
            if not group.members and routes.get(index, key) is group:
                routes.remove(index, key, group)
                if group.flush_at is not None:
                    group.flush_at.cancel()
                if not routes and self._groups.get(watch.resource) is routes:
                    del self._groups[watch.resource]

        return member, leave

    def encoder(self, watch: WatchRequest) -> Callable[[str, dict[str, Any]], bytes]:
        """How this watch turns ``(type, stored object)`` into one line of its stream."""
        render, cache_key = watch.render, watch.cache_key
        if cache_key is None:
            return lambda type_, obj: line(type_, render(obj))
        cache = self._encoded

        def encode(type_: str, obj: dict[str, Any]) -> bytes:
            # One object state per resourceVersion, so (RV, type, apiVersion) fixes the bytes.
            key = (str(obj["metadata"].get("resourceVersion")), type_, cache_key)
            data = cache.get(key)
            if data is None:
                data = cache[key] = line(type_, render(obj))
                if len(cache) > _ENCODED_CACHE:
                    del cache[next(iter(cache))]
            return data

        return encode

    def _on_event(self, event: Event) -> None:
        routes = self._groups.get(event.resource)
        if not routes or self._loop is None:
            return
        for group in routes.concerned(event.object, event.previous):
            try:
                type_ = transition(event, group.matches)
                if type_ is None:
                    continue
                data = group.encode(type_, event.object)
            except Exception:  # a rendering bug must not fail the write that is committed
                log.exception("watch: cannot render event %d; ending its streams", event.revision)
                for member in list(group.members):
                    member.close()
                continue
            group.append(event.revision, data, self._loop)

    # --- ending streams --------------------------------------------------------------------

    def _members(self, resource: ResourceKey | None) -> list[Member]:
        out: list[Member] = []
        for key, routes in self._groups.items():
            if resource is None or key == resource:
                for group in routes:
                    out.extend(group.members)
        return out

    def close(self, resource: ResourceKey) -> None:
        """End every stream on ``resource`` (its CRD was deleted)."""
        for member in self._members(resource):
            member.close()

    def close_all(self) -> None:
        for member in self._members(None):
            member.close()

    def watcher_count(self) -> int:
        return len(self._members(None))
