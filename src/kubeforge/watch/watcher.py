"""One resumable stream of a resource's state: list, then watch. See ``watcher()``.

The state machine is client-go's reflector shaped as kube-rs's watcher: a
paginated list announced by ``Init`` ... ``InitDone``, then a watch from the
list's resourceVersion with bookmarks, re-watched from the last seen version
when the server ends it, and relisted when the server says that version is gone.

With ``WatcherConfig(initial_list="streaming")`` the initial state arrives as a
watch instead of a list (client-go's WatchListClient, kube-rs's StreamingList): a
watch with ``sendInitialEvents=true`` sends an ``ADDED`` event per object and then
a bookmark annotated ``k8s.io/initial-events-end``, so no page of objects is ever
held at once. A server that refuses it gets a paged list for that sync instead.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, cast, runtime_checkable

from kubeforge.core import errors
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.objects import resource_version_of
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.watch._idle import IdleLimit
from kubeforge.watch.backoff import Backoff, ExponentialBackoff
from kubeforge.watch.events import Apply, Delete, Event, Init, InitApply, InitDone, T

__all__ = ["LazyListWatch", "ListWatch", "StreamingListWatch", "WatcherConfig", "watcher"]

log = logging.getLogger("kubeforge.watch")

_T_co = TypeVar("_T_co", covariant=True)
_K_co = TypeVar("_K_co", bound=Resource | dict[str, Any], covariant=True)

# A watch that ends cleanly this fast without one event is a server or proxy
# failing in disguise (client-go's "very short watch"): back off, don't spin.
_VERY_SHORT_WATCH = 1.0

# The apiVersions of metadata-only objects (``PartialObjectMetadata``), which stand for any kind.
_METADATA_VERSIONS = ("meta.k8s.io/v1", "meta.k8s.io/v1beta1")

# The annotation of the bookmark that ends a streaming list's initial events.
_INITIAL_EVENTS_END = "k8s.io/initial-events-end"

# Seconds of silence beyond the server-side timeout after which a watch counts as dead.
_IDLE_MARGIN = 5.0

# Failures after which the same resourceVersion is still good: retry the watch.
# Anything else (403, 404, ...) ends this list/watch cycle and relists.
_RETRY_WATCH: tuple[type[Exception], ...] = (
    TimeoutError,  # our idle timeout: nothing arrived long after the server should have ended
    errors.TransportError,
    errors.TooManyRequests,
    errors.InternalError,
    errors.ServiceUnavailable,
    errors.ServerTimeout,
)


class ObjectPage(Protocol[_T_co]):
    """One page of a list response (``client.ObjectList`` and ``client.LazyPage`` satisfy it)."""

    @property
    def items(self) -> Iterable[_T_co]: ...

    @property
    def resource_version(self) -> str | None: ...

    @property
    def continue_(self) -> str | None: ...


class WatchEvent(Protocol[_T_co]):
    """One decoded watch event (``client.WatchEvent`` satisfies it)."""

    @property
    def type(self) -> str: ...

    @property
    def object(self) -> _T_co: ...


class ListWatch(Protocol[_K_co]):
    """What ``watcher()`` needs from an ``Api[T]``: its ``info``, ``list`` and ``watch``."""

    @property
    def info(self) -> ResourceInfo: ...

    async def list(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        resource_version: str | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> ObjectPage[_K_co]: ...

    def watch(
        self,
        *,
        resource_version: str | None = None,
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> AsyncIterator[WatchEvent[_K_co]]: ...


@runtime_checkable
class LazyListWatch(ListWatch[_K_co], Protocol[_K_co]):
    """A ``ListWatch`` that can decode a page one item at a time (``Api[T]`` can): the
    watcher then lists with ``list_lazily``, which keeps a cache's memory compact."""

    async def list_lazily(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        resource_version: str | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> ObjectPage[_K_co]: ...


class StreamingListWatch(ListWatch[_K_co], Protocol[_K_co]):
    """A ``ListWatch`` whose watch can start with the current state
    (``initial_list="streaming"``); ``Api[T]`` satisfies it."""

    def watch(
        self,
        *,
        resource_version: str | None = None,
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        send_initial_events: bool = False,
    ) -> AsyncIterator[WatchEvent[_K_co]]: ...


@dataclass(frozen=True, slots=True)
class WatcherConfig:
    """What to watch and how; every field has a default."""

    label_selector: str | None = None
    """Only objects whose labels match (``app=web,tier!=db``). Defaults to all."""

    field_selector: str | None = None
    """Only objects whose fields match (``metadata.name=x``). Defaults to all."""

    timeout_seconds: int = 290
    """Server-side ``timeoutSeconds`` of each watch request. Defaults to 290 s as in
    kube-rs: under the 5 minutes many load balancers allow an idle connection, and the
    watch is simply re-opened from the last resourceVersion when it ends."""

    page_size: int | None = 500
    """Objects per list page. Defaults to 500, client-go's pager default; ``None``
    asks for everything at once."""

    list_semantic: Literal["any", "most_recent"] = "any"
    """``"any"`` lists with ``resourceVersion=0`` (the server may answer from its
    cache, cheap), ``"most_recent"`` with ``""`` (a consistent read). Defaults to
    ``"any"`` like client-go's first list. A relist after 410 Gone always uses
    ``""``, so it can never be answered from the same stale version again."""

    bookmarks: bool = True
    """Ask for BOOKMARK events so a resumed watch rarely meets 410. Defaults to on."""

    initial_list: Literal["paged", "streaming"] = "paged"
    """How the state is read at start and after 410 Gone. ``"paged"`` lists it in pages
    of ``page_size``; ``"streaming"`` watches with ``sendInitialEvents=true`` and
    ``resourceVersionMatch=NotOlderThan`` (Kubernetes >= 1.27 with the ``WatchList``
    feature, on by default from 1.32), which keeps peak memory at one object instead
    of one page and spares the server the paged list. The API must accept
    ``send_initial_events`` in ``watch()`` (``Api[T]`` does). A server that refuses
    it (an error before the initial events end) is listed in pages for that sync, as
    client-go falls back. Defaults to ``"paged"``, as client-go 1.32's
    ``WatchListClient`` feature is off by default; the initial state is always read
    at the latest version, whatever ``list_semantic`` says."""


async def watcher(
    api: ListWatch[T],
    config: WatcherConfig | None = None,
    *,
    clock: Clock | None = None,
    backoff: Backoff | None = None,
) -> AsyncGenerator[Event[T], None]:
    """List, then watch, forever; yield the resource's state as ``Event``\\ s.

    **Guarantees**

    - Starts with ``Init``, ``InitApply`` for every listed object, ``InitDone``.
    - Then ``Apply``/``Delete`` in the server's order, watched from the list's
      resourceVersion, so nothing between the list and the watch is missed.
    - A watch the server ends cleanly is re-opened from the last resourceVersion
      seen (event or bookmark) without relisting.
    - 410 Gone (watch ERROR event, or an expired continue token) relists with a
      consistent read at once; a second 410 in a row waits for the backoff first.
    - Any other failure is logged and retried after ``backoff`` (by default
      0.8 s doubling to 30 s with jitter, reset after 2 quiet minutes): a watch
      that failed for a transient reason (connection lost, 429, 5xx) is re-opened
      from the same resourceVersion; a list, or a watch refused for another
      reason, is retried as a relist, not older than the last version seen
      (listed in one page, at that version or later).

    **Caveats**: never ends by itself; close it (``aclose()``) or cancel the task
    iterating it. Objects are handed over as decoded, never copied.
    """
    clock = clock or MonotonicClock()
    backoff = backoff or ExponentialBackoff(clock=clock)
    config = config or WatcherConfig()
    default_list_rv = "0" if config.list_semantic == "any" else ""
    list_rv = default_list_rv
    rv: str | None = None  # None: the next step is a (re)list
    gone_in_a_row = 0

    stream_next_sync = config.initial_list == "streaming"

    while True:
        if rv is None:
            yield Init()
            streaming, stream_next_sync = stream_next_sync, config.initial_list == "streaming"
            if streaming:
                state = _streamed_state(cast("StreamingListWatch[T]", api), config, list_rv)
            else:
                state = _listed_state(api, config, list_rv)
            try:
                async for state_event in state:
                    if isinstance(state_event, InitDone):
                        rv = state_event.resource_version
                    yield state_event
            except (errors.ApiError, errors.TransportError, TimeoutError, _StreamEnded) as err:
                if streaming:
                    # client-go's reflector too: making progress beats insisting.
                    log.info("streaming list of %r: %s; listing in pages instead", api, err)
                    stream_next_sync = False
                elif _is_stale(err) and list_rv != "":
                    log.info("list of %r: %s; relisting from the latest version", api, err)
                    list_rv = ""
                else:
                    log.warning("list of %r failed: %s", api, err)
                    await clock.sleep(backoff.next_delay())
                continue
            finally:
                await state.aclose()
            list_rv = default_list_rv

        started, seen = clock.now(), 0
        stream = api.watch(
            resource_version=rv,
            allow_bookmarks=config.bookmarks,
            timeout_seconds=config.timeout_seconds,
            label_selector=config.label_selector,
            field_selector=config.field_selector,
        )
        # The server ends the watch after timeout_seconds; silence well past that
        # means a dead connection nobody closed (kube-rs's idle-timeout margin).
        idle = IdleLimit(config.timeout_seconds + _IDLE_MARGIN)
        try:
            while True:
                try:
                    event = await idle.next(stream)
                except StopAsyncIteration:
                    break
                seen += 1
                gone_in_a_row = 0
                if event.type != "BOOKMARK" and not _is_kind(event.object, api.info):
                    # client-go's reflector skips these too: never let another kind into
                    # a cache, whatever the server sent.
                    log.warning("watch of %r: skipping an object of another kind", api)
                    continue
                # Every event, bookmark included, moves the resume point forward.
                rv = resource_version_of(event.object) or rv
                if event.type in ("ADDED", "MODIFIED"):
                    yield Apply(event.object)
                elif event.type == "DELETED":
                    yield Delete(event.object)
                elif event.type != "BOOKMARK":
                    log.warning("watch of %r: ignoring event of type %r", api, event.type)
        except errors.Gone as err:
            gone_in_a_row += 1
            log.info("watch of %r: %s; relisting", api, err)
            rv, list_rv = None, ""
            if gone_in_a_row > 1:
                await clock.sleep(backoff.next_delay())
            continue
        except _RETRY_WATCH as err:
            log.warning("watch of %r failed: %r; re-watching from %s", api, err, rv)
            await clock.sleep(backoff.next_delay())
            continue
        except errors.ApiError as err:
            log.warning("watch of %r refused: %s; relisting", api, err)
            # Relist no older than what was already seen, so the cache never goes back
            # in time (client-go's relistResourceVersion); 410 then falls back to "".
            rv, list_rv = None, rv or default_list_rv
            await clock.sleep(backoff.next_delay())
            continue
        finally:
            idle.close()
            await _aclose(stream)
        if seen == 0 and clock.now() - started < _VERY_SHORT_WATCH:
            log.warning("watch of %r closed at once without events; backing off", api)
            await clock.sleep(backoff.next_delay())


class _StreamEnded(Exception):
    """The server ended a streaming list before its initial events were all sent."""


async def _listed_state(
    api: ListWatch[T], config: WatcherConfig, list_rv: str
) -> AsyncGenerator[Event[T], None]:
    """``InitApply`` for every object of a paged list at ``list_rv``, then ``InitDone``."""
    lister = api.list_lazily if isinstance(api, LazyListWatch) else api.list
    token: str | None = None
    while True:
        page = await lister(
            label_selector=config.label_selector,
            field_selector=config.field_selector,
            # A continued page must not name a version: the token carries it.
            resource_version=None if token else list_rv,
            # Paging is only for "any" and "latest": a page at a given version
            # would be served from storage at that exact version (client-go).
            limit=config.page_size if list_rv in ("", "0") else None,
            continue_=token,
        )
        token, listed_rv = page.continue_ or None, page.resource_version or ""
        objects = _one_by_one(page.items)
        del page
        for item in objects:
            yield InitApply(item)
        if token is None:
            yield InitDone(resource_version=listed_rv)
            return


def _one_by_one(items: Iterable[T]) -> Iterator[T]:
    """``items`` (a page's, which nothing else holds), keeping no reference to those
    already handed over: a consumer that stores them compactly frees each decoded
    object as it goes, instead of the whole page staying alive while watching."""
    if not isinstance(items, list):
        yield from items
        return
    items.reverse()
    while items:
        yield items.pop()


async def _streamed_state(
    api: StreamingListWatch[T], config: WatcherConfig, list_rv: str
) -> AsyncGenerator[Event[T], None]:
    """``InitApply`` for every ``ADDED`` event of a watch with ``sendInitialEvents``,
    then ``InitDone`` at the bookmark that ends them.

    ``list_rv`` "0" (any version) is asked as "" (the latest): with
    ``NotOlderThan`` both are served, and the latest never goes back in time.
    """
    stream = api.watch(
        resource_version="" if list_rv == "0" else list_rv,
        allow_bookmarks=True,
        timeout_seconds=config.timeout_seconds,
        label_selector=config.label_selector,
        field_selector=config.field_selector,
        send_initial_events=True,
    )
    idle = IdleLimit(config.timeout_seconds + _IDLE_MARGIN)
    try:
        while True:
            try:
                event = await idle.next(stream)
            except StopAsyncIteration:
                raise _StreamEnded("the watch ended before the initial events did") from None
            if event.type == "BOOKMARK":
                if _ends_initial_events(event.object):
                    yield InitDone(resource_version=resource_version_of(event.object) or "")
                    return
            elif event.type != "ADDED":
                raise _StreamEnded(f"a {event.type} event among the initial events")
            elif _is_kind(event.object, api.info):
                yield InitApply(event.object)
            else:
                log.warning("watch of %r: skipping an object of another kind", api)
    finally:
        idle.close()
        await _aclose(stream)


def _ends_initial_events(obj: Resource | dict[str, Any]) -> bool:
    """True for the bookmark annotated ``k8s.io/initial-events-end: "true"``."""
    if isinstance(obj, Resource):
        annotations = obj.metadata.annotations if obj.metadata else None
    else:
        annotations = (obj.get("metadata") or {}).get("annotations")
    return annotations is not None and annotations.get(_INITIAL_EVENTS_END) == "true"


def _is_kind(obj: Resource | dict[str, Any], info: ResourceInfo) -> bool:
    """False when the object says it is another kind (fields left empty are not checked).

    ``meta.k8s.io`` ``PartialObjectMetadata`` stands for any kind: it is what a
    metadata-only list/watch carries.
    """
    kind: object
    api_version: object
    if isinstance(obj, Resource):
        kind, api_version = obj.kind, obj.api_version
    else:
        kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if kind == "PartialObjectMetadata" and api_version in _METADATA_VERSIONS:
        return True
    return (not kind or kind == info.kind) and (not api_version or api_version == info.api_version)


def _is_stale(err: Exception) -> bool:
    """410 Gone/Expired, or a 504 saying the version is newer than the server has."""
    if isinstance(err, errors.Gone):
        return True
    if isinstance(err, errors.ServerTimeout):
        causes = err.details.get("causes") or []
        return any(c.get("reason") == "ResourceVersionTooLarge" for c in causes)
    return False


async def _aclose(stream: AsyncIterator[object]) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
