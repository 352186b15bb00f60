"""CEL's operators on runtime values: equality, ordering, arithmetic, indexing, ``in``.

Semantics are the CEL spec's as cel-go implements them: heterogeneous equality
(``1 == 1u`` and ``1 == 1.0`` are true, ``true == 1`` is false, values of different
types are unequal rather than an error), int64/uint64 arithmetic that raises
``integer overflow``, division truncating toward zero, and library types (Quantity,
IP, ...) comparing through their own ``cel_equal``.

Entry point: ``OPERATORS`` (function name -> implementation) and ``cel_equal``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.cel.values import (
    NONE,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    Duration,
    EvalError,
    MapList,
    Optional,
    SetList,
    Timestamp,
    TypeValue,
    UInt,
    check_int,
    check_uint,
    type_name,
)  # fmt: skip

__all__ = ["OPERATORS", "cel_equal"]

_NUMBERS = (int, float)


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBERS) and not isinstance(value, bool)


def cel_equal(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        return bool(a == b)  # NaN is unequal to everything, as in CEL
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        if type(a) is SetList:
            return all(any(cel_equal(x, y) for y in b) for x in a)
        if type(a) is MapList:
            theirs = b.keyed() if type(b) is MapList else {a.key(y): y for y in b}
            return all(cel_equal(x, theirs.get(k, _MISSING)) for k, x in a.keyed().items())
        return all(map(cel_equal, a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for key, value in a.items():
            match = _lookup(b, key)
            if match is _MISSING or not cel_equal(value, match):
                return False
        return True
    if type(a) is not type(b):
        return False
    custom = getattr(a, "cel_equal", None)
    if custom is not None:
        return bool(custom(b))
    return bool(a == b)


_MISSING = object()


def _lookup(mapping: dict[Any, Any], key: Any) -> Any:
    if isinstance(key, str):
        return mapping.get(key, _MISSING)
    for k, v in mapping.items():
        if cel_equal(k, key):
            return v
    return _MISSING


def _compare(a: Any, b: Any) -> int:
    if _is_number(a) and _is_number(b):
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            raise EvalError("NaN values cannot be ordered")
        return int(a > b) - int(a < b)
    same = type(a) is type(b) or (isinstance(a, str) and isinstance(b, str))
    if same and isinstance(a, bool | str | bytes | Duration | Timestamp):
        return int(a > b) - int(a < b)
    compare = getattr(a, "cel_compare", None)
    if compare is not None and type(a) is type(b):
        return int(compare(b))
    raise EvalError("no such overload")


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise EvalError("no such overload")
    if isinstance(a, UInt) and isinstance(b, UInt):
        return check_uint(a + b)
    if type(a) is int and type(b) is int:
        return check_int(a + b)
    if isinstance(a, float) and isinstance(b, float):
        return a + b
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, bytes) and isinstance(b, bytes):
        return a + b
    if isinstance(a, list) and isinstance(b, list):
        return _concat(a, b)
    if isinstance(a, Duration) and isinstance(b, Duration):
        return _duration(a.nanos + b.nanos)
    if isinstance(a, Timestamp) and isinstance(b, Duration):
        return _timestamp(a.nanos + b.nanos)
    if isinstance(a, Duration) and isinstance(b, Timestamp):
        return _timestamp(a.nanos + b.nanos)
    raise EvalError("no such overload")


def _concat(a: list[Any], b: list[Any]) -> list[Any]:
    if type(a) is SetList:
        return SetList([*a, *(y for y in b if not any(cel_equal(x, y) for x in a))])
    if type(a) is MapList:
        merged = a.keyed()
        merged.update(b.keyed() if type(b) is MapList else {a.key(y): y for y in b})
        return MapList(list(merged.values()), a.keys, list(merged))
    return a + b


def _sub(a: Any, b: Any) -> Any:
    if isinstance(a, UInt) and isinstance(b, UInt):
        return check_uint(a - b)
    if type(a) is int and type(b) is int:
        return check_int(a - b)
    if isinstance(a, float) and isinstance(b, float):
        return a - b
    if isinstance(a, Timestamp) and isinstance(b, Timestamp):
        return _duration(a.nanos - b.nanos)
    if isinstance(a, Timestamp) and isinstance(b, Duration):
        return _timestamp(a.nanos - b.nanos)
    if isinstance(a, Duration) and isinstance(b, Duration):
        return _duration(a.nanos - b.nanos)
    raise EvalError("no such overload")


def _duration(nanos: int) -> Duration:
    if abs(nanos) > 315576000000 * 1_000_000_000:
        raise EvalError("duration overflow")
    return Duration(nanos)


def _timestamp(nanos: int) -> Timestamp:
    if nanos < TIMESTAMP_MIN or nanos > TIMESTAMP_MAX:
        raise EvalError("timestamp overflow")
    return Timestamp(nanos)


def _arith(int_op: Callable[[int, int], int], float_op: Callable[[float, float], float]) -> Any:
    def apply(a: Any, b: Any) -> Any:
        if isinstance(a, UInt) and isinstance(b, UInt):
            return check_uint(int_op(a, b))
        if type(a) is int and type(b) is int:
            return check_int(int_op(a, b))
        if isinstance(a, float) and isinstance(b, float):
            return float_op(a, b)
        raise EvalError("no such overload")

    return apply


def _truncated_div(a: int, b: int) -> int:
    if b == 0:
        raise EvalError("division by zero")
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _truncated_mod(a: int, b: int) -> int:
    if b == 0:
        raise EvalError("modulus by zero")
    return a - b * _truncated_div(a, b)


def _float_div(a: float, b: float) -> float:
    if b == 0:
        return (
            math.nan
            if a == 0 or math.isnan(a)
            else math.copysign(math.inf, a) * math.copysign(1, b)
        )
    return a / b


def _no_float(_a: float, _b: float) -> float:
    raise EvalError("no such overload")


def _negate(a: Any) -> Any:
    if type(a) is int:
        return check_int(-a)
    if isinstance(a, float):
        return -a
    raise EvalError("no such overload")


def _not(a: Any) -> Any:
    if not isinstance(a, bool):
        raise EvalError("no such overload")
    return not a


def _index(container: Any, key: Any) -> Any:
    if isinstance(container, Optional):
        if not container.present:
            return NONE
        return _optional_index(container.value, key)
    if isinstance(container, list):
        if not _is_number(key) or (isinstance(key, float) and not key.is_integer()):
            raise EvalError("unsupported index type")
        index = int(key)
        if index < 0 or index >= len(container):
            raise EvalError(f"index out of bounds: {index}")
        return container[index]
    if isinstance(container, dict):
        value = _lookup(container, key)
        if value is _MISSING:
            raise EvalError(f"no such key: {_show(key)}")
        return value
    raise EvalError("no such overload")


def _optional_index(container: Any, key: Any) -> Any:
    if isinstance(container, Optional):
        return _optional_index(container.value, key) if container.present else NONE
    if isinstance(container, list):
        index = int(key)
        return Optional(container[index], True) if 0 <= index < len(container) else NONE
    if isinstance(container, dict):
        value = _lookup(container, key)
        return NONE if value is _MISSING else Optional(value, True)
    raise EvalError("no such overload")


def _in(item: Any, container: Any) -> bool:
    if isinstance(container, list):
        return any(cel_equal(item, x) for x in container)
    if isinstance(container, dict):
        return _lookup(container, item) is not _MISSING
    raise EvalError("no such overload")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _type_of(value: Any) -> TypeValue:
    return TypeValue(type_name(value))


OPERATORS: dict[str, Callable[..., Any]] = {
    "_==_": cel_equal,
    "_!=_": lambda a, b: not cel_equal(a, b),
    "_<_": lambda a, b: _compare(a, b) < 0,
    "_<=_": lambda a, b: _compare(a, b) <= 0,
    "_>_": lambda a, b: _compare(a, b) > 0,
    "_>=_": lambda a, b: _compare(a, b) >= 0,
    "_+_": _add,
    "_-_": _sub,
    "_*_": _arith(lambda a, b: a * b, lambda a, b: a * b),
    "_/_": _arith(_truncated_div, _float_div),
    "_%_": _arith(_truncated_mod, _no_float),
    "-_": _negate,
    "!_": _not,
    "_[_]": _index,
    "_[?_]": _optional_index,
    "@in": _in,
    "type": _type_of,
}
