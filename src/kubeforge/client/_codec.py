"""Bytes <-> objects for the two faces of ``Api``: typed ``Resource`` classes and plain dicts.

``typed_codec(cls)`` decodes with msgspec decoders built once per class (objects,
list pages and watch lines each in a single pass); ``DictCodec`` uses orjson.
Both raise a watch ``ERROR`` event as the ``ApiError`` its ``Status`` describes.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar

import msgspec
import orjson

from kubeforge.client.wire import ObjectList, WatchEvent
from kubeforge.core.errors import ApiError
from kubeforge.core.meta import ListMeta
from kubeforge.core.resource import Resource, ResourceInfo

__all__ = ["Codec", "DictCodec", "TypedCodec", "encode", "typed_codec"]

T = TypeVar("T")
R = TypeVar("R", bound=Resource)

_encoder = msgspec.json.Encoder()


def encode(body: object) -> bytes:
    """JSON for any request body: typed objects (unset fields omitted), dicts, lists."""
    return _encoder.encode(body)


class Codec(Protocol[T]):
    def decode(self, data: bytes) -> T: ...

    def decode_list(self, data: bytes) -> ObjectList[T]: ...

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
        self._object = msgspec.json.Decoder(cls)
        self._list = msgspec.json.Decoder(ObjectList[cls])  # type: ignore[valid-type]
        self._event = msgspec.json.Decoder(WatchEvent[cls])  # type: ignore[valid-type]

    def decode(self, data: bytes) -> R:
        return self._object.decode(data)

    def decode_list(self, data: bytes) -> ObjectList[R]:
        return self._list.decode(data)

    def decode_event(self, line: bytes) -> WatchEvent[R]:
        try:
            event: WatchEvent[R] = self._event.decode(line)
        except msgspec.ValidationError:
            # A Status rarely fits the model; when it does not, the line may still be ERROR.
            if b'"ERROR"' in line:
                _raise_error_event(line)
            raise
        if event.type == "ERROR":
            _raise_error_event(line)
        return event


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
        body = self.decode(data)
        items = body.get("items") or []
        for item in items:
            item.setdefault("apiVersion", self._api_version)
            item.setdefault("kind", self._kind)
        meta = body.get("metadata") or {}
        return ObjectList(
            items=items,
            metadata=ListMeta(
                resource_version=meta.get("resourceVersion"),
                continue_=meta.get("continue"),
                remaining_item_count=meta.get("remainingItemCount"),
            ),
        )

    def decode_event(self, line: bytes) -> WatchEvent[dict[str, Any]]:
        event = self.decode(line)
        kind = event.get("type")
        if kind == "ERROR":
            _raise_error_event(line)
        obj = event.get("object")
        if not isinstance(kind, str) or not isinstance(obj, dict):
            raise msgspec.ValidationError(f"malformed watch event: {line[:200]!r}")
        return WatchEvent(type=kind, object=obj)
