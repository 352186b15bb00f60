"""From a ``?watch=true`` request to the ``WatchRequest`` the fan-out serves, then the stream.

The query's watch options are checked (``listoptions.check_watch_options``), each event
is given the shape the client asked for (the URL's version, a Table row, or metadata
only: ``partial``), and watches that select and shape alike are put in one group, so
the fan-out filters and encodes each event once for all of them (``storage.fanout``).
``sendInitialEvents`` with a resourceVersion ahead of the store waits for it as the
watch cache does, or ends with one ``ERROR`` event.

Entry point: ``serve_watch(request, target, engine, storage, hub, matcher, rv, ...)``, called by
``listing.Lister``; the stream itself is ``watch.stream_watch``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from aiohttp import web

from kubeforge.apiserver.endpoints import partial
from kubeforge.apiserver.endpoints.listoptions import (
    check_watch_options,
    error_event,
    parse_int64,
    wait_for_revision,
)
from kubeforge.apiserver.endpoints.request import Target
from kubeforge.apiserver.endpoints.watch import WatchHub, WatchRequest, stream_watch
from kubeforge.apiserver.endpoints.watch_conversion import WatchConversion
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.storage.sqlite import Storage
from kubeforge.apiserver.storage.watch_routes import WatchIndex, namespace_index
from kubeforge.core.selectors import parse_field_selector

__all__ = ["serve_watch"]

Shape = Callable[[dict[str, Any]], dict[str, Any]]


async def serve_watch(
    request: web.Request,
    target: Target,
    engine: Engine,
    storage: Storage,
    hub: WatchHub,
    matcher: Callable[[], Callable[[dict[str, Any]], bool]],
    rv: str,
    tables: Any,
    include: str,
    conversion: partial.Conversion | None = None,
) -> web.StreamResponse:
    """Stream the watch ``request`` asks for; ``matcher()`` gives its selection (called
    after the options are checked, so their errors come first)."""
    query = request.query
    send_initial, bookmarks = check_watch_options(query)
    timeout_raw = query.get("timeoutSeconds")
    # 0 means "the server's default", as on the real server.
    timeout = float(parse_int64(timeout_raw)) or None if timeout_raw else None
    served = target.served
    convert = partial.for_watch(conversion)
    shape = _shape(served, convert, tables, include)
    converting = WatchConversion.of(engine, served, shape)

    def render(obj: dict[str, Any]) -> dict[str, Any]:
        viewed = converting.view(obj)
        return viewed if converting.pending(viewed) else shape(viewed)

    if send_initial is False and rv in ("", "0"):
        rv = str(storage.revision)  # no initial events: start "now"
    group, kind, api_version, cache_key = _sharing(
        request, target, engine, tables, include, conversion if convert is not None else None
    )
    watch = WatchRequest(
        resource=served.storage_key,
        kind=kind,
        api_version=api_version,
        matches=matcher(),
        resource_version=rv,
        timeout=timeout,
        bookmarks=bookmarks,
        send_initial_events=send_initial,
        render=render,
        group=group,
        cache_key=cache_key,
        index=_index(request, target, engine),
    )
    if send_initial and rv not in ("", "0"):
        # The cacher's waitUntilWatchCacheFreshAndForceAllEvents: up to 3 s for the
        # store to reach rv, else one ERROR event (Too large resource version).
        try:
            await wait_for_revision(storage, int(rv))
        except StatusError as error:
            return await error_event(request, error.status)
    return await stream_watch(request, storage, hub, watch, finish=converting.finish)


def _shape(served: Any, convert: Shape | None, tables: Any, include: str) -> Shape:
    """What one event's object becomes: metadata only, a one-row Table, or itself."""

    def shape(viewed: dict[str, Any]) -> dict[str, Any]:
        if convert is not None:
            return convert(viewed)
        if tables is None:
            return viewed
        meta = {"resourceVersion": str(viewed["metadata"].get("resourceVersion", ""))}
        result: dict[str, Any] = tables.to_table(served, [viewed], meta, include)
        return result

    return shape


def _index(request: web.Request, target: Target, engine: Engine) -> WatchIndex | None:
    """A value every object this watch can see has, so the fan-out asks it only about
    those (``storage.watch_routes``): an exact field (``metadata.name`` first, then
    the first of the selector's), else the namespace. Called after ``matcher()``
    accepted the selector."""
    fields = parse_field_selector(request.query.get("fieldSelector"))
    strategy = engine.strategy(target.served)
    for name in ("metadata.name", *fields.fields()):
        value = fields.requires_exact_match(name)
        if value is not None:
            return _field_index(strategy, name, value)
    return namespace_index(target.namespace) if target.namespace is not None else None


def _field_index(strategy: Any, name: str, value: str) -> WatchIndex:
    def read(obj: dict[str, Any]) -> str:
        # As the watch's own filter compares it: a field the object lacks is "".
        found: str = strategy.field_set(obj).get(name, "")
        return found

    # The strategy is in the name: watches read alike only through the same one.
    return WatchIndex(("field", id(strategy), name), read, value)


def _sharing(
    request: web.Request,
    target: Target,
    engine: Engine,
    tables: Any,
    include: str,
    conversion: partial.Conversion | None,
) -> tuple[Hashable, str, str, str | None]:
    """``(group, kind, api_version, cache_key)``: watches of one group filter and render
    alike and share the work of each event (see ``watch``); bookmarks carry ``kind`` and
    ``api_version``; encoded lines are shared by ``cache_key``."""
    served, query = target.served, request.query
    # A CRD change installs a new strategy (new defaults on read): its watches and
    # encoded lines must not be shared with those rendered under the old one.
    rules = engine.rules_version(served)
    group = (
        served.info,
        rules,
        target.namespace,
        target.name,
        query.get("labelSelector", ""),
        query.get("fieldSelector", ""),
        tables is not None,
        include if tables is not None else "",
        conversion,
    )
    kind, api_version = served.info.kind, served.info.api_version
    cache_key = f"{api_version};{rules}" if tables is None else None
    if conversion is not None:
        kind, api_version = partial.OBJECT_KIND, conversion.api_version
        cache_key = f"{served.info.api_version};{rules};as={kind};{api_version}"
    return group, kind, api_version, cache_key
