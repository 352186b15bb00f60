"""One field of a cron schedule as robfig/cron v3.0.1's ``getField`` reads it: a bitset.

A field is ``,``-separated ranges (empty pieces skipped); a range is ``*``/``?`` (the
whole field, with the star bit) or ``N`` or ``N-M`` (numbers or month/day names, any
case), then an optional ``/step`` (``N/step`` runs to the field's end; a step above 1
clears the star bit). Numbers are Go's ``strconv.Atoi``; the errors are robfig's words.

Entry points: ``parse_field(text, bounds)``, ``go_fields(text)`` (Go's
``strings.Fields``), the bounds ``MINUTES`` ... ``DAYS_OF_WEEK``, ``every_bits`` and
``STAR``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "DAYS_OF_MONTH",
    "DAYS_OF_WEEK",
    "HOURS",
    "MINUTES",
    "MONTHS",
    "STAR",
    "Bounds",
    "every_bits",
    "go_atoi",
    "go_fields",
    "go_strconv_quote",
    "parse_field",
]

STAR = 1 << 63
"""robfig's ``starBit``: the field was ``*``/``?`` with a step of at most 1."""

_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
# unicode.IsSpace: Go's whitespace for strings.Fields (Python's also counts \x1c-\x1f).
_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_INT64_MAX = (1 << 63) - 1
_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True)
class Bounds:
    """A field's smallest and largest value, and the names it takes."""

    low: int
    high: int
    names: dict[str, int] = field(default_factory=dict)


MINUTES = Bounds(0, 59)
HOURS = Bounds(0, 23)
DAYS_OF_MONTH = Bounds(1, 31)
MONTHS = Bounds(1, 12, {name: number for number, name in enumerate(_MONTH_NAMES, 1)})
DAYS_OF_WEEK = Bounds(0, 6, {name: number for number, name in enumerate(_DAY_NAMES)})


def go_fields(text: str) -> list[str]:
    """Go's ``strings.Fields``: ``text`` split around runs of Go whitespace."""
    fields, current = [], ""
    for char in text:
        if char in _GO_SPACE:
            if current:
                fields.append(current)
            current = ""
        else:
            current += char
    if current:
        fields.append(current)
    return fields


def go_strconv_quote(text: str) -> str:
    """Go's ``strconv.Quote``: printable characters kept, the rest escaped."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char in _ESCAPES or char == "\v":
            out.append(_ESCAPES.get(char, "\\v"))
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)


def go_atoi(text: str) -> int:
    """Go's ``strconv.Atoi``: an optional sign and ASCII digits, within int64."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    value = 0
    for char in digits:
        if not "0" <= char <= "9":
            raise ValueError(f"strconv.Atoi: parsing {go_strconv_quote(text)}: invalid syntax")
        value = value * 10 + ord(char) - ord("0")
        if value > _INT64_MAX + 1:
            break
    if not digits:
        raise ValueError(f"strconv.Atoi: parsing {go_strconv_quote(text)}: invalid syntax")
    value = -value if text[0] == "-" else value
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise ValueError(f"strconv.Atoi: parsing {go_strconv_quote(text)}: value out of range")
    return value


def _number(text: str) -> int:
    """robfig's ``mustParseInt``: a non-negative int."""
    try:
        value = go_atoi(text)
    except ValueError as error:
        raise ValueError(f"failed to parse int from {text}: {error}") from None
    if value < 0:
        raise ValueError(f"negative number ({value}) not allowed: {text}")
    return value


def _number_or_name(text: str, bounds: Bounds) -> int:
    named = bounds.names.get(text.lower())
    return named if named is not None else _number(text)


def _bits(low: int, high: int, step: int) -> int:
    return sum(1 << value for value in range(low, high + 1, step))


def every_bits(bounds: Bounds) -> int:
    """robfig's ``all``: every value of the field, with the star bit."""
    return _bits(bounds.low, bounds.high, 1) | STAR


def _range_bits(expr: str, bounds: Bounds) -> int:
    """robfig's ``getRange`` of one ``,``-separated piece."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = bounds.low, bounds.high, STAR
    else:
        start = _number_or_name(low_and_high[0], bounds)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _number_or_name(low_and_high[1], bounds)
        else:
            raise ValueError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _number(range_and_step[1])
        if len(low_and_high) == 1:  # "N/step" runs from N to the field's end
            end = bounds.high
        if step > 1:
            extra = 0
    else:
        raise ValueError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise ValueError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise ValueError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise ValueError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise ValueError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def parse_field(text: str, bounds: Bounds) -> int:
    """robfig's ``getField``: the bitset of a whole field; ``ValueError`` as robfig words it."""
    bits = 0
    for expr in (piece for piece in text.split(",") if piece):
        bits |= _range_bits(expr, bounds)
    return bits
