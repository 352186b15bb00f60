"""The JSON patch (RFC 6902) from one JSON document to another: ``create_patch``.

Entry point: ``create_patch(original, current)``. The defaulting webhook sends the
API server this patch from the object it received to the defaulted one. Like the
``gomodules.xyz/jsonpatch`` that controller-runtime uses it emits only ``add``,
``remove`` and ``replace`` (every API server applies those; ``move``/``copy`` buy
nothing for small objects), recursing into objects and into arrays of equal length
and replacing an array whose length changed. Written here rather than taken from a
library because it is this short and the operations it may emit are a contract.

>>> create_patch({"spec": {"a": 1}}, {"spec": {"a": 2}, "b/c": [1]})
[{'op': 'replace', 'path': '/spec/a', 'value': 2}, {'op': 'add', 'path': '/b~1c', 'value': [1]}]
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_patch", "pointer"]


def pointer(*parts: str | int) -> str:
    """A JSON pointer (RFC 6901) with ``~`` and ``/`` escaped."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def create_patch(original: Any, current: Any) -> list[dict[str, Any]]:
    """The operations that turn ``original`` into ``current`` (``[]`` when equal)."""
    ops: list[dict[str, Any]] = []
    _diff(original, current, (), ops)
    return ops


def _diff(old: Any, new: Any, path: tuple[str | int, ...], ops: list[dict[str, Any]]) -> None:
    if _same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": pointer(*path, key)})
        for key, value in new.items():
            if key in old:
                _diff(old[key], value, (*path, key), ops)
            else:
                ops.append({"op": "add", "path": pointer(*path, key), "value": value})
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            _diff(before, after, (*path, index), ops)
        return
    ops.append({"op": "replace", "path": pointer(*path), "value": new})


def _same(old: Any, new: Any) -> bool:
    # 1 == 1.0 == True in Python, but they are different JSON documents.
    return type(old) is type(new) and old == new
