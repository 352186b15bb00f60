"""Discovery: what the server tells clients it serves (``/api``, ``/apis``, ``/version``).

kubectl, client-go's RESTMapper, kopf and the Python ``DynamicClient`` learn every
group, version, resource, short name and verb from these documents, so they are
rebuilt from the ``Registry`` on every request: a CRD is visible the moment it is
established, and gone the moment it is deleted.

Two formats are served from the same data:

* legacy discovery, always: ``APIVersions`` at ``/api``, ``APIGroupList`` at
  ``/apis``, one ``APIGroup`` per group and one ``APIResourceList`` per
  group/version;
* aggregated discovery (``apidiscovery.k8s.io/v2``, and ``v2beta1`` for older
  clients) at ``/api`` and ``/apis`` when the ``Accept`` header asks for it; the
  chosen media type is echoed in ``Content-Type``, since that, not the body, is how
  client-go decides which parser to use.

Entry point: ``add_routes(app, registry)``, which also mounts ``/version`` and the
OpenAPI endpoints of ``kubeforge.apiserver.openapi``.
"""

from __future__ import annotations

import base64
import hashlib
import platform
from typing import Any

import orjson
from aiohttp import web

from kubeforge._version import __version__
from kubeforge.apiserver.negotiation import media_ranges
from kubeforge.apiserver.openapi import documents
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.core.status import failure

__all__ = [
    "SERVER_VERSION",
    "add_routes",
    "aggregated_discovery",
    "api_group",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "negotiate_discovery",
    "version_info",
]

# What ``/version`` reports. kubectl on PATH may be a dispatcher that runs the
# ``kubectl.1.NN`` matching the server's minor version, and clients warn about skew
# beyond one minor, so this must read like a genuine v1.32 release. The commit is
# derived from kubeforge's own version: it looks like a commit id without
# pretending to be one of Kubernetes'.
SERVER_VERSION: dict[str, str] = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.4",
    "gitCommit": hashlib.sha1(
        f"kubeforge {__version__}".encode(), usedforsecurity=False
    ).hexdigest(),
    "gitTreeState": "clean",
    "buildDate": "2025-04-22T16:03:39Z",
    "goVersion": "go1.23.6",
    "compiler": "gc",
}

_AGGREGATED_GROUP = "apidiscovery.k8s.io"
_AGGREGATED_VERSIONS = ("v2", "v2beta1")
_JSON = "application/json"

# How discovery describes the subresources the REST layer knows: the kind a request
# returns (``None``: the parent's kind) and the verbs it answers.
_SUBRESOURCES: dict[str, tuple[tuple[str, str, str] | None, tuple[str, ...]]] = {
    "status": (None, ("get", "patch", "update")),
    "scale": (("autoscaling", "v1", "Scale"), ("get", "patch", "update")),
    "finalize": (None, ("update",)),
    "ephemeralcontainers": (None, ("get", "patch", "update")),
    "log": (None, ("get",)),
    "token": (("authentication.k8s.io", "v1", "TokenRequest"), ("create",)),
    "eviction": (("policy", "v1", "Eviction"), ("create",)),
}


def version_info() -> dict[str, str]:
    """The ``/version`` body: ``SERVER_VERSION`` plus this machine's ``os/arch``."""
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "arm"}.get(machine, machine)
    system = platform.system().lower() or "linux"
    return {**SERVER_VERSION, "platform": f"{system}/{arch}"}


def negotiate_discovery(accept: str | None) -> str | None:
    """The aggregated-discovery version the ``Accept`` header prefers, or ``None`` for legacy.

    Entries are taken in the client's order; the first one this server can produce
    wins. Protobuf entries are skipped because the server only speaks JSON.

    >>> negotiate_discovery("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    ...                     "application/json")
    'v2'
    >>> negotiate_discovery("application/json") is None
    True
    """
    for entry in media_ranges(accept):
        if not entry.is_json:
            continue
        kind = entry.kind()
        if kind is None:
            return None
        group, version, as_kind = kind
        if (
            group == _AGGREGATED_GROUP
            and version in _AGGREGATED_VERSIONS
            and as_kind == "APIGroupDiscoveryList"
        ):
            return version
    return None


# --- legacy documents -------------------------------------------------------------


def api_versions(server_address: str) -> dict[str, Any]:
    """``GET /api``: the core group's versions and the address clients should use."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": server_address},
        ],
    }


def api_group(group: str, versions: list[str]) -> dict[str, Any]:
    """One ``APIGroup``; ``versions`` come in priority order, the first is preferred."""
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "versions": entries,
        "preferredVersion": entries[0],
    }


def api_group_list(registry: Registry) -> dict[str, Any]:
    """``GET /apis``: every named group, in the order the RESTMapper should prefer them."""
    groups = []
    for group, versions in registry.group_versions():
        if group:
            entry = api_group(group, versions)
            del entry["kind"], entry["apiVersion"]
            groups.append(entry)
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_resource_list(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    """``GET /api/v1`` or ``/apis/{group}/{version}``; ``None`` when nothing is served there."""
    served = _served_at(registry, group, version)
    if not served:
        return None
    resources: list[dict[str, Any]] = []
    for item in served:
        resources.append(_legacy_resource(registry, item))
        for sub in item.subresources:
            resources.append(_legacy_subresource(item, sub))
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": resources,
    }


def _legacy_resource(registry: Registry, served: ServedResource) -> dict[str, Any]:
    info = served.info
    entry: dict[str, Any] = {
        "name": info.plural,
        "singularName": info.singular or info.kind.lower(),
        "namespaced": info.namespaced,
        "kind": info.kind,
        "verbs": list(served.verbs),
    }
    if info.short_names:
        entry["shortNames"] = list(info.short_names)
    if served.categories:
        entry["categories"] = list(served.categories)
    entry["storageVersionHash"] = _storage_version_hash(registry, served)
    return entry


def _legacy_subresource(served: ServedResource, sub: str) -> dict[str, Any]:
    info = served.info
    kind, verbs = _SUBRESOURCES.get(sub, (None, ("get", "patch", "update")))
    entry: dict[str, Any] = {
        "name": f"{info.plural}/{sub}",
        "singularName": "",
        "namespaced": info.namespaced,
    }
    if kind is not None:
        entry["group"], entry["version"], entry["kind"] = kind
    else:
        entry["kind"] = info.kind
    entry["verbs"] = list(verbs)
    return entry


# --- aggregated documents ---------------------------------------------------------


def aggregated_discovery(registry: Registry, *, core: bool, version: str) -> dict[str, Any]:
    """``APIGroupDiscoveryList`` for ``/api`` (``core=True``) or ``/apis``, at ``version``."""
    items = []
    for group, versions in registry.group_versions():
        if bool(group) == core:
            continue
        items.append(
            {
                "metadata": {"name": group, "creationTimestamp": None}
                if group
                else {"creationTimestamp": None},
                "versions": [
                    {
                        "version": v,
                        "resources": [
                            _aggregated_resource(served)
                            for served in _served_at(registry, group, v)
                        ],
                        "freshness": "Current",
                    }
                    for v in versions
                ],
            }
        )
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"{_AGGREGATED_GROUP}/{version}",
        "metadata": {},
        "items": items,
    }


def _aggregated_resource(served: ServedResource) -> dict[str, Any]:
    info = served.info
    entry: dict[str, Any] = {
        "resource": info.plural,
        "responseKind": {"group": info.group, "version": info.version, "kind": info.kind},
        "scope": "Namespaced" if info.namespaced else "Cluster",
        "singularResource": info.singular or info.kind.lower(),
        "verbs": list(served.verbs),
    }
    if info.short_names:
        entry["shortNames"] = list(info.short_names)
    if served.categories:
        entry["categories"] = list(served.categories)
    subresources = []
    for sub in served.subresources:
        kind, verbs = _SUBRESOURCES.get(sub, (None, ("get", "patch", "update")))
        group, version, kind_name = kind or (info.group, info.version, info.kind)
        subresources.append(
            {
                "subresource": sub,
                "responseKind": {"group": group, "version": version, "kind": kind_name},
                "verbs": list(verbs),
            }
        )
    if subresources:
        entry["subresources"] = subresources
    return entry


# --- helpers ----------------------------------------------------------------------


def _served_at(registry: Registry, group: str, version: str) -> list[ServedResource]:
    """Resources of one group/version, sorted by plural as a real server lists them."""
    served = [
        r for r in registry.resources() if r.info.group == group and r.info.version == version
    ]
    return sorted(served, key=lambda r: r.info.plural)


def _storage_version_hash(registry: Registry, served: ServedResource) -> str:
    """Opaque token that changes when the storage version changes (as the real server's does)."""
    stored = registry.storage_version_of(served.info.group, served.info.plural) or served
    info = stored.info
    digest = hashlib.sha256(f"{info.group}/{info.version}/{info.kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _json(body: dict[str, Any], content_type: str = _JSON) -> web.Response:
    return web.Response(
        body=orjson.dumps(body),
        headers={"Content-Type": content_type, "Vary": "Accept"},
    )


def _not_found() -> web.Response:
    status = failure(404, "NotFound", "the server could not find the requested resource")
    return web.Response(
        status=404,
        body=orjson.dumps(status),
        headers={"Content-Type": _JSON},
    )


class _Handlers:
    """The aiohttp handlers; each reads the registry afresh so CRD changes show at once."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    async def version(self, request: web.Request) -> web.Response:
        return _json(version_info())

    async def core_root(self, request: web.Request) -> web.Response:
        aggregated = negotiate_discovery(request.headers.get("Accept"))
        if aggregated:
            return self._aggregated(request, core=True, version=aggregated)
        return _json(api_versions(request.host))

    async def groups_root(self, request: web.Request) -> web.Response:
        aggregated = negotiate_discovery(request.headers.get("Accept"))
        if aggregated:
            return self._aggregated(request, core=False, version=aggregated)
        return _json(api_group_list(self._registry))

    async def core_v1(self, request: web.Request) -> web.Response:
        body = api_resource_list(self._registry, "", "v1")
        return _json(body) if body is not None else _not_found()

    async def group(self, request: web.Request) -> web.Response:
        name = request.match_info["group"]
        for group, versions in self._registry.group_versions():
            if group and group == name:
                return _json(api_group(group, versions))
        return _not_found()

    async def group_version(self, request: web.Request) -> web.Response:
        group, version = request.match_info["group"], request.match_info["version"]
        body = api_resource_list(self._registry, group, version) if group else None
        return _json(body) if body is not None else _not_found()

    def _aggregated(self, request: web.Request, *, core: bool, version: str) -> web.Response:
        content_type = f"{_JSON};g={_AGGREGATED_GROUP};v={version};as=APIGroupDiscoveryList"
        body = orjson.dumps(aggregated_discovery(self._registry, core=core, version=version))
        # An ETag lets kubectl's HTTP cache revalidate instead of re-downloading.
        etag = '"' + hashlib.sha256(content_type.encode() + body).hexdigest()[:32] + '"'
        headers = {"Content-Type": content_type, "Vary": "Accept", "ETag": etag}
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers=headers)
        return web.Response(body=body, headers=headers)


def add_routes(app: web.Application, registry: Registry) -> None:
    """Mount discovery, ``/version`` and OpenAPI on ``app``; call before any catch-all route."""
    handlers = _Handlers(registry)
    app.router.add_get("/version", handlers.version)
    # The official Python client asks for "/version/"; the real server answers both.
    app.router.add_get("/version/", handlers.version)
    # Each also with a trailing slash (kr8s and pykube ask for "/api/"): go-restful's
    # router trims it and the aggregator mounts "/apis/" beside "/apis".
    for slash in ("", "/"):
        app.router.add_get("/api" + slash, handlers.core_root)
        app.router.add_get("/api/v1" + slash, handlers.core_v1)
        app.router.add_get("/apis" + slash, handlers.groups_root)
        app.router.add_get("/apis/{group}" + slash, handlers.group)
        app.router.add_get("/apis/{group}/{version}" + slash, handlers.group_version)
    documents.add_routes(app, registry)
