"""Pydantic v2 twins of the generated msgspec models, for a like-for-like benchmark.

See ``pydantic_twin()``. Each twin is built from the msgspec class itself (its
fields, wire names, types and defaults), so both systems decode exactly the same
schema: nothing is hand-written, and nothing is left out to make one look faster.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import msgspec
import pydantic

__all__ = ["pydantic_twin"]

_CONFIG = pydantic.ConfigDict(populate_by_name=True, extra="ignore")


def pydantic_twin(cls: type[msgspec.Struct]) -> type[pydantic.BaseModel]:
    """A pydantic model with the same fields as the msgspec ``cls`` (and its nested models)."""
    return _Twins().model(cls)


class _Twins:
    def __init__(self) -> None:
        self.done: dict[type[msgspec.Struct], type[pydantic.BaseModel]] = {}

    def model(self, cls: type[msgspec.Struct]) -> type[pydantic.BaseModel]:
        if cls in self.done:
            return self.done[cls]
        fields: dict[str, Any] = {}
        for f in msgspec.structs.fields(cls):
            annotation = self.annotation(f.type)
            if f.default_factory is not msgspec.NODEFAULT:
                factory = f.default_factory
                if isinstance(factory, type) and issubclass(factory, msgspec.Struct):
                    factory = self.model(factory)
                spec = pydantic.Field(default_factory=factory, alias=f.encode_name)
            elif f.default is not msgspec.NODEFAULT:
                default = None if isinstance(f.default, msgspec.Raw) else f.default
                spec = pydantic.Field(default=default, alias=f.encode_name)
            else:
                spec = pydantic.Field(alias=f.encode_name)
            fields[f.name] = (annotation, spec)
        twin: type[pydantic.BaseModel] = pydantic.create_model(  # type: ignore[call-overload]
            cls.__name__, __config__=_CONFIG, **fields
        )
        self.done[cls] = twin
        return twin

    def annotation(self, tp: Any) -> Any:
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            return self.model(tp)
        if tp is msgspec.Raw:  # raw JSON (fieldsV1): pydantic has no such type, so a dict
            return dict[str, Any] | None
        origin = typing.get_origin(tp)
        if origin in (types.UnionType, typing.Union):
            members = tuple(self.annotation(arg) for arg in typing.get_args(tp))
            return typing.Union[members]  # noqa: UP007 (built from a runtime tuple)
        if origin is list:
            (item,) = typing.get_args(tp)
            return list[self.annotation(item)]  # type: ignore[misc]
        if origin is dict:
            key, value = typing.get_args(tp)
            return dict[key, self.annotation(value)]  # type: ignore[valid-type]
        return tp
