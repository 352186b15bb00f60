"""``Api[T]``: the verbs of one resource type in one namespace (or all of them).

Get one with ``client.api(Pod, namespace="default")`` (``T`` = the ``Resource``
class) or ``client.dynamic(info, namespace=...)`` (``T`` = ``dict[str, Any]``).
Every verb raises ``ApiError`` subclasses for the server's failures
(``NotFound``, ``Conflict``, ``AlreadyExists``, ``Invalid``, ...) and
``TransportError`` when the connection fails.

Write verbs take the API's write options as keywords: ``dry_run`` (validate and
answer, persist nothing), ``field_manager`` (who owns the fields written) and
``field_validation`` (``"Strict"`` refuses unknown fields, ``"Warn"`` reports them
as ``KubernetesWarning``). ``watch()`` is one HTTP watch and nothing more:
resuming after the server ends it and relisting after ``Gone`` belong to
``kubeforge.watch``.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from kubeforge.client._codec import Codec, encode
from kubeforge.client._options import (
    FieldValidation,
    PatchType,
    Preconditions,
    PropagationPolicy,
    delete_body,
    patch_content_type,
    write_params,
)
from kubeforge.client._paths import collection_path, object_path
from kubeforge.client._scale import ScaleVerbs
from kubeforge.client.requester import ParamValue, Requester
from kubeforge.client.wire import LazyPage, ObjectList, WatchEvent
from kubeforge.core.objects import name_of, namespace_of
from kubeforge.core.resource import Resource, ResourceInfo

__all__ = [
    "AcceptHeaders",
    "Api",
    "FieldValidation",
    "PatchType",
    "Preconditions",
    "PropagationPolicy",
]

T = TypeVar("T")

_JSON = "application/json"


@dataclass(frozen=True, slots=True)
class AcceptHeaders:
    """The ``Accept`` header an ``Api`` sends for an object, a list page and a watch, when
    it wants another representation than the plain object (see ``client.metadata``)."""

    object: str
    list: str
    watch: str


class Api(ScaleVerbs, Generic[T]):
    """Verbs for one resource (``info``) scoped to ``namespace`` (``None``: all namespaces).

    ``timeout`` (seconds) bounds each request instead of ``config.request_timeout``.
    ``accept`` asks for another representation than the plain object (metadata only).
    """

    def __init__(
        self,
        client: Requester,
        info: ResourceInfo,
        codec: Codec[T],
        namespace: str | None,
        *,
        timeout: float | None = None,
        accept: AcceptHeaders | None = None,
    ) -> None:
        self.client = client
        self.info = info
        self.namespace = namespace if info.namespaced else None
        self.timeout = timeout
        self._codec = codec
        self._accept = accept

    def __repr__(self) -> str:
        where = f"namespace={self.namespace!r}" if self.info.namespaced else "cluster"
        return f"<Api {self.info.group_resource} {where}>"

    # --- reads --------------------------------------------------------------------------------

    async def get(self, name: str, *, resource_version: str | None = None) -> T:
        """The object ``name``; ``resource_version="0"`` lets the server answer from its cache."""
        params: dict[str, ParamValue] = {}
        if resource_version is not None:
            params["resourceVersion"] = resource_version
        path = object_path(self.info, self.namespace, name)
        return self._codec.decode(await self._send("GET", path, params))

    async def list(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        resource_version: str | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> ObjectList[T]:
        """One page. Follow ``page.continue_`` (passing it back as ``continue_``) for the next,
        or use ``iterate()``."""
        body = await self._list_body(
            label_selector, field_selector, resource_version, limit, continue_
        )
        return self._codec.decode_list(body)

    async def list_lazily(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        resource_version: str | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> LazyPage[T]:
        """One page as ``list()`` reads it, its items decoded one by one as they are iterated
        (once): what a cache filling from large lists wants (see ``LazyPage``)."""
        body = await self._list_body(
            label_selector, field_selector, resource_version, limit, continue_
        )
        return self._codec.decode_page_lazily(body)

    async def _list_body(
        self,
        label_selector: str | None,
        field_selector: str | None,
        resource_version: str | None,
        limit: int | None,
        continue_: str | None,
    ) -> bytes:
        params: dict[str, ParamValue] = {}
        if label_selector:
            params["labelSelector"] = label_selector
        if field_selector:
            params["fieldSelector"] = field_selector
        if resource_version is not None:
            params["resourceVersion"] = resource_version
        if limit is not None:
            params["limit"] = limit
        if continue_:
            params["continue"] = continue_
        path = collection_path(self.info, self.namespace)
        accept = self._accept.list if self._accept else None
        return await self._send("GET", path, params, accept)

    async def iterate(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        page_size: int = 500,
    ) -> AsyncIterator[T]:
        """Every matching object, fetched ``page_size`` at a time as the iteration goes.

        All pages come from one consistent snapshot. If the snapshot expires before
        the iteration reaches the end (a slow consumer, ~5 minutes on a real server)
        the next page raises ``Gone``: start again, as client-go's pager does.
        """
        token: str | None = None
        while True:
            page = await self.list(
                label_selector=label_selector,
                field_selector=field_selector,
                limit=page_size,
                continue_=token,
            )
            for item in page.items:
                yield item
            token = page.continue_
            if not token:
                return

    async def watch(
        self,
        *,
        resource_version: str | None = None,
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        idle_timeout: float | None = None,
        send_initial_events: bool = False,
    ) -> AsyncIterator[WatchEvent[T]]:
        """Changes after ``resource_version``, as they happen, until the server ends the watch.

        With ``send_initial_events`` the watch starts with an ``ADDED`` event for every
        object at a version not older than ``resource_version`` ("" for the latest) and a
        ``BOOKMARK`` annotated ``k8s.io/initial-events-end``: a streaming list
        (``sendInitialEvents=true&resourceVersionMatch=NotOlderThan``; bookmarks must be on).

        Raises the ``Status`` of an ``ERROR`` event as ``ApiError`` (``Gone`` when the
        version is older than the server keeps) and ``TransportError`` if the
        connection breaks mid-stream, or if ``idle_timeout`` seconds pass without a
        byte (no event, no bookmark): a connection nobody closed. A clean end
        (``timeout_seconds`` reached) just stops the iteration.
        """
        params: dict[str, ParamValue] = {"watch": "true"}
        if resource_version is not None:
            params["resourceVersion"] = resource_version
        if send_initial_events:
            params["sendInitialEvents"] = "true"
            params["resourceVersionMatch"] = "NotOlderThan"
        if allow_bookmarks:
            params["allowWatchBookmarks"] = "true"
        if timeout_seconds is not None:
            params["timeoutSeconds"] = timeout_seconds
        if label_selector:
            params["labelSelector"] = label_selector
        if field_selector:
            params["fieldSelector"] = field_selector
        path = collection_path(self.info, self.namespace)
        decode = self._codec.decode_event
        accept = self._accept.watch if self._accept else None
        async for line in self.client.stream(
            path, params, idle_timeout=idle_timeout, accept=accept
        ):
            yield decode(line)

    # --- writes -------------------------------------------------------------------------------

    async def create(
        self,
        obj: T,
        *,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: FieldValidation | None = None,
    ) -> T:
        """POST ``obj``; returns what the server stored (uid, resourceVersion, defaults)."""
        namespace = self._namespace_for(obj)
        if self.info.namespaced and not namespace:
            raise ValueError(
                f"{self.info.group_resource} is namespaced: give the Api a namespace "
                "(client.api(cls, namespace=...)) or set metadata.namespace"
            )
        params = write_params(
            dry_run=dry_run, field_manager=field_manager, field_validation=field_validation
        )
        path = collection_path(self.info, namespace)
        return await self._write("POST", path, encode(self._with_type(obj)), _JSON, params)

    async def replace(
        self,
        obj: T,
        *,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: FieldValidation | None = None,
    ) -> T:
        """PUT ``obj``; ``Conflict`` if its ``resourceVersion`` is stale."""
        return await self._replace(obj, None, dry_run, field_manager, field_validation)

    async def replace_status(
        self,
        obj: T,
        *,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: FieldValidation | None = None,
    ) -> T:
        """PUT ``obj`` to the ``status`` subresource: only its status is taken."""
        return await self._replace(obj, "status", dry_run, field_manager, field_validation)

    async def patch(
        self,
        name: str,
        body: Any,
        *,
        patch_type: PatchType = "merge",
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: FieldValidation | None = None,
        subresource: str | None = None,
    ) -> T:
        """PATCH ``name`` with ``body`` (a dict, a JSON-patch list, or a typed partial object).

        ``patch_type``: ``"merge"`` (RFC 7386), ``"json"`` (RFC 6902), ``"strategic"``
        (built-in kinds only) or ``"apply"`` (prefer ``apply()``, which checks its inputs).
        """
        params = write_params(
            dry_run=dry_run, field_manager=field_manager, field_validation=field_validation
        )
        path = object_path(self.info, self.namespace, name, subresource)
        return await self._write(
            "PATCH", path, encode(body), patch_content_type(patch_type), params
        )

    async def patch_status(
        self,
        name: str,
        body: Any,
        *,
        patch_type: PatchType = "merge",
        dry_run: bool = False,
        field_manager: str | None = None,
    ) -> T:
        """PATCH the ``status`` subresource of ``name``."""
        return await self.patch(
            name,
            body,
            patch_type=patch_type,
            dry_run=dry_run,
            field_manager=field_manager,
            subresource="status",
        )

    async def apply(
        self,
        obj: T,
        *,
        field_manager: str,
        force: bool = False,
        dry_run: bool = False,
        field_validation: FieldValidation | None = None,
        subresource: str | None = None,
    ) -> T:
        """Server-side apply: make the fields set in ``obj`` (a partial object with
        apiVersion, kind and metadata.name) what ``field_manager`` wants them to be.

        Creates the object if it does not exist. Fields another manager owns raise
        ``Conflict`` naming them, unless ``force`` takes them over. Fields this
        manager applied before and left out now are removed.
        """
        if not field_manager:
            raise ValueError("apply needs a field_manager: the name that will own the fields")
        body = self._with_type(obj)
        params = write_params(
            dry_run=dry_run,
            field_manager=field_manager,
            field_validation=field_validation,
            force=force,
        )
        path = object_path(self.info, self._namespace_for(obj), _name(obj), subresource)
        return await self._write("PATCH", path, encode(body), patch_content_type("apply"), params)

    async def apply_status(
        self, obj: T, *, field_manager: str, force: bool = False, dry_run: bool = False
    ) -> T:
        """Server-side apply to the ``status`` subresource."""
        return await self.apply(
            obj, field_manager=field_manager, force=force, dry_run=dry_run, subresource="status"
        )

    async def delete(
        self,
        name: str,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        preconditions: Preconditions | None = None,
        dry_run: bool = False,
    ) -> None:
        """DELETE ``name``; ``NotFound`` if it is already gone, ``Conflict`` if a
        precondition fails. Returns once the server accepted the deletion (finalizers
        may keep the object a while longer)."""
        path = object_path(self.info, self.namespace, name)
        body = delete_body(
            grace_period_seconds=grace_period_seconds,
            propagation_policy=propagation_policy,
            preconditions=preconditions,
            dry_run=dry_run,
        )
        params = write_params(dry_run=dry_run)
        await self.client.exchange(
            "DELETE",
            path,
            params=params,
            data=body,
            content_type=_JSON,
            timeout=self.timeout,
        )

    async def delete_collection(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        dry_run: bool = False,
    ) -> builtins.list[T]:
        """Delete every matching object in the namespace; returns those the server deleted
        (or marked for deletion). A namespaced resource needs the Api's namespace."""
        if self.info.namespaced and not self.namespace:
            raise ValueError(
                f"{self.info.group_resource}: delete_collection needs a namespace; "
                "all namespaces at once is not an API operation"
            )
        params = write_params(dry_run=dry_run)
        if label_selector:
            params["labelSelector"] = label_selector
        if field_selector:
            params["fieldSelector"] = field_selector
        body = delete_body(
            grace_period_seconds=grace_period_seconds,
            propagation_policy=propagation_policy,
            dry_run=dry_run,
        )
        path = collection_path(self.info, self.namespace)
        answer = await self.client.exchange(
            "DELETE",
            path,
            params=params,
            data=body,
            content_type=_JSON,
            accept=self._accept.list if self._accept else None,
            timeout=self.timeout,
        )
        return list(self._codec.decode_list(answer.body).items)

    # --- helpers ------------------------------------------------------------------------------

    def _namespace_for(self, obj: Any) -> str | None:
        if not self.info.namespaced:
            return None
        return self.namespace or namespace_of(obj) or None

    def _with_type(self, obj: Any) -> Any:
        """``obj`` with apiVersion and kind: the server needs both for custom resources, and
        a dict built by hand often leaves them out (typed objects always have them)."""
        if isinstance(obj, Resource) or not isinstance(obj, dict):
            return obj
        return {"apiVersion": self.info.api_version, "kind": self.info.kind, **obj}

    async def _replace(
        self,
        obj: T,
        subresource: str | None,
        dry_run: bool,
        field_manager: str | None,
        field_validation: FieldValidation | None,
    ) -> T:
        params = write_params(
            dry_run=dry_run, field_manager=field_manager, field_validation=field_validation
        )
        path = object_path(self.info, self._namespace_for(obj), _name(obj), subresource)
        return await self._write("PUT", path, encode(self._with_type(obj)), _JSON, params)

    async def _send(
        self, method: str, path: str, params: dict[str, ParamValue], accept: str | None = None
    ) -> bytes:
        if accept is None and self._accept is not None:
            accept = self._accept.object
        answer = await self.client.exchange(
            method, path, params=params, accept=accept, timeout=self.timeout
        )
        return answer.body

    async def _write(
        self,
        method: str,
        path: str,
        data: bytes,
        content_type: str,
        params: dict[str, ParamValue],
    ) -> T:
        answer = await self.client.exchange(
            method,
            path,
            params=params,
            data=data,
            content_type=content_type,
            accept=self._accept.object if self._accept else None,
            timeout=self.timeout,
        )
        return self._codec.decode(answer.body)


def _name(obj: Any) -> str:
    return name_of(obj)
