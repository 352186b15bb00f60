"""Async HTTP to the Kubernetes API server: typed and dynamic verbs, watch streams, discovery.

Entry point: ``Client`` (``async with Client(load_config()) as client``), then
``client.api(Pod, namespace=...)`` for typed objects, ``client.dynamic(info, ...)``
for dicts, ``client.metadata(Secret, ...)`` for metadata only (``PartialObjectMetadata``
objects), ``client.discovery.resolve("ptp")`` / ``for_kind("apps/v1", "Deployment")``
to find a resource type, and ``client.request(...)`` for anything else. ``Api`` and
``Discovery`` are written against ``Requester`` (``exchange``/``stream``), the
Protocol ``Client`` implements, so they sit below it in the import graph.
``to_dict``/``from_dict`` convert between the two faces without losing fields the
models do not declare. Credentials come from ``auth_for(config)`` (token, token
file, basic auth, exec plugin) unless ``Client(auth=...)`` is given.

Imports only ``kubeforge.config``, ``kubeforge.core`` and the generated
``kubeforge.models``; knows nothing about caches or controllers.
"""

from typing import TYPE_CHECKING

from kubeforge.client.api import (
    Api,
    FieldValidation,
    PatchType,
    Preconditions,
    PropagationPolicy,
)
from kubeforge.client.auth import Auth, BasicAuth, BearerAuth, RefreshableAuth, auth_for
from kubeforge.client.client import Client, KubernetesWarning, RequestObserver
from kubeforge.client.convert import from_dict, to_dict
from kubeforge.client.discovery import Discovery, KindNotFound
from kubeforge.client.metadata import PartialObjectMetadata, is_metadata_kind, metadata_kind
from kubeforge.client.requester import Requester
from kubeforge.client.wire import ObjectList, WatchEvent

if TYPE_CHECKING:
    from kubeforge.client._exec import ExecAuth, ExecPluginError


def __getattr__(name: str) -> object:
    # Exec credential plugins load on first use (PEP 562): only a kubeconfig naming one
    # needs them (auth_for imports them then).
    if name in ("ExecAuth", "ExecPluginError"):
        from kubeforge.client import _exec

        return getattr(_exec, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Api",
    "Auth",
    "BasicAuth",
    "BearerAuth",
    "Client",
    "Discovery",
    "ExecAuth",
    "ExecPluginError",
    "FieldValidation",
    "KindNotFound",
    "KubernetesWarning",
    "ObjectList",
    "PartialObjectMetadata",
    "PatchType",
    "Preconditions",
    "PropagationPolicy",
    "RefreshableAuth",
    "RequestObserver",
    "Requester",
    "WatchEvent",
    "auth_for",
    "from_dict",
    "is_metadata_kind",
    "metadata_kind",
    "to_dict",
]
