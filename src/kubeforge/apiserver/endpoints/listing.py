"""LIST and WATCH requests: query validation, selectors, resourceVersion, pagination.

Entry point: ``Lister.list_or_watch``. Semantics (real server, ``get.go`` and the
storage layer):

* ``resourceVersion`` unset: the latest state. ``"0"``: any state (the latest here);
  ``limit`` is ignored, as the watch cache ignores it. ``"N"``: not older than N, or
  exactly N with ``resourceVersionMatch=Exact`` (410 once N left the kept history).
  An N ahead of the store waits up to 3 s, then answers 504 ``ResourceVersionTooLarge``.
* ``limit``/``continue``: every page comes from the snapshot at the first page's
  revision (``Storage.snapshot``); tokens and page boundaries are ``storage.pages``'. Once
  that revision left the kept history the answer is 410, its message ending in a
  token that continues (inconsistently) at the latest revision.
* Unsupported field selectors answer 400 ``field label not supported: X``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.endpoints import partial, protobody
from kubeforge.apiserver.endpoints.listoptions import (
    error_event,
    parse_int64,
    parse_resource_version,
    without_type_meta,
)
from kubeforge.apiserver.endpoints.request import Target
from kubeforge.apiserver.endpoints.responses import table_response
from kubeforge.apiserver.endpoints.watch import WatchHub, WatchRequest, stream_watch
from kubeforge.apiserver.endpoints.watch_conversion import WatchConversion
from kubeforge.apiserver.failures import FieldError, StatusError
from kubeforge.apiserver.meta.queryparams import query_bool, query_optional_bool
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.apiserver.storage.pages import (
    EXPIRED_CONTINUE,
    decode_continue,
    encode_continue,
    key_string,
    key_tuple,
    page,
)
from kubeforge.apiserver.storage.sqlite import ExpiredError, Storage
from kubeforge.core.selectors import (
    FieldSelector,
    LabelSelector,
    SelectorError,
    parse_field_selector,
    parse_label_selector,
)
from kubeforge.core.status import failure

__all__ = ["Lister"]

_TOO_LARGE_WAIT = 3.0


def _list_options_invalid(errors: list[FieldError]) -> StatusError:
    return failures.invalid("ListOptions", "meta.k8s.io", "", errors)


class Lister:
    """Serves collection GETs: lists (with Table output) and watches."""

    def __init__(self, engine: Engine, storage: Storage, hub: WatchHub) -> None:
        self.engine = engine
        self.storage = storage
        self.hub = hub

    # --- selection ---------------------------------------------------------------------------

    def _selectors(
        self, request: web.Request, strategy: Strategy
    ) -> tuple[LabelSelector, FieldSelector]:
        try:
            labels = parse_label_selector(request.query.get("labelSelector"))
            fields = parse_field_selector(request.query.get("fieldSelector"))
        except SelectorError as error:
            raise failures.bad_request(str(error)) from None
        supported = strategy.supported_fields()
        for field in fields.fields():
            if field not in supported:
                raise failures.bad_request(f"field label not supported: {field}")
        return labels, fields

    def matcher(self, request: web.Request, target: Target) -> Callable[[dict[str, Any]], bool]:
        strategy = self.engine.strategy(target.served)
        labels, fields = self._selectors(request, strategy)
        namespace = target.namespace
        # The deprecated single-object watch path selects by name.
        name = target.name

        def matches(obj: dict[str, Any]) -> bool:
            meta = obj.get("metadata") or {}
            if namespace is not None and meta.get("namespace") != namespace:
                return False
            if name and meta.get("name") != name:
                return False
            if not labels.matches(meta.get("labels")):
                return False
            return fields.empty() or fields.matches(strategy.field_set(obj))

        return matches

    def select(self, request: web.Request, target: Target) -> list[dict[str, Any]]:
        matches = self.matcher(request, target)
        objects = self.storage.objects(target.served.storage_key, target.namespace)
        return [obj for obj in objects if matches(obj)]

    # --- entry point ---------------------------------------------------------------------------

    async def list_or_watch(
        self, request: web.Request, target: Target, tables: Any
    ) -> web.StreamResponse:
        query = request.query
        watching = target.legacy_watch or query_bool(query, "watch")
        verb = "watch" if watching else "list"
        if verb not in target.served.verbs:
            raise failures.method_not_allowed(
                target.served.info,
                "the server does not allow this method on the requested resource",
            )
        rv = query.get("resourceVersion", "")
        if rv:
            parse_resource_version(rv)
        if query.get("timeoutSeconds"):  # a ListOptions field: decoded for lists too
            parse_int64(query["timeoutSeconds"])
        # Metadata-only output (``partial``) and Table output: the first one asked for wins.
        conversion = partial.negotiate(request)
        table = conversion is None and tables is not None and tables.wants_table(request)
        include = query.get("includeObject", "Metadata")
        if watching:
            return await self._watch(
                request, target, rv, tables if table else None, include, conversion
            )
        return await self._list(request, target, rv, tables if table else None, include, conversion)

    # --- list --------------------------------------------------------------------------------

    async def _list(
        self,
        request: web.Request,
        target: Target,
        rv: str,
        tables: Any,
        include: str,
        conversion: partial.Conversion | None = None,
    ) -> web.Response:
        query = request.query
        match = query.get("resourceVersionMatch", "")
        token = query.get("continue", "")
        errors: list[FieldError] = []
        if match and match not in ("Exact", "NotOlderThan"):
            errors.append(
                FieldError.not_supported(
                    "resourceVersionMatch", match, ("Exact", "NotOlderThan", "")
                )
            )
        if match and not rv:
            errors.append(
                FieldError(
                    "Forbidden",
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                )
            )
        if match and token:
            errors.append(
                FieldError(
                    "Forbidden",
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                )
            )
        if match == "Exact" and rv == "0":
            errors.append(
                FieldError(
                    "Forbidden",
                    "resourceVersionMatch",
                    'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                )
            )
        if "sendInitialEvents" in query:
            errors.append(
                FieldError(
                    "Forbidden", "sendInitialEvents", "sendInitialEvents is forbidden for list"
                )
            )
        if errors:
            raise _list_options_invalid(errors)
        if token and rv and rv != "0":
            raise failures.bad_request(
                "specifying resource version is not allowed when using continue"
            )
        try:
            # A negative limit pages nothing, as etcd's store reads only limit > 0.
            limit = max(0, int(query.get("limit", "0") or 0))
        except ValueError:
            raise failures.bad_request(f"invalid limit: {query.get('limit')}") from None
        matches = self.matcher(request, target)
        key = target.served.storage_key

        start = ""
        if token:
            revision, start = decode_continue(token)
            if revision == -1:
                revision = self.storage.revision
            try:
                objects = self.storage.snapshot(key, revision)
            except ExpiredError:
                # etcd3's handleCompactedErrorForPaging: the Status's own list metadata
                # carries a token that continues, inconsistently, at the latest revision.
                error = failures.expired(EXPIRED_CONTINUE)
                error.status["metadata"] = {"continue": encode_continue(-1, start)}
                raise error from None
        elif match == "Exact":
            revision = int(rv)
            await self._wait_for(revision)
            try:
                objects = self.storage.snapshot(key, revision)
            except ExpiredError:
                raise failures.expired(
                    "The resourceVersion for the provided list is too old."
                ) from None
        else:
            if rv and rv != "0":
                await self._wait_for(int(rv))
            revision = self.storage.revision
            objects = self.storage.objects(key, target.namespace)
        if rv == "0" and not token:
            limit = 0  # served "from cache": the real watch cache ignores limit here
        start_key = key_tuple(start.rstrip("\x00")) if start else None
        metadata: dict[str, Any] = {"resourceVersion": str(revision)}
        unfiltered = not query.get("labelSelector") and not query.get("fieldSelector")
        selected, following = page(
            objects, target.namespace, start_key, matches, limit, count=unfiltered
        )
        if following:
            metadata["continue"] = encode_continue(revision, key_string(selected[-1]) + "\x00")
            if unfiltered:
                metadata["remainingItemCount"] = following
        served = target.served
        items = await conversions.run_converting(lambda: self.engine.view_many(served, selected))
        if conversion is not None:
            return partial.list_response(conversion, served, items, metadata)
        if tables is not None:
            return table_response(tables, tables.to_table(served, items, metadata, include))
        info = served.info
        if served.builtin:
            # A typed Go list: its items' TypeMeta is empty (custom resources keep theirs).
            items = [without_type_meta(item) for item in items]
        body = {
            "kind": info.list_kind,
            "apiVersion": info.api_version,
            "metadata": metadata,
            "items": items,
        }
        return protobody.object_response(request, body)

    async def _wait_for(self, revision: int) -> None:
        """Wait (up to 3 s, like the real server) for the store to reach ``revision``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _TOO_LARGE_WAIT
        while self.storage.revision < revision:
            if loop.time() >= deadline:
                message = (
                    f"Timeout: Too large resource version: {revision}, current: "
                    f"{self.storage.revision}"
                )
                status = failure(
                    504,
                    "Timeout",
                    message,
                    {
                        "causes": [
                            {
                                "reason": "ResourceVersionTooLarge",
                                "message": "Too large resource version",
                            }
                        ],
                        "retryAfterSeconds": 1,
                    },
                )
                raise StatusError(status)
            await asyncio.sleep(0.05)

    # --- watch -------------------------------------------------------------------------------

    async def _watch(
        self,
        request: web.Request,
        target: Target,
        rv: str,
        tables: Any,
        include: str,
        conversion: partial.Conversion | None = None,
    ) -> web.StreamResponse:
        query = request.query
        match = query.get("resourceVersionMatch", "")
        send_initial = query_optional_bool(query, "sendInitialEvents")
        bookmarks = query_bool(query, "allowWatchBookmarks")
        errors: list[FieldError] = []
        if send_initial is None and match:
            errors.append(
                FieldError(
                    "Forbidden",
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                    "provided",
                )
            )
        if send_initial is not None:
            if match != "NotOlderThan":
                errors.append(
                    FieldError(
                        "Forbidden",
                        "resourceVersionMatch",
                        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                    )
                )
            if not bookmarks:
                errors.append(
                    FieldError(
                        "Forbidden",
                        "allowWatchBookmarks",
                        "sendInitialEvents requires setting allowWatchBookmarks to true",
                    )
                )
        if errors:
            raise _list_options_invalid(errors)
        timeout_raw = query.get("timeoutSeconds")
        # 0 means "the server's default", as on the real server.
        timeout = float(parse_int64(timeout_raw)) or None if timeout_raw else None
        served = target.served
        engine = self.engine
        convert = partial.for_watch(conversion)

        def shape(viewed: dict[str, Any]) -> dict[str, Any]:
            if convert is not None:
                return convert(viewed)
            if tables is None:
                return viewed
            meta = {"resourceVersion": str(viewed["metadata"].get("resourceVersion", ""))}
            result: dict[str, Any] = tables.to_table(served, [viewed], meta, include)
            return result

        converting = WatchConversion.of(engine, served, shape)

        def render(obj: dict[str, Any]) -> dict[str, Any]:
            viewed = converting.view(obj)
            return viewed if converting.pending(viewed) else shape(viewed)

        if send_initial is False and rv in ("", "0"):
            rv = str(self.storage.revision)  # no initial events: start "now"
        # Watches that filter and render alike share the work of each event (see ``watch``).
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
            conversion if convert is not None else None,
        )
        # Bookmarks take the kind the events carry; encoded lines are shared by rendering.
        kind, api_version = served.info.kind, served.info.api_version
        cache_key = f"{api_version};{rules}" if tables is None else None
        if convert is not None and conversion is not None:
            kind, api_version = partial.OBJECT_KIND, conversion.api_version
            cache_key = f"{served.info.api_version};{rules};as={kind};{api_version}"
        watch = WatchRequest(
            resource=served.storage_key,
            kind=kind,
            api_version=api_version,
            matches=self.matcher(request, target),
            resource_version=rv,
            timeout=timeout,
            bookmarks=bookmarks,
            send_initial_events=send_initial,
            render=render,
            group=group,
            cache_key=cache_key,
        )
        if send_initial and rv not in ("", "0"):
            # The cacher's waitUntilWatchCacheFreshAndForceAllEvents: up to 3 s for the
            # store to reach rv, else one ERROR event (Too large resource version).
            try:
                await self._wait_for(int(rv))
            except StatusError as error:
                return await error_event(request, error.status)
        return await stream_watch(request, self.storage, self.hub, watch, finish=converting.finish)
