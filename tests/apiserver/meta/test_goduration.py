"""``parse_go_duration`` against Go's own table of ``time.ParseDuration`` cases
(``time_test.go``'s parseDurationTests and parseDurationErrorTests), and the three
readers that use it (CEL, protobuf's metav1.Duration, the server's duration flags)."""

from __future__ import annotations

import pytest

from kubeforge.apiserver.cel.lib_time import parse_duration as cel_duration
from kubeforge.apiserver.cel.values import EvalError
from kubeforge.apiserver.meta.goduration import go_time_quote, parse_go_duration
from kubeforge.apiserver.protobuf.scalars import parse_duration as proto_duration
from kubeforge.apiserver.server.limits import parse_duration as flag_duration

NS, US, MS, S, M, H = 1, 1_000, 1_000_000, 1_000_000_000, 60_000_000_000, 3_600_000_000_000

GOOD = [
    ("0", 0),
    ("5s", 5 * S),
    ("30s", 30 * S),
    ("1478s", 1478 * S),
    ("-5s", -5 * S),
    ("+5s", 5 * S),
    ("-0", 0),
    ("+0", 0),
    ("5.0s", 5 * S),
    ("5.6s", 5 * S + 600 * MS),
    ("5.s", 5 * S),
    (".5s", 500 * MS),
    ("1.0s", S),
    ("1.00s", S),
    ("1.004s", S + 4 * MS),
    ("1.0040s", S + 4 * MS),
    ("100.00100s", 100 * S + MS),
    ("10ns", 10 * NS),
    ("11us", 11 * US),
    ("12\u00b5s", 12 * US),
    ("12\u03bcs", 12 * US),
    ("13ms", 13 * MS),
    ("14s", 14 * S),
    ("15m", 15 * M),
    ("16h", 16 * H),
    ("3h30m", 3 * H + 30 * M),
    ("10.5s4m", 4 * M + 10 * S + 500 * MS),
    ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
    ("1h2m3s4ms5us6ns", H + 2 * M + 3 * S + 4 * MS + 5 * US + 6 * NS),
    ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
    ("52763797000ns", 52763797000),
    ("0.3333333333333333333h", 20 * M),
    ("9007199254740993ns", (1 << 53) + 1),
    ("9223372036854775807ns", (1 << 63) - 1),
    ("9223372036854775.807us", (1 << 63) - 1),
    ("9223372036s854ms775us807ns", (1 << 63) - 1),
    ("-9223372036854775808ns", -(1 << 63)),
    ("-9223372036854775.808us", -(1 << 63)),
    ("-9223372036s854ms775us808ns", -(1 << 63)),
    ("-2562047h47m16.854775808s", -(1 << 63)),
    ("0.100000000000000000000h", 6 * M),
    ("0.830103483285477580700h", 49 * M + 48 * S + 372539827),
]

BAD = [
    ("", 'time: invalid duration ""'),
    ("3", 'time: missing unit in duration "3"'),
    ("-", 'time: invalid duration "-"'),
    ("s", 'time: invalid duration "s"'),
    (".", 'time: invalid duration "."'),
    ("-.", 'time: invalid duration "-."'),
    (".s", 'time: invalid duration ".s"'),
    ("+.s", 'time: invalid duration "+.s"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'),
    ("5q", 'time: unknown unit "q" in duration "5q"'),
    ("1h1", 'time: missing unit in duration "1h1"'),
    ("\ufffd", 'time: invalid duration "\\xef\\xbf\\xbd"'),
    ("\ufffd hello", 'time: invalid duration "\\xef\\xbf\\xbd hello"'),
    ("1\u00e9", 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'),
    ('1"', 'time: unknown unit "\\"" in duration "1\\""'),
    ("9223372036854775810ns", 'time: invalid duration "9223372036854775810ns"'),
    ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
    ("-9223372036854775809ns", 'time: invalid duration "-9223372036854775809ns"'),
    ("9223372036854776us", 'time: invalid duration "9223372036854776us"'),
    ("3000000h", 'time: invalid duration "3000000h"'),
    ("9223372036854775.808us", 'time: invalid duration "9223372036854775.808us"'),
    ("9223372036854ms775us808ns", 'time: invalid duration "9223372036854ms775us808ns"'),
]


@pytest.mark.parametrize(("text", "nanos"), GOOD)
def test_go_accepts(text: str, nanos: int) -> None:
    assert parse_go_duration(text) == nanos


@pytest.mark.parametrize(("text", "message"), BAD)
def test_go_refuses_in_its_words(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_go_duration(text)
    assert str(caught.value) == message


def test_time_quote_escapes_as_go() -> None:
    assert go_time_quote('a"b\\c') == '"a\\"b\\\\c"'
    assert go_time_quote("tab\there") == '"tab\\x09here"'


def test_protobuf_duration_is_go_duration() -> None:
    assert proto_duration("1h2m3.5s") == 3_723_500_000_000
    assert proto_duration(".5s") == 500 * MS
    with pytest.raises(ValueError, match='unknown unit "d"'):
        proto_duration("1d")


def test_cel_duration_is_go_duration_within_cel_range() -> None:
    assert cel_duration("1.5h").nanos == 90 * M
    assert cel_duration("-0").nanos == 0
    with pytest.raises(EvalError, match='time: missing unit in duration "3"'):
        cel_duration("3")


def test_flag_duration_takes_go_durations_and_bare_seconds() -> None:
    assert flag_duration("1m0s") == 60.0
    assert flag_duration("1.5h") == 5400.0
    assert flag_duration("250ms") == 0.25
    assert flag_duration("32") == 32.0
    with pytest.raises(ValueError, match='time: unknown unit "d" in duration "2d"'):
        flag_duration("2d")
