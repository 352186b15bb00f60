"""LIST and WATCH requests: query validation, selectors, resourceVersion, pagination.

Entry point: ``Lister.list_or_watch``. Semantics (real server, ``get.go`` and the
storage layer):

* ``resourceVersion`` unset: the latest state. ``"0"``: any state (the latest here);
  ``limit`` is ignored, as the watch cache ignores it. ``"N"``: not older than N, or
  exactly N with ``resourceVersionMatch=Exact`` (410 once N left the kept history).
  An N ahead of the store waits up to 3 s, then answers 504 ``ResourceVersionTooLarge``.
* ``limit``/``continue``: every page comes from the state at the first page's
  revision (``storage.at_revision``); tokens and page boundaries are ``storage.pages``'. Once
  that revision left the kept history the answer is 410, its message ending in a
  token that continues (inconsistently) at the latest revision.
* Unsupported field selectors answer 400 ``field label not supported: X``.

The options' own rules are ``listoptions``'; a watch is set up by ``watch_request`` and
streamed by ``watch``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.endpoints import partial, protobody
from kubeforge.apiserver.endpoints.listing_body import array_of, json_list_response
from kubeforge.apiserver.endpoints.listoptions import (
    check_list_options,
    parse_int64,
    parse_resource_version,
    wait_for_revision,
    without_type_meta,
)
from kubeforge.apiserver.endpoints.request import Target
from kubeforge.apiserver.endpoints.watch import WatchHub
from kubeforge.apiserver.endpoints.watch_request import serve_watch
from kubeforge.apiserver.meta.queryparams import query_bool
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.apiserver.storage.at_revision import RevisionView
from kubeforge.apiserver.storage.pages import (
    EXPIRED_CONTINUE,
    decode_continue,
    encode_continue,
    key_string,
    key_tuple,
    read_page,
)
from kubeforge.apiserver.storage.sqlite import ExpiredError, Storage
from kubeforge.core.selectors import (
    FieldSelector,
    LabelSelector,
    SelectorError,
    parse_field_selector,
    parse_label_selector,
)

__all__ = ["Lister"]


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
            return await serve_watch(
                request,
                target,
                self.engine,
                self.storage,
                self.hub,
                lambda: self.matcher(request, target),
                rv,
                tables if table else None,
                include,
                conversion,
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
    ) -> web.StreamResponse:
        query = request.query
        check_list_options(query, rv)
        match = query.get("resourceVersionMatch", "")
        token = query.get("continue", "")
        try:
            # A negative limit pages nothing, as etcd's store reads only limit > 0.
            limit = max(0, int(query.get("limit", "0") or 0))
        except ValueError:
            raise failures.bad_request(f"invalid limit: {query.get('limit')}") from None
        matches = self.matcher(request, target)
        view, start = await self._read(target, rv, match, token)
        revision = view.revision
        if rv == "0" and not token:
            limit = 0  # served "from cache": the real watch cache ignores limit here
        start_key = key_tuple(start.rstrip("\x00")) if start else None
        metadata: dict[str, Any] = {"resourceVersion": str(revision)}
        unfiltered = not query.get("labelSelector") and not query.get("fieldSelector")
        selected, following = await read_page(view, start_key, matches, limit, count=unfiltered)
        if following:
            metadata["continue"] = encode_continue(revision, key_string(selected[-1]) + "\x00")
            if unfiltered:
                metadata["remainingItemCount"] = following
        served = target.served
        items = await conversions.run_converting(lambda: self.engine.view_many(served, selected))
        return await self._list_response(
            request, target, items, metadata, tables, include, conversion
        )

    async def _read(
        self, target: Target, rv: str, match: str, token: str
    ) -> tuple[RevisionView, str]:
        """``(view, start)``: the objects a list reads from, at the revision it reads at,
        and the key a continue token starts after (``""``: the beginning)."""
        key, namespace = target.served.storage_key, target.namespace
        if token:
            revision, start = decode_continue(token)
            if revision == -1:
                revision = self.storage.revision
            try:
                return RevisionView(self.storage, key, revision, namespace), start
            except ExpiredError:
                # etcd3's handleCompactedErrorForPaging: the Status's own list metadata
                # carries a token that continues, inconsistently, at the latest revision.
                error = failures.expired(EXPIRED_CONTINUE)
                error.status["metadata"] = {"continue": encode_continue(-1, start)}
                raise error from None
        if match == "Exact":
            revision = int(rv)
            await wait_for_revision(self.storage, revision)
            try:
                return RevisionView(self.storage, key, revision, namespace), ""
            except ExpiredError:
                raise failures.expired(
                    "The resourceVersion for the provided list is too old."
                ) from None
        if rv and rv != "0":
            await wait_for_revision(self.storage, int(rv))
        return RevisionView(self.storage, key, self.storage.revision, namespace), ""

    async def _list_response(
        self,
        request: web.Request,
        target: Target,
        items: list[dict[str, Any]],
        metadata: dict[str, Any],
        tables: Any,
        include: str,
        conversion: partial.Conversion | None,
    ) -> web.StreamResponse:
        """The list in the form asked for: metadata only, a Table, or the typed list."""
        served = target.served
        revision = int(metadata["resourceVersion"])
        if self.storage.committed < revision:
            # A long body is streamed from here, before the app's middleware would wait
            # for the commit: what it shows must be durable first.
            await self.storage.durable(revision)
        if conversion is not None:
            head, item = partial.list_parts(conversion, served, metadata)
            return await json_list_response(request, head, "items", items, array_of(item))
        if tables is not None:
            return await table_list_response(request, tables, served, items, metadata, include)
        info = served.info
        head = {"kind": info.list_kind, "apiVersion": info.api_version, "metadata": metadata}
        if protobody.wants_protobuf(request):
            encoded = await protobody.list_body(head, _typed(served, items))
            if encoded is not None:
                return web.Response(body=encoded, content_type=protobody.PROTOBUF)
        # A typed Go list: its items' TypeMeta is empty (custom resources keep theirs).
        transform = without_type_meta if served.builtin else None
        return await json_list_response(request, head, "items", items, array_of(transform))


def _typed(served: ServedResource, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [without_type_meta(item) for item in items] if served.builtin else items


async def table_list_response(
    request: web.Request,
    tables: Any,
    served: ServedResource,
    items: list[dict[str, Any]],
    metadata: dict[str, Any],
    include: str,
) -> web.StreamResponse:
    """A Table of ``items``, its rows made a chunk at a time (at one moment, for the ages)."""
    moment = datetime.now(UTC)
    head = tables.to_table(served, [], metadata, include, now=moment)
    del head["rows"]

    def rows(chunk: Sequence[dict[str, Any]]) -> bytes:
        table = tables.to_table(served, chunk, metadata, include, with_headers=False, now=moment)
        encoded: bytes = orjson.dumps(table["rows"])
        return encoded

    content_type = getattr(tables, "TABLE_CONTENT_TYPE", "application/json")
    return await json_list_response(request, head, "rows", items, rows, content_type)
