"""``Api[T]``: the verbs of one resource type in one namespace (or all of them).

Get one with ``client.api(Pod, namespace="default")`` (``T`` = the ``Resource``
class) or ``client.dynamic(info, namespace=...)`` (``T`` = ``dict[str, Any]``).
Every verb raises ``ApiError`` subclasses for the server's failures
(``NotFound``, ``Conflict``, ``AlreadyExists``, ``Invalid``, ...) and
``TransportError`` when the connection fails.

``watch()`` is one HTTP watch and nothing more: resuming after the server ends
it and relisting after ``Gone`` belong to ``kubeforge.watch``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from kubeforge.client._codec import Codec, encode
from kubeforge.client._paths import collection_path, object_path
from kubeforge.client.wire import ObjectList, WatchEvent
from kubeforge.core.objects import name_of, namespace_of
from kubeforge.core.resource import ResourceInfo

if TYPE_CHECKING:
    from kubeforge.client.client import Client, ParamValue

__all__ = ["Api", "PatchType", "PropagationPolicy"]

T = TypeVar("T")

PatchType = Literal["merge", "json", "strategic"]
PropagationPolicy = Literal["Orphan", "Background", "Foreground"]

_PATCH_CONTENT_TYPES: dict[str, str] = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
}


class Api(Generic[T]):
    """Verbs for one resource (``info``) scoped to ``namespace`` (``None``: all namespaces)."""

    def __init__(
        self, client: Client, info: ResourceInfo, codec: Codec[T], namespace: str | None
    ) -> None:
        self.client = client
        self.info = info
        self.namespace = namespace if info.namespaced else None
        self._codec = codec

    def __repr__(self) -> str:
        where = f"namespace={self.namespace!r}" if self.info.namespaced else "cluster"
        return f"<Api {self.info.group_resource} {where}>"

    async def get(self, name: str) -> T:
        data = await self.client._send("GET", object_path(self.info, self.namespace, name))
        return self._codec.decode(data)

    async def list(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        resource_version: str | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> ObjectList[T]:
        """One page. Follow ``page.continue_`` (passing it back as ``continue_``) for the next."""
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
        return self._codec.decode_list(await self.client._send("GET", path, params=params))

    async def create(self, obj: T) -> T:
        """POST ``obj``; returns what the server stored (uid, resourceVersion, defaults)."""
        namespace = self._namespace_for(obj)
        if self.info.namespaced and not namespace:
            raise ValueError(
                f"{self.info.group_resource} is namespaced: give the Api a namespace "
                "(client.api(cls, namespace=...)) or set metadata.namespace"
            )
        path = collection_path(self.info, namespace)
        return await self._write("POST", path, encode(obj), "application/json")

    async def replace(self, obj: T) -> T:
        """PUT ``obj``; ``Conflict`` if its ``resourceVersion`` is stale."""
        path = object_path(self.info, self._namespace_for(obj), _name(obj))
        return await self._write("PUT", path, encode(obj), "application/json")

    async def replace_status(self, obj: T) -> T:
        """PUT ``obj`` to the ``status`` subresource: only its status is taken."""
        path = object_path(self.info, self._namespace_for(obj), _name(obj), "status")
        return await self._write("PUT", path, encode(obj), "application/json")

    async def patch(self, name: str, body: Any, *, patch_type: PatchType = "merge") -> T:
        """PATCH ``name`` with ``body`` (a dict, a JSON-patch list, or a typed partial object)."""
        content_type = _PATCH_CONTENT_TYPES.get(patch_type)
        if content_type is None:
            raise ValueError(f"unknown patch_type {patch_type!r}: use merge, json or strategic")
        path = object_path(self.info, self.namespace, name)
        return await self._write("PATCH", path, encode(body), content_type)

    async def delete(
        self,
        name: str,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
    ) -> None:
        """DELETE ``name``; ``NotFound`` if it is already gone. Returns once the server
        accepted the deletion (finalizers may keep the object a while longer)."""
        path = object_path(self.info, self.namespace, name)
        options: dict[str, Any] = {}
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        if propagation_policy is not None:
            options["propagationPolicy"] = propagation_policy
        data = None
        if options:
            data = encode({"kind": "DeleteOptions", "apiVersion": "v1", **options})
        await self.client._send("DELETE", path, data=data, content_type="application/json")

    async def watch(
        self,
        *,
        resource_version: str | None = None,
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> AsyncIterator[WatchEvent[T]]:
        """Changes after ``resource_version``, as they happen, until the server ends the watch.

        Raises the ``Status`` of an ``ERROR`` event as ``ApiError`` (``Gone`` when the
        version is older than the server keeps) and ``TransportError`` if the
        connection breaks mid-stream. A clean end (``timeout_seconds`` reached) just
        stops the iteration.
        """
        params: dict[str, ParamValue] = {"watch": "true"}
        if resource_version is not None:
            params["resourceVersion"] = resource_version
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
        async for line in self.client._stream(path, params):
            yield decode(line)

    # --- helpers --------------------------------------------------------------------------------

    def _namespace_for(self, obj: Any) -> str | None:
        if not self.info.namespaced:
            return None
        return self.namespace or namespace_of(obj) or None

    async def _write(self, method: str, path: str, data: bytes, content_type: str) -> T:
        answer = await self.client._send(method, path, data=data, content_type=content_type)
        return self._codec.decode(answer)


def _name(obj: Any) -> str:
    return name_of(obj)
