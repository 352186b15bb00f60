"""The ``scheduler.alpha.kubernetes.io/tolerations`` annotation decoded as kubernetes 1.32
decodes it (``helper.GetTolerationsFromPodAnnotations``: Go's ``json.Unmarshal`` into
``[]core.Toleration``), with ``encoding/json``'s error texts.

Go checks the whole text's syntax before it decodes anything, so a syntax error is reported
first, in the scanner's words (``invalid character 'x' looking for beginning of value``,
``unexpected end of JSON input``); then the first value of a wrong JSON type (``json:
cannot unmarshal number into Go struct field Toleration.key of type string``), decoding
going on after it as Go's does. Object keys match the struct's fields case-insensitively
and unknown keys are ignored, as there.

Entry point: ``decode_tolerations(text)``: ``(tolerations, None)`` with each toleration a
dict of the fields Go kept, or ``([], error)``.

>>> decode_tolerations('[{"key": "a", "operator": "Exists"}]')
([{'key': 'a', 'operator': 'Exists'}], None)
>>> decode_tolerations('[{"key": 1}]')[1]
'json: cannot unmarshal number into Go struct field Toleration.key of type string'
>>> decode_tolerations('[{"key": "a"')[1]
'unexpected end of JSON input'
"""

from __future__ import annotations

import json
from typing import Any

from kubeforge.apiserver.smd.strict import json_kind

__all__ = ["decode_tolerations"]

_END = "unexpected end of JSON input"
_WHITESPACE = " \t\n\r"
_ESCAPES = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
# The Go type of each field of core.Toleration, by its JSON name.
_FIELDS = {
    "key": "string",
    "operator": "core.TolerationOperator",
    "value": "string",
    "effect": "core.TaintEffect",
    "tolerationseconds": "int64",
}
_CANONICAL = {"tolerationseconds": "tolerationSeconds"}
_INT64 = (-(2**63), 2**63 - 1)
_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\v": "\\v", "\\": "\\\\"}  # fmt: skip


class _Syntax(Exception):
    """A syntax error, carrying the scanner's message."""


def _quote_char(char: str) -> str:
    """Go's ``quoteChar``: the offending byte (the first of a multi-byte character)."""
    if ord(char) > 0x7F:
        char = chr(char.encode()[0])
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    if char in _GO_ESCAPES:
        return f"'{_GO_ESCAPES[char]}'"
    if not char.isprintable():
        return f"'\\x{ord(char):02x}'" if ord(char) < 0x100 else f"'\\u{ord(char):04x}'"
    return f"'{char}'"


class _Scanner:
    """A syntax check with the messages of ``encoding/json``'s scanner."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def peek(self) -> str:
        if self.at >= len(self.text):
            raise _Syntax(_END)
        return self.text[self.at]

    def fail(self, context: str) -> _Syntax:
        return _Syntax(f"invalid character {_quote_char(self.peek())} {context}")

    def skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _WHITESPACE:
            self.at += 1

    def document(self) -> None:
        self.skip_space()
        self.value()
        self.skip_space()
        if self.at < len(self.text):
            raise self.fail("after top-level value")

    def value(self) -> None:
        char = self.peek()
        if char == "{":
            self.at += 1
            self.members()
        elif char == "[":
            self.at += 1
            self.elements()
        elif char == '"':
            self.string()
        elif char == "-" or char in _DIGITS:
            self.number()
        elif char in "tfn":
            self.literal({"t": "true", "f": "false", "n": "null"}[char])
        else:
            raise self.fail("looking for beginning of value")

    def members(self) -> None:
        self.skip_space()
        if self.peek() == "}":
            self.at += 1
            return
        while True:
            if self.peek() != '"':
                raise self.fail("looking for beginning of object key string")
            self.string()
            self.skip_space()
            if self.peek() != ":":
                raise self.fail("after object key")
            self.at += 1
            self.skip_space()
            self.value()
            if not self.next_item("}", "after object key:value pair"):
                return
            self.skip_space()

    def next_item(self, close: str, context: str) -> bool:
        """After a member or element: True at a comma (another follows), False at ``close``."""
        self.skip_space()
        char = self.peek()
        if char not in (",", close):
            raise self.fail(context)
        self.at += 1
        return char == ","

    def elements(self) -> None:
        self.skip_space()
        if self.peek() == "]":
            self.at += 1
            return
        while True:
            self.skip_space()
            self.value()
            if not self.next_item("]", "after array element"):
                return

    def string(self) -> None:
        self.at += 1
        while True:
            char = self.peek()
            self.at += 1
            if char == '"':
                return
            if char == "\\":
                self.escape()
            elif ord(char) < 0x20:
                self.at -= 1
                raise self.fail("in string literal")

    def escape(self) -> None:
        char = self.peek()
        if char == "u":
            self.at += 1
            for _ in range(4):
                if self.peek() not in _HEX:
                    raise self.fail("in \\u hexadecimal character escape")
                self.at += 1
        elif char in _ESCAPES:
            self.at += 1
        else:
            raise self.fail("in string escape code")

    def digits(self, context: str) -> None:
        if self.peek() not in _DIGITS:
            raise self.fail(context)
        while self.at < len(self.text) and self.text[self.at] in _DIGITS:
            self.at += 1

    def number(self) -> None:
        if self.peek() == "-":
            self.at += 1
        if self.peek() == "0":
            self.at += 1
        else:
            self.digits("in numeric literal")
        if self.at < len(self.text) and self.text[self.at] == ".":
            self.at += 1
            self.digits("after decimal point in numeric literal")
        if self.at < len(self.text) and self.text[self.at] in "eE":
            self.at += 1
            if self.peek() in "+-":
                self.at += 1
            self.digits("in exponent of numeric literal")

    def literal(self, word: str) -> None:
        self.at += 1
        for expected in word[1:]:
            if self.peek() != expected:
                raise self.fail(f"in literal {word} (expecting '{expected}')")
            self.at += 1


class _Number(str):
    """A JSON number kept as its literal, as Go's decoder sees it."""


def _kind(value: Any) -> str:
    return "number" if isinstance(value, _Number) else json_kind(value)


def _type_error(value: Any, where: str) -> str:
    return f"json: cannot unmarshal {_kind(value)} into {where}"


def _field_value(value: Any, go_type: str) -> tuple[Any, str | None]:
    """The decoded value of one field and Go's type error (value ignored on error)."""
    if go_type != "int64":
        text = isinstance(value, str) and not isinstance(value, _Number)
        return (value, None) if text else (None, _kind(value))
    if not isinstance(value, _Number):
        return None, _kind(value)
    try:
        number = int(value)
    except ValueError:
        return None, f"number {value}"
    if not _INT64[0] <= number <= _INT64[1]:
        return None, f"number {value}"
    return number, None


def _toleration(item: Any) -> tuple[dict[str, Any], str | None]:
    if item is None:
        return {}, None
    if not isinstance(item, dict):
        return {}, _type_error(item, "Go value of type core.Toleration")
    decoded: dict[str, Any] = {}
    first: str | None = None
    for key, value in item.items():
        folded = key.lower()
        go_type = _FIELDS.get(folded)
        if go_type is None or value is None:
            continue
        field = _CANONICAL.get(folded, folded)
        kept, problem = _field_value(value, go_type)
        if problem is None:
            decoded[field] = kept
        elif first is None:
            first = (
                f"json: cannot unmarshal {problem} into Go struct field "
                f"Toleration.{field} of type {go_type}"
            )
    return decoded, first


def decode_tolerations(text: str) -> tuple[list[dict[str, Any]], str | None]:
    """The tolerations in ``text``, or Go's error decoding it."""
    try:
        _Scanner(text).document()
    except _Syntax as syntax:
        return [], str(syntax)
    parsed = json.loads(text, parse_float=_Number, parse_int=_Number)
    if parsed is None:
        return [], None
    if not isinstance(parsed, list):
        return [], _type_error(parsed, "Go value of type []core.Toleration")
    tolerations, first = [], None
    for item in parsed:
        decoded, problem = _toleration(item)
        tolerations.append(decoded)
        first = first or problem
    return ([], first) if first else (tolerations, None)
