"""Bytes <-> objects for the two faces of ``Api``: typed ``Resource`` classes and plain dicts.

``typed_codec(cls)`` decodes with msgspec decoders built once per class (objects,
list pages and watch lines each in a single pass), falling back to the slower
lossless path of ``kubeforge.core.meta.decode`` only when the server sent fields
the class does not declare; ``DictCodec`` uses orjson. Both raise a watch
``ERROR`` event as the ``ApiError`` its ``Status`` describes. ``encode`` writes any
body, typed objects' unknown fields included.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import msgspec
import orjson

from kubeforge.client.wire import LazyPage, ObjectList, WatchEvent
from kubeforge.core import meta
from kubeforge.core.errors import ApiError
from kubeforge.core.meta import ListMeta, ObjectMeta, zero_object
from kubeforge.core.resource import Resource, ResourceInfo, fill_type_meta

__all__ = ["Codec", "DictCodec", "TypedCodec", "encode", "typed_codec"]

T = TypeVar("T")
R = TypeVar("R", bound=Resource)

# Above this size a decode builds enough objects that the collector's repeated full
# passes over the growing result cost more than the decode itself (benchmarks/models:
# 6x for 10,000 pods); pausing it for one synchronous call is safe, nothing else runs.
_PAUSE_GC_ABOVE = 1 << 20


def encode(body: object) -> bytes:
    """JSON for any request body: typed objects (unset fields omitted, unknown fields kept),
    dicts, lists."""
    return meta.encode(body)


def _without_gc(decode: Callable[[bytes], T], data: bytes) -> T:
    if len(data) < _PAUSE_GC_ABOVE or not gc.isenabled():
        return decode(data)
    gc.disable()
    try:
        return decode(data)
    finally:
        gc.enable()


def _same(item: T) -> T:
    return item


class Codec(Protocol[T]):
    def decode(self, data: bytes) -> T: ...

    def decode_list(self, data: bytes) -> ObjectList[T]: ...

    def decode_page_lazily(self, data: bytes) -> LazyPage[T]: ...

    def decode_event(self, line: bytes) -> WatchEvent[T]: ...


def _raise_error_event(line: bytes) -> None:
    """Raise the ``Status`` of a watch ``ERROR`` line (``Gone`` for 410)."""
    event = orjson.loads(line)
    status = event.get("object") if isinstance(event, dict) else None
    if not isinstance(status, dict):
        status = {"code": 500, "message": f"watch ERROR event without a Status: {line[:200]!r}"}
    raise ApiError.from_status(status)


class TypedCodec(Generic[R]):
    def __init__(self, cls: type[R]) -> None:
        self.cls = cls
        self._object = msgspec.json.Decoder(cls)
        self._list_type: Any = ObjectList[cls]  # type: ignore[valid-type]
        self._event_type: Any = WatchEvent[cls]  # type: ignore[valid-type]
        self._list = msgspec.json.Decoder(self._list_type)
        self._raw_list = msgspec.json.Decoder(ObjectList[msgspec.Raw])
        self._event = msgspec.json.Decoder(self._event_type)

    def decode(self, data: bytes) -> R:
        return meta.decode(data, self.cls, self._object)

    def decode_list(self, data: bytes) -> ObjectList[R]:
        page: ObjectList[R] = _without_gc(self._decode_list, data)
        return page

    def _decode_list(self, data: bytes) -> ObjectList[R]:
        page: ObjectList[R] = meta.decode(data, self._list_type, self._list)
        # Items come without apiVersion and kind; they read the same without, but an
        # object compares equal to the same object from a get or a watch only with them.
        fill_type_meta(page.items, self.cls.info)
        return page

    def decode_page_lazily(self, data: bytes) -> LazyPage[R]:
        page: ObjectList[msgspec.Raw] = self._raw_list.decode(data)
        return LazyPage(page.items, self._decode_item, page.metadata)

    def _decode_item(self, raw: msgspec.Raw) -> R:
        obj = meta.decode(bytes(raw), self.cls, self._object)
        fill_type_meta([obj], self.cls.info)
        return obj

    def decode_event(self, line: bytes) -> WatchEvent[R]:
        try:
            event: WatchEvent[R] = meta.decode(line, self._event_type, self._event)
        except msgspec.ValidationError:
            # A Status rarely fits the model; when it does not, the line may still be ERROR.
            if b'"ERROR"' in line:
                _raise_error_event(line)
            if b'"BOOKMARK"' in line:
                return self._bookmark(line)
            raise
        if event.type == "ERROR":
            _raise_error_event(line)
        return event

    def _bookmark(self, line: bytes) -> WatchEvent[R]:
        """A BOOKMARK whose empty object the model's constraints refuse (a required
        ``name`` of ``min_length=1``): only its metadata means anything, so the object
        is the model's zero value with that metadata."""
        event = orjson.loads(line)
        obj = zero_object(self.cls)
        raw = event.get("object") if isinstance(event, dict) else None
        metadata = raw.get("metadata") if isinstance(raw, dict) else None
        obj.metadata = meta.convert(metadata or {}, ObjectMeta)
        return WatchEvent(type="BOOKMARK", object=obj)


_typed_codecs: dict[type[Resource], TypedCodec[Any]] = {}


def typed_codec(cls: type[R]) -> TypedCodec[R]:
    """One codec per class: building msgspec decoders costs far more than using them."""
    codec = _typed_codecs.get(cls)
    if codec is None:
        codec = _typed_codecs[cls] = TypedCodec(cls)
    return codec


class DictCodec:
    """Plain dicts; list items missing ``apiVersion``/``kind`` get them from ``info``,
    as client-go's unstructured lists do (built-in list items omit them on the wire)."""

    def __init__(self, info: ResourceInfo) -> None:
        self._api_version = info.api_version
        self._kind = info.kind

    def decode(self, data: bytes) -> dict[str, Any]:
        value = orjson.loads(data)
        if not isinstance(value, dict):
            raise msgspec.ValidationError(f"expected a JSON object, got {type(value).__name__}")
        return value

    def decode_list(self, data: bytes) -> ObjectList[dict[str, Any]]:
        body = _without_gc(self.decode, data)
        items = body.get("items") or []
        for item in items:
            item.setdefault("apiVersion", self._api_version)
            item.setdefault("kind", self._kind)
        list_meta = body.get("metadata") or {}
        return ObjectList(
            items=items,
            metadata=ListMeta(
                resource_version=list_meta.get("resourceVersion"),
                continue_=list_meta.get("continue"),
                remaining_item_count=list_meta.get("remainingItemCount"),
            ),
        )

    def decode_page_lazily(self, data: bytes) -> LazyPage[dict[str, Any]]:
        """Decoded at once (plain dicts cannot be decoded in parts), handed out one by one."""
        page = self.decode_list(data)
        return LazyPage(page.items, _same, page.metadata)

    def decode_event(self, line: bytes) -> WatchEvent[dict[str, Any]]:
        event = self.decode(line)
        kind = event.get("type")
        if kind == "ERROR":
            _raise_error_event(line)
        obj = event.get("object")
        if not isinstance(kind, str) or not isinstance(obj, dict):
            raise msgspec.ValidationError(f"malformed watch event: {line[:200]!r}")
        return WatchEvent(type=kind, object=obj)
