"""Typed objects <-> plain dicts (client-go's Unstructured), both ways, losing nothing.

``to_dict(obj)`` gives the wire form of a model as dicts and lists; ``from_dict(data,
cls)`` builds the model back. Fields the class does not declare survive both ways
(``obj.unknown_fields_`` holds them meanwhile), so a typed get-modify-update never
drops what a newer server or another controller wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from kubeforge.core import meta
from kubeforge.core.meta import Model

__all__ = ["from_dict", "to_dict"]

M = TypeVar("M", bound=Model)


def to_dict(obj: Model) -> dict[str, Any]:
    """``obj`` as a plain dict with camelCase keys; unset fields are left out."""
    value = meta.to_builtins(obj)
    if not isinstance(value, dict):  # pragma: no cover - a Model always encodes as an object
        raise TypeError(f"{type(obj).__name__} did not encode as an object")
    return value


def from_dict(data: Mapping[str, Any], cls: type[M]) -> M:
    """``data`` (as from JSON, YAML or ``to_dict``) as a ``cls``; ``data`` is not modified.

    Raises ``msgspec.ValidationError`` naming the path of a value of the wrong type.
    """
    return meta.convert(data, cls)
