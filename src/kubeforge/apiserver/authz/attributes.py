"""What a request does, in the terms RBAC rules are written in: its ``Attributes``.

``request_attributes`` reads a request the way the real server's request-info resolver
does (verb from method and URL, ``list``/``watch``/``deletecollection`` when no name,
a ``metadata.name`` field selector naming the object, namespaces being their own
namespace); access reviews build ``Attributes`` from their body.

Entry points: ``Attributes``, ``request_attributes``.

>>> request_attributes("GET", "/api/v1/namespaces/default/pods", {}).verb
'list'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kubeforge.apiserver.meta.queryparams import query_bool

__all__ = ["Attributes", "request_attributes"]

_METHOD_VERBS = {
    "POST": "create",
    "GET": "get",
    "HEAD": "get",
    "PUT": "update",
    "PATCH": "patch",
    "DELETE": "delete",
}
_NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True)
class Attributes:
    """What a request does, in the terms RBAC rules are written in."""

    verb: str
    resource_request: bool = True
    path: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""

    @property
    def combined_resource(self) -> str:
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


def request_attributes(method: str, path: str, query: Mapping[str, str]) -> Attributes:
    """The attributes of one HTTP request (``requestinfo.go`` of the real server)."""
    parts = [p for p in path.split("/") if p]
    verb = _METHOD_VERBS.get(method.upper(), method.lower())
    # Discovery documents (/api/v1, /apis/apps/v1) are non-resource paths.
    if parts[:1] == ["api"] and len(parts) >= 3:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 4:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return Attributes(verb=method.lower(), resource_request=False, path=path)
    if rest[:1] == ["watch"] and verb == "get":
        verb, rest = "watch", rest[1:]
    namespace = ""
    if len(rest) >= 2 and rest[0] == "namespaces":
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    resource = rest[0] if rest else ""
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    if not name and verb == "get":
        verb = "watch" if query_bool(query, "watch") else "list"
        name = _name_from_field_selector(query.get("fieldSelector", ""))
    if not name and verb == "delete":
        verb = "deletecollection"
    return Attributes(
        verb=verb,
        path=path,
        api_group=group,
        api_version=version,
        namespace=namespace,
        resource=resource,
        subresource=subresource,
        name=name,
    )


def _name_from_field_selector(selector: str) -> str:
    """``metadata.name=x`` alone (or among others) names the object, as for ``get -w``."""
    for term in selector.split(","):
        key, sep, value = term.partition("=")
        if key.strip() == "metadata.name" and sep and not value.startswith("="):
            value = value.lstrip("=").strip()
            if value and "/" not in value and "%" not in value and value not in (".", ".."):
                return value
    return ""
