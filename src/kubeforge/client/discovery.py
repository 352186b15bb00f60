"""Discovery: which resource types the server serves, and resolving a name to one of them.

Entry point: ``client.discovery.resolve(name)``, where ``name`` is what a kubectl
user would type: a plural (``podtoips``), a singular, a kind in any case
(``PodToIp``), a short name (``ptp``), ``plural.group`` or ``plural.version.group``.

Reads the legacy documents (``/api``, ``/apis``, then each group-version's
resource list), which every server serves. The result is cached; a name that
is not in the cache triggers one refresh before ``ResourceNotFound`` is raised,
so a CRD installed after the first lookup is still found.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import orjson

from kubeforge.client._paths import group_version_path
from kubeforge.core.errors import ApiError, ResourceNotFound
from kubeforge.core.resource import ResourceInfo

if TYPE_CHECKING:
    from kubeforge.client.client import Client

__all__ = ["Discovery"]

_log = logging.getLogger("kubeforge.client.discovery")


class Discovery:
    """Cached view of the server's resource types, in discovery order (core group first,
    then groups as ``/apis`` lists them, each group's preferred version first)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._cache: tuple[ResourceInfo, ...] | None = None
        self._generation = 0  # bumped on every fetch, so concurrent misses refresh only once
        self._lock = asyncio.Lock()

    async def resources(self) -> tuple[ResourceInfo, ...]:
        """Every served resource (subresources excluded), fetched on first use."""
        async with self._lock:
            if self._cache is None:
                await self._fetch()
            assert self._cache is not None
            return self._cache

    def invalidate(self) -> None:
        """Forget the cache; the next lookup fetches discovery again."""
        self._cache = None

    async def resolve(self, name: str) -> ResourceInfo:
        """The resource ``name`` refers to; the first match in discovery order wins.

        Raises ``ResourceNotFound`` (kubectl's wording) when no served resource
        matches even after refreshing the cache.
        """
        generation = self._generation
        found = _find(await self.resources(), name)
        if found is None and self._generation == generation:
            # The answer came from a cache filled before this call: it may predate a new CRD.
            found = _find(await self._refresh(generation), name)
        if found is None:
            raise ResourceNotFound(name)
        return found

    async def _refresh(self, seen_generation: int) -> tuple[ResourceInfo, ...]:
        async with self._lock:
            if self._generation == seen_generation or self._cache is None:
                await self._fetch()
            assert self._cache is not None
            return self._cache

    async def _fetch(self) -> None:
        core = await self._get("/api")
        groups = await self._get("/apis")
        group_versions = [("", str(v)) for v in core.get("versions") or ()]
        for group in groups.get("groups") or ():
            versions = [str(v.get("version")) for v in group.get("versions") or ()]
            preferred = (group.get("preferredVersion") or {}).get("version")
            if preferred in versions:
                versions.remove(preferred)
                versions.insert(0, preferred)
            group_versions.extend((str(group.get("name")), v) for v in versions)
        async with asyncio.TaskGroup() as tasks:
            pending = [tasks.create_task(self._resources_of(g, v)) for g, v in group_versions]
        self._cache = tuple(info for task in pending for info in task.result())
        self._generation += 1

    async def _resources_of(self, group: str, version: str) -> list[ResourceInfo]:
        path = group_version_path(group, version)
        try:
            body = await self._get(path)
        except ApiError as err:
            # One broken group (an aggregated API that is down) must not hide all the others;
            # kubectl likewise reports partial discovery and carries on.
            _log.warning("discovery of %s failed: %s", path, err)
            return []
        infos = []
        for entry in body.get("resources") or ():
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

    async def _get(self, path: str) -> dict[str, Any]:
        body = orjson.loads(await self._client._send("GET", path))
        return body if isinstance(body, dict) else {}


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
