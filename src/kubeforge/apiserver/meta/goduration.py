"""Go's ``time.ParseDuration``, exactly: what it accepts, its nanoseconds and its errors.

Kubernetes reads durations with Go's parser in many places (CEL's ``duration()``,
protobuf's ``metav1.Duration``, the server's duration flags, robfig/cron's ``@every``),
so the local server reads them with this one: an optional sign, then one or more
``[0-9]*(\\.[0-9]*)?`` numbers each followed by a unit (``ns``, ``us``, ``µs``, ``μs``,
``ms``, ``s``, ``m``, ``h``); a lone ``0`` needs no unit. Sums past ``1<<63``
nanoseconds are invalid; a fraction adds ``float(fraction) * (unit / scale)``
truncated, as Go's float64 arithmetic does. Errors carry Go's words and its
``time.quote`` quoting (non-ASCII and control bytes as ``\\xNN``).

Entry point: ``parse_go_duration(text)`` (nanoseconds; ``ValueError`` with Go's message).

>>> parse_go_duration("1h2m3.5s")
3723500000000
>>> parse_go_duration("5q")
Traceback (most recent call last):
...
ValueError: time: unknown unit "q" in duration "5q"
"""

from __future__ import annotations

__all__ = ["go_time_quote", "parse_go_duration"]

_MICRO = 1_000
_UNITS = {
    "ns": 1,
    "us": _MICRO,
    "µs": _MICRO,  # U+00B5 MICRO SIGN
    "μs": _MICRO,  # U+03BC GREEK SMALL LETTER MU
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_LIMIT = 1 << 63
_DIGITS = "0123456789"


def go_time_quote(text: str) -> str:
    """Go's ``time.quote``: double quotes, ``"`` and ``\\`` escaped, every byte of a
    non-ASCII or control character as ``\\xNN``."""
    out = ['"']
    for char in text:
        if char < " " or ord(char) >= 0x80:
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + char if char in '"\\' else char)
    out.append('"')
    return "".join(out)


def _invalid(original: str) -> ValueError:
    return ValueError(f"time: invalid duration {go_time_quote(original)}")


def _leading_int(text: str, pos: int, original: str) -> tuple[int, int]:
    """``leadingInt``: the digits at ``pos`` as a number; past ``1<<63`` is invalid."""
    value = 0
    while pos < len(text) and text[pos] in _DIGITS:
        if value > _LIMIT // 10:
            raise _invalid(original)
        value = value * 10 + int(text[pos])
        if value > _LIMIT:
            raise _invalid(original)
        pos += 1
    return value, pos


def _leading_fraction(text: str, pos: int) -> tuple[int, float, int]:
    """``leadingFraction``: the digits at ``pos``; precision stops, silently, at overflow."""
    value, scale, overflow = 0, 1.0, False
    while pos < len(text) and text[pos] in _DIGITS:
        if not overflow:
            if value > (_LIMIT - 1) // 10:
                overflow = True
            else:
                bigger = value * 10 + int(text[pos])
                if bigger > _LIMIT:
                    overflow = True
                else:
                    value, scale = bigger, scale * 10
        pos += 1
    return value, scale, pos


def _unit_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] != "." and text[pos] not in _DIGITS:
        pos += 1
    return pos


def parse_go_duration(text: str) -> int:
    """Nanoseconds of ``text`` read as Go's ``time.ParseDuration`` reads it; raises
    ``ValueError`` with Go's message (``time: invalid duration "x"``, ``time: missing unit
    in duration "1"``, ``time: unknown unit "q" in duration "5q"``)."""
    rest, negative = text, False
    if rest[:1] in ("-", "+") and rest:
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise _invalid(text)
    total, pos = 0, 0
    while pos < len(rest):
        if rest[pos] != "." and rest[pos] not in _DIGITS:
            raise _invalid(text)
        start = pos
        whole, pos = _leading_int(rest, pos, text)
        had_whole = pos != start
        fraction, scale, had_fraction = 0, 1.0, False
        if pos < len(rest) and rest[pos] == ".":
            after_point = pos + 1
            fraction, scale, pos = _leading_fraction(rest, after_point)
            had_fraction = pos != after_point
        if not had_whole and not had_fraction:
            raise _invalid(text)
        end = _unit_end(rest, pos)
        if end == pos:
            raise ValueError(f"time: missing unit in duration {go_time_quote(text)}")
        unit_text, pos = rest[pos:end], end
        unit = _UNITS.get(unit_text)
        if unit is None:
            raise ValueError(
                f"time: unknown unit {go_time_quote(unit_text)} in duration {go_time_quote(text)}"
            )
        if whole > _LIMIT // unit:
            raise _invalid(text)
        value = whole * unit
        if fraction > 0:
            # Go adds the fraction in float64 (exact to the nanosecond up to an hour).
            value += int(float(fraction) * (float(unit) / scale))
            if value > _LIMIT:
                raise _invalid(text)
        total += value
        if total > _LIMIT:
            raise _invalid(text)
    if negative:
        return -total
    if total > _LIMIT - 1:
        raise _invalid(text)
    return total
