"""An in-memory stand-in for ``Api.list``/``Api.watch`` that drives the watcher state machine.

It fakes the Api interface, not HTTP: objects are plain dicts, resourceVersions
come from one counter, and every change is logged so a watch can start from any
version still in the log. Tests script failures (``fail_next_list``,
``fail_watches``), clean ends (``end_watches``) and compaction (``compact``). A watch
with ``send_initial_events`` streams the current objects and the
``k8s.io/initial-events-end`` bookmark first, as a 1.32 server does, unless
``refuse_streaming_lists`` makes it answer 422 as a server without WatchList.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from kubeforge.core import errors
from kubeforge.core.objects import key_of
from kubeforge.core.refs import ObjectKey
from kubeforge.core.resource import ResourceInfo


def obj(name: str, namespace: str = "default", **fields: Any) -> dict[str, Any]:
    """A minimal dynamic object."""
    return {"metadata": {"name": name, "namespace": namespace}, **fields}


def gone() -> errors.Gone:
    return errors.Gone(
        {
            "status": "Failure",
            "reason": "Expired",
            "code": 410,
            "message": "too old resource version",
        }
    )


def invalid(message: str) -> errors.Invalid:
    return errors.Invalid(
        {"status": "Failure", "reason": "Invalid", "code": 422, "message": message}
    )


@dataclass
class Page:
    items: list[dict[str, Any]]
    resource_version: str
    continue_: str | None = None


@dataclass
class Event:
    type: str
    object: dict[str, Any]


@dataclass
class ListCall:
    resource_version: str | None
    limit: int | None
    continue_: str | None
    label_selector: str | None


@dataclass
class _Stream:
    since: int
    queue: asyncio.Queue[Event | BaseException | None] = field(default_factory=asyncio.Queue)


WIDGETS = ResourceInfo(group="example.com", version="v1", kind="Widget", plural="widgets")


class FakeApi:
    """``list`` and ``watch`` over an in-memory collection of Widgets with a change log."""

    info = WIDGETS

    def __init__(self) -> None:
        self.rv = 0
        self.objects: dict[ObjectKey, dict[str, Any]] = {}
        self.log: list[Event] = []  # every change, in order; log[i] has rv i + 1 + offset
        self.oldest = 0  # watches from an rv below this get 410 (compacted)
        self.list_calls: list[ListCall] = []
        self.watch_calls: list[str | None] = []
        self.streaming_calls: list[str | None] = []
        self.refuse_streaming_lists = False
        self._list_failures: list[BaseException] = []
        self.expire_continue_tokens = False  # a continued list gets 410 (token too old)
        self._watch_start_failures: list[BaseException] = []
        self._streams: list[_Stream] = []

    # -- mutations (the "server" side) ---------------------------------------------------

    def _bump(self, o: dict[str, Any]) -> dict[str, Any]:
        self.rv += 1
        o = copy.deepcopy(o)
        o["metadata"]["resourceVersion"] = str(self.rv)
        return o

    def _emit(self, event: Event) -> None:
        self.log.append(event)
        for stream in self._streams:
            stream.queue.put_nowait(copy.deepcopy(event))

    def inject(self, type_: str, o: dict[str, Any]) -> None:
        """Send an event as is to every open watch (to test what the watcher accepts)."""
        stored = self._bump(o)
        for stream in self._streams:
            stream.queue.put_nowait(Event(type_, stored))

    def put(self, o: dict[str, Any]) -> dict[str, Any]:
        """Create or update; returns the stored object (with its new resourceVersion)."""
        key = key_of(o)
        kind = "MODIFIED" if key in self.objects else "ADDED"
        stored = self._bump(o)
        self.objects[key] = stored
        self._emit(Event(kind, stored))
        return stored

    def remove(self, name: str, namespace: str = "default") -> None:
        stored = self._bump(self.objects.pop(ObjectKey(namespace, name)))
        self._emit(Event("DELETED", stored))

    def put_silently(self, o: dict[str, Any]) -> None:
        """Change state without telling open watches (a change missed during an outage)."""
        stored = self._bump(o)
        self.objects[key_of(o)] = stored
        self.log.append(Event("ADDED", stored))

    def remove_silently(self, name: str, namespace: str = "default") -> None:
        stored = self._bump(self.objects.pop(ObjectKey(namespace, name)))
        self.log.append(Event("DELETED", stored))

    def bookmark(self) -> None:
        """Advance the version without a change (another resource changed) and bookmark it."""
        self.rv += 1
        mark = Event("BOOKMARK", {"metadata": {"resourceVersion": str(self.rv)}})
        for stream in self._streams:
            stream.queue.put_nowait(mark)

    def compact(self) -> None:
        """Forget the log: any watch from an older version now gets 410."""
        self.oldest = self.rv

    def end_watches(self) -> None:
        """The server closes every open watch cleanly (its timeoutSeconds passed)."""
        for stream in self._streams:
            stream.queue.put_nowait(None)

    def fail_watches(self, error: BaseException) -> None:
        """Every open watch raises ``error`` (an ERROR event or a broken connection)."""
        for stream in self._streams:
            stream.queue.put_nowait(error)

    def fail_next_list(self, *failures: BaseException) -> None:
        self._list_failures.extend(failures)

    def fail_next_watch(self, *failures: BaseException) -> None:
        """The next watch requests fail before streaming anything."""
        self._watch_start_failures.extend(failures)

    @property
    def open_watches(self) -> int:
        return len(self._streams)

    async def watching(self, count: int = 1) -> None:
        """Return once ``count`` watch streams are open (the watcher opens them lazily)."""
        for _ in range(10_000):
            if len(self._streams) >= count:
                return
            await asyncio.sleep(0)
        raise AssertionError(f"expected {count} open watch(es), have {len(self._streams)}")

    async def calls(self, watches: int) -> None:
        """Return once ``watches`` watch requests have been made."""
        for _ in range(10_000):
            if len(self.watch_calls) >= watches:
                return
            await asyncio.sleep(0)
        raise AssertionError(f"expected {watches} watch call(s), have {self.watch_calls}")

    # -- the Api interface ----------------------------------------------------------------

    async def list(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        resource_version: str | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> Page:
        self.list_calls.append(ListCall(resource_version, limit, continue_, label_selector))
        await asyncio.sleep(0)
        if self._list_failures:
            raise self._list_failures.pop(0)
        if continue_ and self.expire_continue_tokens:
            self.expire_continue_tokens = False
            raise gone()
        items = [copy.deepcopy(o) for _, o in sorted(self.objects.items())]
        if label_selector:
            k, _, v = label_selector.partition("=")
            items = [o for o in items if o["metadata"].get("labels", {}).get(k) == v]
        start = int(continue_.split(":")[1]) if continue_ else 0
        snapshot = continue_.split(":")[0] if continue_ else str(self.rv)
        if limit:
            page, rest = items[start : start + limit], items[start + limit :]
            token = f"{snapshot}:{start + limit}" if rest else None
            return Page(page, snapshot, token)
        return Page(items, snapshot)

    async def watch(
        self,
        *,
        resource_version: str | None = None,
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        send_initial_events: bool = False,
    ) -> AsyncIterator[Event]:
        initial: list[Event] = []
        if send_initial_events:
            self.streaming_calls.append(resource_version)
            if self.refuse_streaming_lists:
                raise invalid("sendInitialEvents is forbidden for watch")
            initial, resource_version = self._initial_events(), str(self.rv)
        else:
            self.watch_calls.append(resource_version)
        if self._watch_start_failures:
            raise self._watch_start_failures.pop(0)
        since = int(resource_version or 0)
        if since < self.oldest:
            raise gone()
        stream = _Stream(since)
        for event in initial:
            stream.queue.put_nowait(event)
        for event in self.log:
            if int(event.object["metadata"]["resourceVersion"]) > since:
                stream.queue.put_nowait(copy.deepcopy(event))
        self._streams.append(stream)
        try:
            while True:
                item = await stream.queue.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self._streams.remove(stream)

    def _initial_events(self) -> list[Event]:
        mark = {
            "metadata": {
                "resourceVersion": str(self.rv),
                "annotations": {"k8s.io/initial-events-end": "true"},
            }
        }
        added = [Event("ADDED", copy.deepcopy(o)) for o in self.objects.values()]
        return [*added, Event("BOOKMARK", mark)]


class FakeSource:
    """An ``ApiSource`` handing out one ``FakeApi`` per (kind, namespace)."""

    def __init__(self) -> None:
        self.apis: dict[tuple[str, str | None], FakeApi] = {}

    def _get(self, kind: str, namespace: str | None) -> FakeApi:
        return self.apis.setdefault((kind, namespace), FakeApi())

    def api(self, kind: type[Any], namespace: str | None = None) -> Any:
        return self._get(kind.info.kind, namespace)

    def dynamic(self, info: ResourceInfo, namespace: str | None = None) -> Any:
        return self._get(info.kind, namespace)
