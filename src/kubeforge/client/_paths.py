"""REST paths of a resource: core (``/api/v1``) or grouped (``/apis/g/v``), namespaced or not.

``collection_path()`` and ``object_path()`` are the only places that know the URL layout.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from kubeforge.core.resource import ResourceInfo

__all__ = ["collection_path", "group_version_path", "object_path"]


def group_version_path(group: str, version: str) -> str:
    return f"/apis/{group}/{version}" if group else f"/api/{version}"


def collection_path(info: ResourceInfo, namespace: str | None) -> str:
    """The collection URL; a namespaced resource without a namespace means all namespaces."""
    base = group_version_path(info.group, info.version)
    if info.namespaced and namespace:
        return f"{base}/namespaces/{_segment(namespace)}/{info.plural}"
    return f"{base}/{info.plural}"


def object_path(
    info: ResourceInfo, namespace: str | None, name: str, subresource: str | None = None
) -> str:
    if not name:
        # An empty name would silently turn a get or delete into a collection call.
        raise ValueError(f"{info.group_resource}: an object name is required")
    if info.namespaced and not namespace:
        raise ValueError(
            f'{info.group_resource} "{name}" is namespaced: give the Api a namespace '
            "(client.api(cls, namespace=...)) or set metadata.namespace"
        )
    path = f"{collection_path(info, namespace)}/{_segment(name)}"
    return f"{path}/{subresource}" if subresource else path


# What quote(value, safe="") leaves as it is (RFC 3986's unreserved characters).
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*").fullmatch


def _segment(value: str) -> str:
    # Names are DNS labels in practice, but quoting keeps a stray "/" from changing the route.
    # A name with nothing to escape (nearly all) skips quote(), twice the cost of the test.
    return value if _UNRESERVED(value) else quote(value, safe="")
