"""The Kubernetes types whose JSON form is not their message: times, durations.

``metav1.Time`` is RFC 3339 to the second, ``MicroTime`` to the microsecond (both UTC,
``null`` when zero); ``metav1.Duration`` is Go's ``time.Duration.String()``. Entry
points: ``format_time``/``parse_time`` and ``format_duration``/``parse_duration``.

Example::

    >>> format_duration(3_723_500_000_000)
    '1h2m3.5s'
    >>> parse_duration('1h2m3.5s')
    3723500000000
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kubeforge.apiserver.meta.goduration import parse_go_duration

__all__ = ["format_duration", "format_time", "parse_duration", "parse_time"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_UNITS = (("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000))
_SMALL = (("ms", 1_000_000), ("µs", 1_000), ("ns", 1))


def format_time(seconds: int, nanos: int, micro: bool) -> str | None:
    """The JSON of a ``Time`` (whole seconds) or ``MicroTime``; ``None`` for the zero time."""
    if not seconds and not nanos:
        return None
    moment = _EPOCH + timedelta(seconds=seconds)
    if micro:
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos // 1000:06d}Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> tuple[int, int]:
    """``(seconds, nanos)`` of an RFC 3339 time; ``ValueError`` when it is not one."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"no time zone in {text!r}")
    delta = moment - _EPOCH
    seconds = delta.days * 86_400 + delta.seconds
    return seconds, delta.microseconds * 1000


def _fraction(value: int, unit: int) -> str:
    whole, rest = divmod(value, unit)
    if not rest:
        return str(whole)
    digits = str(rest).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


def format_duration(nanos: int) -> str:
    """Go's ``time.Duration.String()``: ``1h2m3.5s``, ``150ms``, ``0s``."""
    if nanos == 0:
        return "0s"
    sign, value = ("-" if nanos < 0 else ""), abs(nanos)
    if value < 1_000_000_000:
        for suffix, unit in _SMALL:
            if value >= unit:
                return sign + _fraction(value, unit) + suffix
    out = ""
    hours, value = divmod(value, _UNITS[0][1])
    minutes, value = divmod(value, _UNITS[1][1])
    if hours:
        out += f"{hours}h"
    if hours or minutes:
        out += f"{minutes}m"
    return sign + out + _fraction(value, _UNITS[2][1]) + "s"


def parse_duration(text: str) -> int:
    """Nanoseconds of a Go duration string (``time.ParseDuration``); ``ValueError`` when it
    is not one."""
    return parse_go_duration(text)
