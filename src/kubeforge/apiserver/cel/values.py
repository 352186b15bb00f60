"""CEL runtime values that Python has no exact type for, and the evaluation error.

Most CEL values are plain Python: ``bool``, ``int`` (int64, range-checked by the
operators), ``float``, ``str``, ``bytes``, ``None`` (null), ``list`` and ``dict``. This
module adds ``UInt`` (so ``1u`` and ``1`` are different values, as in CEL), ``Duration``
and ``Timestamp`` (nanosecond precision), ``Optional``, ``TypeValue`` (what ``type(x)``
returns) and ``EvalError`` (cel-go's runtime error text, e.g. ``no such key: foo``).

Entry points: the classes, ``type_name(value)``.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "UINT64_MAX",
    "ZERO_TIMESTAMP",
    "CostExceeded",
    "Duration",
    "EvalError",
    "MapList",
    "Optional",
    "SetList",
    "Timestamp",
    "TypeValue",
    "UInt",
    "check_int",
    "check_uint",
    "type_name",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


class EvalError(Exception):
    """A CEL runtime error; ``str()`` is cel-go's wording."""


class CostExceeded(EvalError):
    """The runtime cost limit stopped the evaluation (cel-go: ``operation cancelled``)."""

    def __init__(self) -> None:
        super().__init__("operation cancelled: actual cost limit exceeded")


class UInt(int):
    """A CEL ``uint``: equal to an ``int`` of the same value, but typed apart."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


def check_int(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise EvalError("integer overflow")
    return value


def check_uint(value: int) -> UInt:
    if value < 0 or value > UINT64_MAX:
        raise EvalError("unsigned integer overflow")
    return UInt(value)


@dataclass(frozen=True, order=True)
class Duration:
    """A ``google.protobuf.Duration`` in nanoseconds (range: about +-10,000 years)."""

    nanos: int
    cel_type_name = "google.protobuf.Duration"

    def __str__(self) -> str:
        seconds, frac = divmod(abs(self.nanos), 1_000_000_000)
        sign = "-" if self.nanos < 0 else ""
        if frac == 0:
            return f"{sign}{seconds}s"
        return f"{sign}{seconds}.{frac:09d}".rstrip("0") + "s"


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
# Timestamps CEL accepts: years 0001 to 9999.
TIMESTAMP_MIN = -62135596800 * 1_000_000_000
ZERO_TIMESTAMP = TIMESTAMP_MIN  # 0001-01-01T00:00:00Z, Go's zero time
TIMESTAMP_MAX = 253402300799 * 1_000_000_000 + 999_999_999


@dataclass(frozen=True, order=True)
class Timestamp:
    """A ``google.protobuf.Timestamp``: nanoseconds since the Unix epoch; ``offset`` (minutes
    east of UTC) is the zone it was written in, which only ``string()`` shows (Go's
    ``time.Time`` keeps it too)."""

    nanos: int
    offset: int = field(default=0, compare=False)
    cel_type_name = "google.protobuf.Timestamp"

    def datetime(self, tz: _dt.tzinfo = _dt.UTC) -> _dt.datetime:
        seconds, _ = divmod(self.nanos, 1_000_000_000)
        return (_EPOCH + _dt.timedelta(seconds=seconds)).astimezone(tz)

    def __str__(self) -> str:
        """Go's ``RFC3339Nano`` in the zone it was written in."""
        seconds, frac = divmod(self.nanos + self.offset * 60 * 1_000_000_000, 1_000_000_000)
        text = (_EPOCH + _dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
        if frac:
            text += f".{frac:09d}".rstrip("0")
        if not self.offset:
            return text + "Z"
        sign = "+" if self.offset > 0 else "-"
        hours, minutes = divmod(abs(self.offset), 60)
        return f"{text}{sign}{hours:02d}:{minutes:02d}"


@dataclass(frozen=True)
class Optional:
    """``optional.of(v)`` (``present``) or ``optional.none()``."""

    value: Any = None
    present: bool = False
    cel_type_name = "optional_type"

    def __str__(self) -> str:
        return f"optional({self.value!r})" if self.present else "optional.none()"


NONE = Optional()


@dataclass(frozen=True)
class TypeValue:
    """A type as a value (``type(1) == int``); ``name`` is CEL's type name."""

    name: str

    def __str__(self) -> str:
        return self.name


def type_name(value: Any) -> str:
    if value is None:
        return "null_type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, UInt):
        return "uint"
    if isinstance(value, int):
        return "int"
    names = {float: "double", str: "string", bytes: "bytes", list: "list", dict: "map"}
    for python_type, name in names.items():
        if isinstance(value, python_type):
            return name
    if isinstance(value, TypeValue):
        return "type"
    return str(getattr(value, "cel_type_name", type(value).__name__))


class SetList(list[Any]):
    """An ``x-kubernetes-list-type: set`` list: equal to another regardless of order, and
    ``+`` adds only the elements not already in it (Kubernetes' unstructuredSetList)."""

    __slots__ = ()


class MapList(list[Any]):
    """An ``x-kubernetes-list-type: map`` list: items are identified by ``keys``; equal to
    another with the same items in any order, and ``+`` replaces the items whose keys the
    right side has (Kubernetes' unstructuredMapList)."""

    __slots__ = ("item_keys", "keys")

    def __init__(
        self,
        items: list[Any],
        keys: tuple[str, ...],
        item_keys: list[tuple[Any, ...]] | None = None,
    ) -> None:
        super().__init__(items)
        self.keys = keys
        # the keys of the stored items, read before their property names were escaped (a
        # key such as "k!" has no CEL name but still identifies its item)
        self.item_keys = item_keys if item_keys is not None else [self.key(i) for i in items]

    def key(self, item: Any) -> tuple[Any, ...]:
        return tuple(item.get(k) for k in self.keys) if isinstance(item, dict) else (item,)

    def keyed(self) -> dict[tuple[Any, ...], Any]:
        return dict(zip(self.item_keys, self, strict=True))
