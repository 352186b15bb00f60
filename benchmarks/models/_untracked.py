"""Copies of the generated models whose instances the garbage collector does not track.

See ``untracked_twin()``. msgspec's ``gc=False`` option saves a GC header per
object and keeps the collector from walking cached objects, at the price of never
collecting reference cycles through them. The benchmark measures it to show what
the option would buy if ``kubeforge.core.meta.Model`` set it.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import msgspec

from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource

__all__ = ["untracked_twin"]


def untracked_twin(cls: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """A ``gc=False`` copy of ``cls`` and of every model it contains."""
    return _Twins().struct(cls)


class _Twins:
    def __init__(self) -> None:
        self.done: dict[type[msgspec.Struct], type[msgspec.Struct]] = {}

    def struct(self, cls: type[msgspec.Struct]) -> type[msgspec.Struct]:
        if cls in self.done:
            return self.done[cls]
        fields: list[tuple[str, Any, Any]] = []
        for f in msgspec.structs.fields(cls):
            factory = f.default_factory
            if isinstance(factory, type) and issubclass(factory, msgspec.Struct):
                factory = self.struct(factory)
            if factory is not msgspec.NODEFAULT:
                spec = msgspec.field(default_factory=factory, name=f.encode_name)
            else:
                spec = msgspec.field(default=f.default, name=f.encode_name)
            fields.append((f.name, self.annotation(f.type), spec))
        if issubclass(cls, Resource):  # keeps ``info`` and the apiVersion/kind defaulting
            twin = msgspec.defstruct(
                cls.__name__, fields, bases=(Resource,), namespace={"info": cls.info}, gc=False
            )
        else:
            twin = msgspec.defstruct(cls.__name__, fields, bases=(Model,), gc=False)
        self.done[cls] = twin
        return twin

    def annotation(self, tp: Any) -> Any:
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            return self.struct(tp)
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
