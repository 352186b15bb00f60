"""A built-in object's JSON shape checked against its type, as Go's decoder checks it when
it fills the typed struct, before any rule of the kind looks at it.

Entry point: ``check_shape(info, obj)``. The type model is structured-merge-diff's
(``smd.schema.builtin_root``: which fields are structs or maps, lists, scalars). A
value of the wrong shape (a list where ``spec`` is a struct, an object where a name
is a string) is the real server's 400, "{Kind} in version "v1" cannot be handled as a
{Kind}: json: cannot unmarshal array into Go struct field {Kind}.spec of type ...";
the Go type is named by its shape (``struct``, ``slice``, ``scalar``) since the model
keeps no Go names. ``null`` is accepted anywhere (Go's zero value) and undeclared
fields are left to field validation, which drops or reports them.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.smd.schema import Atom, builtin_root
from kubeforge.core.resource import ResourceInfo

__all__ = ["check_shape"]

_SHAPES = {"map": "struct", "list": "slice", "scalar": "scalar"}


def check_shape(info: ResourceInfo, obj: dict[str, Any]) -> None:
    """Raise the real 400 when ``obj`` (a built-in kind's object) has a value of the
    wrong shape; kinds without a type model (custom resources) pass."""
    root = builtin_root(info.group, info.version, info.kind)
    if root is None:
        return
    wrong = _mismatch(obj, root)
    if wrong is not None:
        path, value, shape = wrong
        _refuse(info, value, ".".join(reversed(path)), shape)


def _mismatch(value: Any, atom: Atom) -> tuple[list[str], Any, str] | None:
    """The first value of the wrong shape under ``value``: its path (innermost first),
    the value and the shape expected. Recursion is bounded by the body depth limit."""
    shape = atom.kind
    if value is None or shape == "any":
        return None
    if isinstance(value, dict):
        if shape != "map":
            return [], value, shape
        for key, item in value.items():
            child = atom.child(key)
            if child is None or item is None:
                continue  # undeclared (field validation's) or null (the zero value)
            if child.kind == "scalar" and not isinstance(item, dict | list):
                continue  # the common case, decided without a call
            wrong = _mismatch(item, child)
            if wrong is not None:
                wrong[0].append(key)
                return wrong
        return None
    if isinstance(value, list):
        if shape != "list":
            return [], value, shape
        element = atom.element
        if element is not None:
            for item in value:
                wrong = _mismatch(item, element)
                if wrong is not None:
                    return wrong
        return None
    return ([], value, shape) if shape != "scalar" else None


def _refuse(info: ResourceInfo, value: Any, path: str, shape: str) -> None:
    found = (
        "array"
        if isinstance(value, list)
        else "object"
        if isinstance(value, dict)
        else (
            "string"
            if isinstance(value, str)
            else "number"
            if not isinstance(value, bool)
            else "bool"
        )
    )
    raise failures.bad_request(
        f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: json: '
        f"cannot unmarshal {found} into Go struct field {info.kind}.{path} of type "
        f"{_SHAPES.get(shape, shape)}"
    )
