"""Discovery and REST mapping: which resource types the server serves, and finding one.

Entry points on ``client.discovery``:

- ``resolve(name)``: what a kubectl user would type, a plural (``podtoips``), a
  singular, a kind in any case (``PodToIp``), a short name (``ptp``),
  ``plural.group`` or ``plural.version.group``;
- ``for_kind(api_version, kind)``: GVK -> the ``ResourceInfo`` (GVR, scope, names);
- ``resources()`` / ``preferred()``: everything served, or the preferred version of each.

Aggregated discovery (``apidiscovery.k8s.io/v2``, two requests for the whole
server) is asked for with the ``Accept`` header kubectl sends; a server that
answers with plain ``application/json`` gets the legacy walk (``/api``, ``/apis``,
then each group-version). The result is cached; a name not in the cache triggers
one refresh before ``ResourceNotFound`` is raised, so a CRD installed after the
first lookup is found, and the client drops the cache when the server says a
resource path does not exist, so a removed CRD stops resolving.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import orjson

from kubeforge.client._paths import group_version_path
from kubeforge.client.requester import Requester
from kubeforge.core.errors import ApiError, ResourceNotFound
from kubeforge.core.resource import ResourceInfo

__all__ = ["AGGREGATED_ACCEPT", "Discovery", "KindNotFound"]

_log = logging.getLogger("kubeforge.client.discovery")

AGGREGATED_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json"
)
"""What kubectl 1.32 sends to ``/api`` and ``/apis``: aggregated if you can, else legacy."""


class KindNotFound(ResourceNotFound):
    """No served resource has this group, version and kind (client-go's NoKindMatchError)."""

    def __init__(self, api_version: str, kind: str) -> None:
        super().__init__(kind)
        self.api_version = api_version
        self.args = (f'no matches for kind "{kind}" in version "{api_version}"',)

    def __str__(self) -> str:
        return str(self.args[0])


class Discovery:
    """Cached view of the server's resource types, in discovery order (core group first,
    then groups as ``/apis`` lists them, each group's preferred version first)."""

    def __init__(self, client: Requester) -> None:
        self._client = client
        self._cache: tuple[ResourceInfo, ...] | None = None
        self._preferred: frozenset[ResourceInfo] = frozenset()
        self._generation = 0  # bumped on every fetch, so concurrent misses refresh only once
        self._lock = asyncio.Lock()
        self.aggregated: bool | None = None
        """Whether the last fetch used aggregated discovery (``None``: not fetched yet)."""

    async def resources(self) -> tuple[ResourceInfo, ...]:
        """Every served resource (subresources excluded), fetched on first use."""
        async with self._lock:
            if self._cache is None:
                await self._fetch()
            assert self._cache is not None
            return self._cache

    async def preferred(self) -> tuple[ResourceInfo, ...]:
        """One entry per resource: its group's preferred version (kubectl api-resources)."""
        resources = await self.resources()
        return tuple(info for info in resources if info in self._preferred)

    def invalidate(self) -> None:
        """Forget the cache; the next lookup fetches discovery again."""
        self._cache = None

    async def resolve(self, name: str) -> ResourceInfo:
        """The resource ``name`` refers to; the first match in discovery order wins.

        Raises ``ResourceNotFound`` (kubectl's wording) when no served resource
        matches even after refreshing the cache.
        """
        found = await self._lookup(lambda resources: _find(resources, name))
        if found is None:
            raise ResourceNotFound(name)
        return found

    async def for_kind(self, api_version: str, kind: str) -> ResourceInfo:
        """The resource serving ``kind`` in ``api_version`` (``apps/v1``, or ``v1`` for core).

        Raises ``KindNotFound`` (``no matches for kind "X" in version "g/v"``).
        """
        group, _, version = api_version.rpartition("/")

        def match(resources: tuple[ResourceInfo, ...]) -> ResourceInfo | None:
            for info in resources:
                if (info.group, info.version, info.kind) == (group, version, kind):
                    return info
            return None

        found = await self._lookup(match)
        if found is None:
            raise KindNotFound(api_version, kind)
        return found

    async def _lookup(
        self, match: Callable[[tuple[ResourceInfo, ...]], ResourceInfo | None]
    ) -> ResourceInfo | None:
        generation = self._generation
        found = match(await self.resources())
        if found is None and self._generation == generation:
            # The answer came from a cache filled before this call: it may predate a new CRD.
            found = match(await self._refresh(generation))
        return found

    async def _refresh(self, seen_generation: int) -> tuple[ResourceInfo, ...]:
        async with self._lock:
            if self._generation == seen_generation or self._cache is None:
                await self._fetch()
            assert self._cache is not None
            return self._cache

    # --- fetching -----------------------------------------------------------------------------

    async def _fetch(self) -> None:
        core, core_aggregated = await self._root("/api")
        groups, groups_aggregated = await self._root("/apis")
        found: list[tuple[ResourceInfo, bool]] = []
        if core_aggregated and groups_aggregated:
            for document in (core, groups):
                found.extend(_from_aggregated(document))
            self.aggregated = True
        else:
            found = await self._legacy(core, groups)
            self.aggregated = False
        self._cache = tuple(info for info, _ in found)
        self._preferred = frozenset(info for info, preferred in found if preferred)
        self._generation += 1

    async def _root(self, path: str) -> tuple[dict[str, Any], bool]:
        answer = await self._client.exchange("GET", path, accept=AGGREGATED_ACCEPT)
        aggregated = "as=APIGroupDiscoveryList" in answer.headers.get("Content-Type", "")
        body = orjson.loads(answer.body)
        return (body if isinstance(body, dict) else {}), aggregated

    async def _legacy(
        self, core: dict[str, Any], groups: dict[str, Any]
    ) -> list[tuple[ResourceInfo, bool]]:
        group_versions = [("", str(v), i == 0) for i, v in enumerate(core.get("versions") or ())]
        for group in groups.get("groups") or ():
            versions = [str(v.get("version")) for v in group.get("versions") or ()]
            preferred = (group.get("preferredVersion") or {}).get("version")
            if preferred in versions:
                versions.remove(preferred)
                versions.insert(0, preferred)
            name = str(group.get("name"))
            group_versions.extend((name, v, i == 0) for i, v in enumerate(versions))
        async with asyncio.TaskGroup() as tasks:
            pending = [
                (tasks.create_task(self._resources_of(g, v)), first)
                for g, v, first in group_versions
            ]
        return [(info, first) for task, first in pending for info in task.result()]

    async def _resources_of(self, group: str, version: str) -> list[ResourceInfo]:
        path = group_version_path(group, version)
        try:
            body = orjson.loads((await self._client.exchange("GET", path)).body)
        except ApiError as err:
            # One broken group (an aggregated API that is down) must not hide all the others;
            # kubectl likewise reports partial discovery and carries on.
            _log.warning("discovery of %s failed: %s", path, err)
            return []
        infos = []
        for entry in body.get("resources") or () if isinstance(body, dict) else ():
            plural = entry.get("name") or ""
            kind = entry.get("kind") or ""
            if not plural or "/" in plural or not kind:
                continue  # subresources (pods/status) are not resource types of their own
            infos.append(
                ResourceInfo(
                    group=group,
                    version=version,
                    kind=kind,
                    plural=plural,
                    namespaced=bool(entry.get("namespaced")),
                    short_names=tuple(entry.get("shortNames") or ()),
                    singular=entry.get("singularName") or kind.lower(),
                )
            )
        return infos


def _from_aggregated(document: dict[str, Any]) -> list[tuple[ResourceInfo, bool]]:
    """``(info, is preferred version)`` from an ``APIGroupDiscoveryList``; versions come
    in preference order, the first preferred."""
    found = []
    for item in document.get("items") or ():
        group = str((item.get("metadata") or {}).get("name") or "")
        for index, entry in enumerate(item.get("versions") or ()):
            version = str(entry.get("version") or "")
            for resource in entry.get("resources") or ():
                plural = resource.get("resource") or ""
                kind = (resource.get("responseKind") or {}).get("kind") or ""
                if not plural or not kind:
                    continue
                info = ResourceInfo(
                    group=group,
                    version=version,
                    kind=kind,
                    plural=plural,
                    namespaced=resource.get("scope") == "Namespaced",
                    short_names=tuple(resource.get("shortNames") or ()),
                    singular=resource.get("singularResource") or kind.lower(),
                )
                found.append((info, index == 0))
    return found


def _find(resources: tuple[ResourceInfo, ...], name: str) -> ResourceInfo | None:
    wanted = name.strip().lower()
    # (resource, version, group): "a.b.c" may be plural.group or plural.version.group.
    candidates: list[tuple[str, str | None, str | None]] = [(wanted, None, None)]
    if "." in wanted:
        plural, _, rest = wanted.partition(".")
        candidates = [(plural, None, rest)]
        maybe_version, _, maybe_group = rest.partition(".")
        if maybe_group:
            candidates.append((plural, maybe_version, maybe_group))
    # Names and kinds beat short names, so an abbreviation never shadows a real plural.
    for use_short_names in (False, True):
        for info in resources:
            for resource, version, group in candidates:
                if group is not None and info.group != group:
                    continue
                if version is not None and info.version != version:
                    continue
                if use_short_names:
                    if resource in (s.lower() for s in info.short_names):
                        return info
                elif resource in (info.plural, info.singular.lower(), info.kind.lower()):
                    return info
    return None
