"""Metadata-only output: ``meta.k8s.io`` ``PartialObjectMetadata`` and its ``...List``.

Metadata informers (client-go's metadata client, controller-runtime's
``WatchesMetadata``) send
``Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`` on a
list, ``as=PartialObjectMetadata`` on a get or a watch, and receive each object
reduced to ``kind``, ``apiVersion`` and its whole ``metadata``. Negotiation is the
real server's (``negotiation.NegotiateMediaTypeOptions`` and
``RequestScope.AllowsMediaTypeTransform``):

* ``Accept`` entries are tried in the client's order; the first one the server can
  serve wins. ``as=Table`` counts as servable (``endpoints.tables``
  renders it); a conversion to any other kind, or to another group or version than
  ``meta.k8s.io/v1`` or ``v1beta1``, is skipped. Non-JSON entries (protobuf, YAML)
  are skipped too: this server answers JSON, so the JSON entries decide.
* When every entry asks for a JSON conversion nobody serves, the answer is 406
  ``NotAcceptable``: unknown ``as=`` values do not fall back to plain JSON unless
  the client also lists plain ``application/json``. (A header with only non-JSON
  types is answered with plain JSON, as the rest of this server does.)
* Negotiation does not tell lists from single objects: ``as=PartialObjectMetadata``
  on a list (or ``...List`` on a single object) is chosen, then fails with 406.
  A watch streams single objects: ``as=PartialObjectMetadata`` converts every event
  (bookmarks too); the list kind cannot convert one, so the real server logs that
  and sends each object whole, and so does this one.
* The body is JSON with ``Content-Type: application/json``, as the real server's
  ``transformResponseObject`` writes it (the ``as=`` parameters are not echoed;
  clients read the body's ``kind``).

Entry points, called where list/get/watch build their answers:

* ``negotiate(request)``: the ``Conversion`` asked for, or ``None`` for plain JSON or
  a Table; raises the 406 ``StatusError`` when nothing is servable.
* ``object_response(conversion, served, obj, status)``: a single object's response;
  ``list_parts(conversion, served, list_metadata)``: a list's members but its items,
  and what each item becomes (the list's body is encoded in chunks by ``listing_body``).
* ``for_watch(conversion)``: the per-event converter, or ``None`` to send objects whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.negotiation import media_ranges
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.core.status import failure

__all__ = [
    "GROUP",
    "LIST_KIND",
    "OBJECT_KIND",
    "Conversion",
    "for_watch",
    "list_parts",
    "negotiate",
    "object_response",
    "partial_object",
]

GROUP = "meta.k8s.io"
OBJECT_KIND = "PartialObjectMetadata"
LIST_KIND = "PartialObjectMetadataList"
_VERSIONS = ("v1", "v1beta1")
_KINDS = (OBJECT_KIND, LIST_KIND, "Table")
# What the real server lists in a negotiation 406 for a built-in resource.
_ACCEPTED = "application/json, application/yaml, application/vnd.kubernetes.protobuf"


@dataclass(frozen=True, slots=True)
class Conversion:
    """A metadata-only kind: ``PartialObjectMetadata[List]`` in ``meta.k8s.io/<version>``."""

    kind: str
    version: str

    @property
    def api_version(self) -> str:
        return f"{GROUP}/{self.version}"

    @property
    def is_list(self) -> bool:
        return self.kind == LIST_KIND


def negotiate(request: web.BaseRequest) -> Conversion | None:
    """The metadata conversion the first servable ``Accept`` entry asks for.

    ``None`` when that entry is plain JSON, a Table, or not JSON at all (or there is
    no ``Accept`` header). Raises a 406 ``StatusError`` when every entry asks for a
    conversion this server cannot produce.
    """
    entries = media_ranges(request.headers.get("Accept"))
    other_types = not entries
    for entry in entries:
        if not entry.is_json:
            # Protobuf, YAML...: this server answers JSON instead, so such an entry never
            # decides (client-go lists protobuf first, then the same as JSON).
            other_types = True
            continue
        wanted = entry.kind()
        if wanted is None:
            return None
        group, version, kind = wanted
        if group != GROUP or version not in _VERSIONS or kind not in _KINDS:
            continue  # a transform nobody serves: try the next entry
        if kind == "Table":
            return None
        return Conversion(kind, version)
    if other_types:
        return None  # answered as plain JSON, as before any of this existed
    raise StatusError(
        failure(406, "NotAcceptable", f"only the following media types are accepted: {_ACCEPTED}")
    )


def partial_object(obj: dict[str, Any], api_version: str = f"{GROUP}/v1") -> dict[str, Any]:
    """``obj`` reduced to a ``PartialObjectMetadata`` (its metadata is shared, not copied)."""
    return {"kind": OBJECT_KIND, "apiVersion": api_version, "metadata": obj.get("metadata") or {}}


def object_response(
    conversion: Conversion, served: ServedResource, obj: dict[str, Any], status: int = 200
) -> web.Response:
    """A single object as ``PartialObjectMetadata``; 406 if the list kind was asked for."""
    if conversion.is_list:
        raise _mismatch(
            f"you requested {LIST_KIND}, but the requested object is not a list "
            f"({_go_type(served, listed=False)})"
        )
    return _json(partial_object(obj, conversion.api_version), status)


def list_parts(
    conversion: Conversion, served: ServedResource, list_metadata: dict[str, Any]
) -> tuple[dict[str, Any], Callable[[dict[str, Any]], dict[str, Any]]]:
    """A ``PartialObjectMetadataList``'s members but its items, and what each item becomes
    (for a body encoded in chunks); 406 if the single kind was asked for."""
    if not conversion.is_list:
        raise _mismatch(
            f"you requested {OBJECT_KIND}, but the requested object is a list "
            f"({_go_type(served, listed=True)})"
        )
    api_version = conversion.api_version
    head = {"kind": LIST_KIND, "apiVersion": api_version, "metadata": list_metadata}
    return head, lambda obj: partial_object(obj, api_version)


def for_watch(conversion: Conversion | None) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """What each watch event's object becomes, or ``None`` to send objects whole.

    The list kind cannot convert one object: the real server then logs the failure
    and sends the object unconverted, event after event.
    """
    if conversion is None or conversion.is_list:
        return None
    api_version = conversion.api_version
    return lambda obj: partial_object(obj, api_version)


def _json(body: dict[str, Any], status: int) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, content_type="application/json")


def _mismatch(message: str) -> StatusError:
    return StatusError(failure(406, "NotAcceptable", message))


def _go_type(served: ServedResource, *, listed: bool) -> str:
    """The Go type the real server names in its 406 (internal types for built-ins)."""
    if not served.builtin:
        return "*unstructured.UnstructuredList" if listed else "*unstructured.Unstructured"
    info = served.info
    package = info.group.split(".", 1)[0] if info.group else "core"
    return f"*{package}.{info.list_kind if listed else info.kind}"
