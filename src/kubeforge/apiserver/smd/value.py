"""JSON value equality, as structured-merge-diff's ``value.Equals`` compares values.

Entry point: ``json_equal(a, b)``: numbers compare by value whatever their type, but a
boolean never equals a number (Python's ``True == 1`` would let a patch or an apply
think ``replicas: 1`` and ``replicas: true`` are the same).

>>> json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]}), json_equal(True, 1)
(True, False)
"""

from __future__ import annotations

from typing import Any

__all__ = ["json_equal"]


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``true != 1``, recursively."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
