"""What a request URL addresses: the resource, namespace, name and subresource.

Entry point: ``resolve(registry, path) -> Target``, the real server's request-info
resolution for resource URLs (``/api/v1/...``, ``/apis/{group}/{version}/...``, the
legacy ``/watch/`` prefix, a namespace's own ``status``/``finalize``). A URL that
names nothing served is a 404 ``NotFound`` with the real server's empty details.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubeforge.apiserver import failures
from kubeforge.apiserver.registry.served import Registry, ServedResource

__all__ = ["Target", "resolve"]

_NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True)
class Target:
    """What a request URL addresses."""

    served: ServedResource
    namespace: str | None  # None: not in the URL
    name: str
    subresource: str
    legacy_watch: bool


def resolve(registry: Registry, path: str) -> Target:
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise failures.resource_not_found()
    legacy_watch = bool(rest) and rest[0] == "watch"
    if legacy_watch:
        rest = rest[1:]
    namespace: str | None = None
    if len(rest) >= 2 and rest[0] == "namespaces":
        if len(rest) == 2 or rest[2] in _NAMESPACE_SUBRESOURCES:
            pass  # the namespace object itself (or its status/finalize)
        else:
            namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        raise failures.resource_not_found()
    served = registry.lookup(group, version, rest[0])
    if served is None:
        raise failures.resource_not_found()
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    if served.info.namespaced and namespace is None and name:
        raise failures.resource_not_found()
    if not served.info.namespaced and namespace is not None:
        raise failures.resource_not_found()
    finalize = served.info.plural == "namespaces" and subresource == "finalize"
    if subresource and subresource not in served.subresources and not finalize:
        raise failures.resource_not_found()
    return Target(served, namespace, name, subresource, legacy_watch)
