"""Read from the cache, write to the API server: ``CachedClient``.

controller-runtime's ``mgr.GetClient()`` split in one object: ``get``/``list`` are
answered by shared informers (started on first use, see ``CacheReader``), while
``create``/``replace``/``replace_status``/``patch``/``delete`` go to the API
server. A reconciler therefore reads cheaply and often, and writes with the
``resourceVersion`` it read, so a stale cache shows up as ``Conflict``, never as
a lost update::

    kube = CachedClient(mgr.client, mgr.cache)
    widget = await kube.get(Widget, request.name, namespace=request.namespace)
    widget.status = WidgetStatus(ready=True)
    await kube.replace_status(widget)

Reads right after a write may not see it yet; ``client.api(...).get`` reads the
server directly when that matters (controller-runtime's ``GetAPIReader``).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any, TypeVar, overload

from kubeforge.cache.factory import InformerFactory, Kind
from kubeforge.cache.reader import CacheReader
from kubeforge.client import Api, Client, PatchType, PropagationPolicy
from kubeforge.core.objects import namespace_of
from kubeforge.core.resource import Resource, ResourceInfo

__all__ = ["CachedClient"]

R = TypeVar("R", bound=Resource)


class CachedClient:
    """``get``/``list`` from the shared cache; every write straight to the API server.

    Writes of typed objects find their REST mapping on the class; dict objects
    need ``kind=`` (a ``ResourceInfo``).
    """

    def __init__(
        self, client: Client, cache: InformerFactory, *, sync_timeout: float = 120.0
    ) -> None:
        self.client = client
        self.reader = CacheReader(cache, sync_timeout=sync_timeout)

    # -- reads: the cache --------------------------------------------------------------

    @overload
    async def get(self, kind: type[R], name: str, *, namespace: str | None = None) -> R: ...

    @overload
    async def get(
        self, kind: ResourceInfo, name: str, *, namespace: str | None = None
    ) -> dict[str, Any]: ...

    async def get(self, kind: Kind, name: str, *, namespace: str | None = None) -> Any:
        """From the cache; ``NotFound`` when the cache has no such object."""
        return await self.reader.get(kind, name, namespace=namespace)

    async def list(
        self,
        kind: Kind,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        fields: Mapping[str, str] | None = None,
    ) -> builtins.list[Any]:
        """From the cache; see ``CacheReader.list`` for ``fields``."""
        return await self.reader.list(
            kind,
            namespace=namespace,
            label_selector=label_selector,
            fields=fields,
        )

    # -- writes: the API server ----------------------------------------------------------

    def api(self, kind: Kind, namespace: str | None = None) -> Api[Any]:
        """The API server's verbs for ``kind`` in ``namespace``."""
        if isinstance(kind, ResourceInfo):
            return self.client.dynamic(kind, namespace)
        return self.client.api(kind, namespace)

    async def create(self, obj: Any, *, kind: ResourceInfo | None = None) -> Any:
        """POST ``obj``; returns what the server stored."""
        return await self._api_for(obj, kind).create(obj)

    async def replace(self, obj: Any, *, kind: ResourceInfo | None = None) -> Any:
        """PUT ``obj``; ``Conflict`` if its ``resourceVersion`` is stale."""
        return await self._api_for(obj, kind).replace(obj)

    async def replace_status(self, obj: Any, *, kind: ResourceInfo | None = None) -> Any:
        """PUT ``obj``'s status subresource; ``Conflict`` if its ``resourceVersion`` is stale."""
        return await self._api_for(obj, kind).replace_status(obj)

    async def patch(
        self,
        kind: Kind,
        name: str,
        body: Any,
        *,
        namespace: str | None = None,
        patch_type: PatchType = "merge",
    ) -> Any:
        """PATCH ``name``; ``patch_type`` is ``merge``, ``json`` or ``strategic``."""
        return await self.api(kind, namespace).patch(name, body, patch_type=patch_type)

    async def delete(
        self,
        kind: Kind,
        name: str,
        *,
        namespace: str | None = None,
        propagation_policy: PropagationPolicy | None = None,
    ) -> None:
        """DELETE ``name``; ``NotFound`` if the server has no such object."""
        await self.api(kind, namespace).delete(name, propagation_policy=propagation_policy)

    def _api_for(self, obj: Any, kind: ResourceInfo | None) -> Api[Any]:
        namespace = namespace_of(obj) or None
        if kind is not None:
            return self.client.dynamic(kind, namespace)
        if isinstance(obj, Resource):
            return self.client.api(type(obj), namespace)
        raise TypeError("writing a dict object needs kind= (its ResourceInfo)")
