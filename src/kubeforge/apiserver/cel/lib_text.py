"""String, regex, list and set functions: cel-go's ``ext.Strings`` (v2) and ``ext.Sets``,
and Kubernetes' regex and lists libraries.

Indexes count code points, as Go's ``[]rune`` does. ``split``/``replace`` follow Go's
``strings.SplitN``/``Replace`` (a negative count means all), ``trim`` Go's
``TrimSpace``. Regular expressions are RE2 in Kubernetes; Python's ``re`` agrees on
the RE2 subset (no backreferences or lookaround are possible in RE2, so a pattern
using them is rejected as RE2 would). ``"%d and %s".format([1, "x"])`` implements the
``format`` verbs of ext.Strings v2 (``%s %d %f %e %b %o %x %X %%``).

Entry point: ``FUNCTIONS``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from kubeforge.apiserver.cel.lib_time import format_double, to_string
from kubeforge.apiserver.cel.operators import OPERATORS, cel_equal
from kubeforge.apiserver.cel.values import Duration, EvalError, Timestamp, UInt

__all__ = ["FUNCTIONS", "compile_regex"]

_compare = OPERATORS["_<_"]


def _char_at(text: str, index: int) -> str:
    if index < 0 or index > len(text):
        raise EvalError(f"index out of range: {index}")
    return text[index : index + 1]


def _index_of(value: Any, item: Any, offset: int = 0) -> int:
    if isinstance(value, list):
        return next((i for i, x in enumerate(value) if cel_equal(x, item)), -1)
    if item == "":
        return offset
    if offset < 0:
        raise EvalError(f"index out of range: {offset}")
    if offset >= len(value):
        return -1
    return int(value.find(item, offset))


def _last_index_of(value: Any, item: Any, offset: int | None = None) -> int:
    if isinstance(value, list):
        return next((i for i in reversed(range(len(value))) if cel_equal(value[i], item)), -1)
    if offset is None:
        if item == "":
            return len(value)
        offset = len(value) - 1
    if item == "":
        return offset
    if offset < 0:
        raise EvalError(f"index out of range: {offset}")
    if offset >= len(value):
        return -1
    start = min(offset, len(value) - len(item))
    return int(value.rfind(item, 0, start + len(item))) if start >= 0 else -1


def _ascii(text: str, upper: bool) -> str:
    table = str.maketrans(
        "abcdefghijklmnopqrstuvwxyz" if upper else "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if upper else "abcdefghijklmnopqrstuvwxyz",
    )
    return text.translate(table)


def _replace(text: str, old: str, new: str, count: int = -1) -> str:
    return text.replace(old, new, count if count >= 0 else -1)


def _split(text: str, separator: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    if separator == "":
        chars = list(text)
        if 0 < limit < len(chars):
            return [*chars[: limit - 1], "".join(chars[limit - 1 :])]
        return chars
    return text.split(separator, limit - 1 if limit > 0 else -1)


def _substring(text: str, start: int, end: int | None = None) -> str:
    if start < 0 or start > len(text):
        raise EvalError(f"index out of range: {start}")
    if end is None:
        return text[start:]
    if end < start:
        raise EvalError(f"invalid substring range. start: {start}, end: {end}")
    if end > len(text):
        raise EvalError(f"index out of range: {end}")
    return text[start:end]


_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"  # noqa: E501


def _join(items: list[Any], separator: str = "") -> str:
    for item in items:
        if not isinstance(item, str):
            raise EvalError(f"join: invalid input: {item}")
    return separator.join(items)


def _quote(text: str) -> str:
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\v": "\\v", "\\": "\\\\", '"': '\\"'}  # fmt: skip
    return '"' + "".join(escapes.get(ch, ch) for ch in text) + '"'


@cache
def compile_regex(pattern: str) -> re.Pattern[str]:
    """An RE2 pattern as a Python regex; constructs RE2 does not have are refused."""
    if re.search(r"\(\?[=!<]|\\[1-9]", pattern):
        raise EvalError(f"error parsing regexp: invalid or unsupported Perl syntax: `{pattern}`")
    translated = _scoped_flags(pattern.replace("\\z", "\\Z"))
    try:
        return re.compile(translated)
    except re.error as error:
        raise EvalError(f"error parsing regexp: {error}: `{pattern}`") from None


_FLAGS = re.compile(r"\(\?([imsU]+)\)")


def _scoped_flags(pattern: str) -> str:
    """RE2 allows ``(?i)`` anywhere, applying to the rest of the group; Python wants it
    at the start, so ``a(?i)b`` becomes ``a(?i:b)``."""
    match = _FLAGS.search(pattern)
    if match is None or match.start() == 0:
        return pattern
    flags = match.group(1).replace("U", "")
    rest = pattern[match.end() :]
    depth, end = 0, len(rest)
    i = 0
    while i < len(rest):
        ch = rest[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            close = rest.find("]", i + 2)
            i = close + 1 if close != -1 else len(rest)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                end = i
                break
            depth -= 1
        i += 1
    inner = _scoped_flags(rest[:end])
    scoped = f"(?{flags}:{inner})" if flags else inner
    return pattern[: match.start()] + scoped + rest[end:]


def _matches(text: str, pattern: str) -> bool:
    return compile_regex(pattern).search(text) is not None


def _find(text: str, pattern: str) -> str:
    match = compile_regex(pattern).search(text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [m.group(0) for m in compile_regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


def _is_sorted(items: list[Any]) -> bool:
    return all(not _compare(b, a) for a, b in itertools.pairwise(items))


def _sum(items: list[Any]) -> Any:
    if not items:
        return 0
    total = items[0]
    for item in items[1:]:
        total = OPERATORS["_+_"](total, item)
    return total


def _extreme(name: str, pick_greater: bool) -> Callable[[list[Any]], Any]:
    def extreme(items: list[Any]) -> Any:
        if not items:
            raise EvalError(f"{name} called on empty list")
        best = items[0]
        for item in items[1:]:
            if _compare(best, item) == pick_greater and not cel_equal(best, item):
                best = item
        return best

    return extreme


def _sets_contains(items: list[Any], subset: list[Any]) -> bool:
    return all(any(cel_equal(x, y) for y in items) for x in subset)


def _format_value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        pairs = sorted((_format_value(k), _format_value(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if value is None:
        return "null"
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, Duration | Timestamp | UInt):
        return str(int(value)) if isinstance(value, UInt) else str(value)
    return to_string(value)


_VERB = re.compile(r"%(?:\.(\d+))?([sdfeboxX%])")


def _format(template: str, args: list[Any]) -> str:
    out: list[str] = []
    position = 0
    arg_index = 0
    for match in _VERB.finditer(template):
        out.append(template[position : match.start()])
        position = match.end()
        precision, verb = match.group(1), match.group(2)
        if verb == "%":
            out.append("%")
            continue
        if arg_index >= len(args):
            raise EvalError(f"index {arg_index} out of range")
        out.append(_format_one(verb, precision, args[arg_index]))
        arg_index += 1
    out.append(template[position:])
    return "".join(out)


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _format_one(verb: str, precision: str | None, value: Any) -> str:
    digits = int(precision) if precision is not None else 6
    if verb == "s":
        return _format_value(value)
    if verb == "d" and isinstance(value, int) and not isinstance(value, bool):
        return str(int(value))
    if verb == "f" and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{float(value):.{digits}f}"
    if verb == "e" and isinstance(value, int | float) and not isinstance(value, bool):
        mantissa, exponent = f"{float(value):.{digits}e}".split("e")
        sign = "⁻" if exponent.startswith("-") else ""
        # cel-go writes "3.140000, narrow space, multiplication sign, narrow space, 10" and
        # the exponent in superscript digits
        power = exponent.lstrip("+-").zfill(2).translate(_SUPERSCRIPT)
        return f"{mantissa}\u202f\u00d7\u202f10{sign}{power}"
    if verb in "boxX" and isinstance(value, int) and not isinstance(value, bool):
        return format(int(value), verb)
    if verb in "xX" and isinstance(value, str | bytes):
        raw = value.encode() if isinstance(value, str) else value
        return raw.hex() if verb == "x" else raw.hex().upper()
    raise EvalError(f'error during formatting: unrecognized formatting clause "%{verb}"')


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": lambda text: _ascii(text, upper=False),
    "upperAscii": lambda text: _ascii(text, upper=True),
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda text: text.strip(_GO_SPACE),
    "join": _join,
    "format": _format,
    "strings.quote": _quote,
    "contains": lambda text, sub: sub in text,
    "startsWith": lambda text, prefix: text.startswith(prefix),
    "endsWith": lambda text, suffix: text.endswith(suffix),
    "matches": _matches,
    "find": _find,
    "findAll": _find_all,
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _extreme("min", pick_greater=False),
    "max": _extreme("max", pick_greater=True),
    "sets.contains": _sets_contains,
    "sets.equivalent": lambda a, b: _sets_contains(a, b) and _sets_contains(b, a),
    "sets.intersects": lambda a, b: any(any(cel_equal(x, y) for y in b) for x in a),
}
