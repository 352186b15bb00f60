"""Unit tests of ``kubeforge.core.selectors``, case by case from the apimachinery suites
(restated in the project's selector vectors: sections A-M)."""

from __future__ import annotations

import pytest

from kubeforge.core.selectors import (
    Operator,
    Requirement,
    SelectorError,
    escape_field_value,
    label_selector_from_spec,
    parse_field_selector,
    parse_label_selector,
    unescape_field_value,
)

# A: valid, and String() equals the input without spaces.
ROUND_TRIP = [
    "x=a,y=b,z=c",
    "",
    "x!=a,y=b",
    "x=",
    "x= ",
    "x=,z= ",
    "x= ,z= ",
    "!x",
    "x>1",
    "x>1,z<5",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_valid_label_selectors_print_back_canonically(text: str) -> None:
    assert str(parse_label_selector(text)) == text.replace(" ", "")


def test_requirement_order_does_not_change_the_canonical_form() -> None:
    assert str(parse_label_selector("x=a,a=x")) == str(parse_label_selector("a=x,x=a"))


# B: invalid.
INVALID = [
    "x=a||y=b",
    "x==a==b",
    "!x=a",
    "x<a",
    "x,,y",
    ",x,y",
    "x nott in (y)",
    "a in (xyz),",
    "a in (xyz)b notin ()",
    "a in (xyz abc)",
    "a notin(",
    "a (",
    "(",
    "k" * 254,
    "x=" + "v" * 64,
    "x=a b",
]


@pytest.mark.parametrize("text", INVALID)
def test_invalid_label_selectors_are_rejected(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector(text)


# C: parsed requirements.
PARSED = {
    "\rx": [("x", Operator.EXISTS, ())],
    "this-is-a-dns.domain.com/key-with-dash": [
        ("this-is-a-dns.domain.com/key-with-dash", Operator.EXISTS, ())
    ],
    "this-is-another-dns.domain.com/key-with-dash in (so,what)": [
        ("this-is-another-dns.domain.com/key-with-dash", Operator.IN, ("so", "what"))
    ],
    "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)": [
        ("0.1.2.domain/99", Operator.NOT_IN, ("10.10.100.1", "tick.tack.clock"))
    ],
    "foo  in\t (abc)": [("foo", Operator.IN, ("abc",))],
    "x notin\n (abc)": [("x", Operator.NOT_IN, ("abc",))],
    "x in (abc,)": [("x", Operator.IN, ("", "abc"))],
    "x in ()": [("x", Operator.IN, ("",))],
    "x notin ( )": [("x", Operator.NOT_IN, ("",))],
    "x notin (, a)": [("x", Operator.NOT_IN, ("", "a"))],
    "x notin (abc,,def),bar,z in (),w": [
        ("bar", Operator.EXISTS, ()),
        ("w", Operator.EXISTS, ()),
        ("x", Operator.NOT_IN, ("", "abc", "def")),
        ("z", Operator.IN, ("",)),
    ],
    "x,y in (a)": [("x", Operator.EXISTS, ()), ("y", Operator.IN, ("a",))],
    "x>1": [("x", Operator.GREATER_THAN, ("1",))],
    "x<7": [("x", Operator.LESS_THAN, ("7",))],
    "a ": [("a", Operator.EXISTS, ())],
    "a in (x,y,notin, z,in)": [("a", Operator.IN, ("in", "notin", "x", "y", "z"))],
    "notin=in": [("notin", Operator.EQUALS, ("in",))],
}


@pytest.mark.parametrize(("text", "expected"), PARSED.items())
def test_label_selectors_parse_into_sorted_requirements(text: str, expected: list) -> None:
    selector = parse_label_selector(text)
    assert [(r.key, r.operator, r.values) for r in selector.requirements] == expected


# D: canonical String() of constructed requirements.
def test_canonical_string_of_constructed_requirements() -> None:
    cases = [
        (
            [
                ("x", Operator.IN, ("abc", "def")),
                ("y", Operator.NOT_IN, ("jkl",)),
                ("z", Operator.EXISTS, ()),
            ],
            "x in (abc,def),y notin (jkl),z",
        ),
        (
            [
                ("x", Operator.NOT_IN, ("abc", "def")),
                ("y", Operator.NOT_EQUALS, ("jkl",)),
                ("z", Operator.DOES_NOT_EXIST, ()),
            ],
            "x notin (abc,def),y!=jkl,!z",
        ),
        (
            [
                ("x", Operator.EQUALS, ("abc",)),
                ("y", Operator.DOUBLE_EQUALS, ("jkl",)),
                ("z", Operator.NOT_EQUALS, ("a",)),
                ("z", Operator.EXISTS, ()),
            ],
            "x=abc,y==jkl,z!=a,z",
        ),
        (
            [
                ("x", Operator.GREATER_THAN, ("2",)),
                ("y", Operator.LESS_THAN, ("8",)),
                ("z", Operator.EXISTS, ()),
            ],
            "x>2,y<8,z",
        ),
    ]
    for requirements, expected in cases:
        built = [Requirement.new(k, op, values) for k, op, values in requirements]
        assert ",".join(str(r) for r in built) == expected


# F: requirement validation.
@pytest.mark.parametrize(
    ("key", "op", "values"),
    [
        ("x", Operator.IN, ()),
        ("x", Operator.EQUALS, ("a", "b")),
        ("x", Operator.EXISTS, ("a",)),
        ("x", Operator.GREATER_THAN, ("bar",)),
        ("x", Operator.LESS_THAN, ()),
        ("k" * 254, Operator.EXISTS, ()),
        ("x", Operator.EQUALS, ("a b",)),
    ],
)
def test_requirement_constructor_rejects_bad_input(key: str, op: Operator, values: tuple) -> None:
    with pytest.raises(SelectorError):
        Requirement.new(key, op, values)


# G: matching.
MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    ("x in (foo),y notin (alpha)", {"x": "foo", "y": "baz"}, True),
    ("x in (foo),y in (alpha)", {"x": "foo", "y": "baz"}, False),
    ("x notin (),y", {"y": ""}, True),
    ("!x,y", {"y": ""}, True),
    ("x notin (),!y", {"y": ""}, False),
    ("x in ()", {"y": "baz"}, False),
    ("z>1", {"z": "2"}, True),
    ("z>1", {"z": "v2"}, False),
    ("x!=y", {}, True),
]


@pytest.mark.parametrize(("text", "labels", "expected"), MATCHES)
def test_label_matching(text: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


def test_a_nil_label_map_is_valid_input() -> None:
    assert parse_label_selector("!x").matches(None)


# H: exact-match lookup.
def test_requires_exact_match() -> None:
    assert parse_label_selector("x=y").requires_exact_match("x") == "y"
    assert parse_label_selector("x in (y)").requires_exact_match("x") == "y"
    for text in ("x in (y,z)", "x!=y", "x"):
        assert parse_label_selector(text).requires_exact_match("x") is None


# I-J: field term splitting and escaping.
def test_field_values_escape_and_unescape() -> None:
    for raw, escaped in (
        ("", ""),
        ("a", "a"),
        ("=", "\\="),
        (",", "\\,"),
        ("\\", "\\\\"),
        ("\\=\\,\\", "\\\\\\=\\\\\\,\\\\"),
    ):
        assert escape_field_value(raw) == escaped
        assert unescape_field_value(escaped) == raw
    for bad in ("\\", "\\\\\\", "\\a", "a=b", "a,b"):
        with pytest.raises(SelectorError):
            unescape_field_value(bad)


def test_field_selector_terms_split_on_unescaped_commas_only() -> None:
    selector = parse_field_selector("k=\\,,k2=v2")
    assert {(t.field, t.value) for t in selector.terms} == {("k", ","), ("k2", "v2")}
    assert len(parse_field_selector("a=a,").terms) == 1  # empty terms are skipped
    assert len(parse_field_selector("함=수,목=록").terms) == 2


# K: field selector parse.
@pytest.mark.parametrize("text", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=a||y\\=b", "x=a\\=\\=b"])
def test_valid_field_selectors_round_trip(text: str) -> None:
    assert str(parse_field_selector(text)) == text


def test_field_selector_values_are_unescaped() -> None:
    assert parse_field_selector("x=a||y\\=b").terms[0].value == "a||y=b"
    assert parse_field_selector("x=a\\=\\=b").terms[0].value == "a==b"


@pytest.mark.parametrize("text", ["x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"])
def test_invalid_field_selectors_are_rejected(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_field_selector(text)


# L: field matching.
@pytest.mark.parametrize(
    ("text", "fields", "expected"),
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        (
            "foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\",
            {"foo": "bar", "baz": "blah", "complex": "=value\\,\\"},
            True,
        ),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
        ("x!=y", {}, True),
        ("x=", {}, True),
    ],
)
def test_field_matching(text: str, fields: dict[str, str], expected: bool) -> None:
    assert parse_field_selector(text).matches(fields) is expected


def test_label_selector_from_a_metav1_selector_spec() -> None:
    spec = {
        "matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}],
    }
    selector = label_selector_from_spec(spec)
    assert str(selector) == "app=web,tier in (a,b)"
    assert selector.matches({"app": "web", "tier": "a"})
    assert label_selector_from_spec(None).matches({"anything": "x"})
