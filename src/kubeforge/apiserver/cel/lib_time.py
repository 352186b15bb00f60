"""CEL's type conversions and the timestamp/duration accessors, with Go's text formats.

``string(1e6)`` is ``"1e+06"`` (Go's shortest ``%g``), ``duration("1h30m")`` reads Go
durations, ``timestamp("2024-01-02T03:04:05Z")`` RFC 3339, ``bool("t")`` Go's
``ParseBool``; ``ts.getHours("America/New_York")`` takes an IANA zone or ``+HH:MM``.

Entry point: ``FUNCTIONS``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from kubeforge.apiserver.cel.values import (
    INT64_MAX,
    INT64_MIN,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    UINT64_MAX,
    Duration,
    EvalError,
    Timestamp,
    UInt,
)  # fmt: skip
from kubeforge.apiserver.meta.goduration import parse_go_duration

__all__ = ["FUNCTIONS", "format_double", "parse_duration", "parse_timestamp"]

_NS = 1_000_000_000
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$"
)


def format_double(value: float) -> str:
    """Go's ``strconv.FormatFloat(v, 'g', -1, 64)``: shortest digits, ``e`` from 1e+06 up."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1, value) < 0 else ""
    if value == 0:
        return sign + "0"
    _, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    point = len(digit_tuple) + int(exponent)  # digits before the decimal point
    exp = point - 1
    precision = 6
    if precision > len(digits) >= point:
        precision = len(digits)
    if exp < -4 or exp >= precision:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def parse_duration(text: str) -> Duration:
    """``duration(text)``: Go's ``time.ParseDuration``, then CEL's own range (+-10,000 years)."""
    try:
        nanos = parse_go_duration(text)
    except ValueError as error:
        raise EvalError(str(error)) from None
    if abs(nanos) > 315576000000 * _NS:
        raise EvalError("duration overflow")
    return Duration(nanos)


def parse_timestamp(text: str) -> Timestamp:
    match = _RFC3339.match(text)
    if match is None:
        raise EvalError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction = (match.group(7) or "").ljust(9, "0")
    zone = match.group(8)
    offset = 0
    if zone not in ("Z", "z"):
        offset = (int(zone[1:3]) * 60 + int(zone[4:6])) * (1 if zone[0] == "+" else -1)
    try:
        moment = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.UTC)
    except ValueError:
        raise EvalError(f'parsing time "{text}": day out of range') from None
    seconds = int((moment - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)).total_seconds()) - offset * 60
    nanos = seconds * _NS + int(fraction or 0)
    if nanos < TIMESTAMP_MIN or nanos > TIMESTAMP_MAX:
        raise EvalError("timestamp overflow")
    return Timestamp(nanos, offset)


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise EvalError("no such overload")
    if isinstance(value, int):
        if value > INT64_MAX:
            raise EvalError("integer overflow")
        return int(value)
    if isinstance(value, float):
        if math.isnan(value) or not (INT64_MIN <= value < 2.0**63):
            raise EvalError("integer overflow")
        return int(value)
    if isinstance(value, str):
        if not re.fullmatch(r"[+-]?[0-9]+", value):
            raise EvalError(f'strconv.ParseInt: parsing "{value}": invalid syntax')
        number = int(value)
        if not INT64_MIN <= number <= INT64_MAX:
            raise EvalError(f'strconv.ParseInt: parsing "{value}": value out of range')
        return number
    if isinstance(value, Timestamp):
        return value.nanos // _NS
    raise EvalError("no such overload")


def _to_uint(value: Any) -> UInt:
    if isinstance(value, bool):
        raise EvalError("no such overload")
    if isinstance(value, int | float):
        if (isinstance(value, float) and math.isnan(value)) or value < 0 or value >= 2.0**64:
            raise EvalError("unsigned integer overflow")
        return UInt(int(value))
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9]+", value) or int(value) > UINT64_MAX:
            raise EvalError(f'strconv.ParseUint: parsing "{value}": invalid syntax')
        return UInt(int(value))
    raise EvalError("no such overload")


def _to_double(value: Any) -> float:
    if isinstance(value, bool):
        raise EvalError("no such overload")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise EvalError(f'strconv.ParseFloat: parsing "{value}": invalid syntax') from None
    raise EvalError("no such overload")


def to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(value, Duration | Timestamp):
        return str(value)
    text = getattr(value, "cel_string", None)
    if text is not None:
        return str(text())
    raise EvalError("no such overload")


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    truth = {
        "1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
        "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False,
    }  # fmt: skip
    if isinstance(value, str) and value in truth:
        return truth[value]
    raise EvalError("type conversion error from 'string' to 'bool'")


def _to_duration(value: Any) -> Duration:
    if isinstance(value, Duration):
        return value
    if isinstance(value, str):
        return parse_duration(value)
    raise EvalError("no such overload")


def _to_timestamp(value: Any) -> Timestamp:
    if isinstance(value, Timestamp):
        return value
    if isinstance(value, str):
        return parse_timestamp(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if not TIMESTAMP_MIN <= value * _NS <= TIMESTAMP_MAX:
            raise EvalError("timestamp overflow")
        return Timestamp(value * _NS)
    raise EvalError("no such overload")


def _zone(name: str) -> dt.tzinfo:
    match = re.fullmatch(r"([+-]?)(\d{2}):(\d{2})", name)
    if match:
        minutes = int(match.group(2)) * 60 + int(match.group(3))
        return dt.timezone(dt.timedelta(minutes=-minutes if match.group(1) == "-" else minutes))
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError):
        raise EvalError(f"unknown time zone {name}") from None


def _part(
    of_timestamp: Callable[[dt.datetime, int], int], of_duration: Callable[[int], int] | None
) -> Callable[..., int]:
    def accessor(value: Any, zone: str = "UTC") -> int:
        if isinstance(value, Duration) and of_duration is not None:
            return of_duration(value.nanos)
        if not isinstance(value, Timestamp):
            raise EvalError("no such overload")
        return of_timestamp(value.datetime(_zone(zone)), value.nanos % _NS)

    return accessor


def _truncate(nanos: int, unit: int) -> int:
    return int(nanos / unit) if nanos < 0 else nanos // unit


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "int": _to_int,
    "uint": _to_uint,
    "double": _to_double,
    "string": to_string,
    "bytes": lambda v: v if isinstance(v, bytes) else v.encode(),
    "bool": _to_bool,
    "duration": _to_duration,
    "timestamp": _to_timestamp,
    "getFullYear": _part(lambda d, _n: d.year, None),
    "getMonth": _part(lambda d, _n: d.month - 1, None),
    "getDayOfYear": _part(lambda d, _n: d.timetuple().tm_yday - 1, None),
    "getDayOfMonth": _part(lambda d, _n: d.day - 1, None),
    "getDate": _part(lambda d, _n: d.day, None),
    "getDayOfWeek": _part(lambda d, _n: (d.weekday() + 1) % 7, None),
    "getHours": _part(lambda d, _n: d.hour, lambda n: _truncate(n, 3600 * _NS)),
    "getMinutes": _part(lambda d, _n: d.minute, lambda n: _truncate(n, 60 * _NS)),
    "getSeconds": _part(lambda d, _n: d.second, lambda n: _truncate(n, _NS)),
    "getMilliseconds": _part(lambda _d, n: n // 10**6, lambda n: _truncate(n, 10**6)),
}
