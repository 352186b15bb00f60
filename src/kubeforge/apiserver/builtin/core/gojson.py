"""What Go's ``json.Unmarshal(data, &map[string]interface{}{})`` says of ``data``.

A Secret of type ``kubernetes.io/dockercfg`` or ``kubernetes.io/dockerconfigjson`` is refused
with the error text of that call, so the server has to word broken JSON exactly as
``encoding/json``'s scanner does ("invalid character 'x' looking for beginning of value",
"unexpected end of JSON input" ...); Python's ``json`` words it differently.

Entry point: ``unmarshal_object_error``.

>>> unmarshal_object_error(b'{"auths": {}}') is None
True
>>> unmarshal_object_error(b"{'auths'")
"invalid character '\\\\'' looking for beginning of object key string"
>>> unmarshal_object_error(b"[]")
'json: cannot unmarshal array into Go value of type map[string]interface {}'
"""

from __future__ import annotations

__all__ = ["unmarshal_object_error"]

_SPACE = b" \t\r\n"
_END = "unexpected end of JSON input"


class _SyntaxError(Exception):
    pass


def _quote_char(c: int) -> str:
    # encoding/json's quoteChar: strconv.Quote of the rune, between single quotes.
    if c == ord("'"):
        return "'\\''"
    if c == ord('"'):
        return "'\"'"
    char = chr(c)
    if char.isprintable() and c < 0x80:
        text = char.replace("\\", "\\\\")
    elif c < 0x20 or c == 0x7F:
        named = {0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}
        text = named.get(c, f"\\x{c:02x}")
    else:
        text = f"\\x{c:02x}"
    return f"'{text}'"


class _Scanner:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def fail(self, context: str) -> _SyntaxError:
        return _SyntaxError(f"invalid character {_quote_char(self.data[self.at])} {context}")

    def peek(self) -> int:
        if self.at >= len(self.data):
            raise _SyntaxError(_END)
        return self.data[self.at]

    def skip_space(self) -> int:
        while self.at < len(self.data) and self.data[self.at] in _SPACE:
            self.at += 1
        return self.peek()

    def value(self) -> str:
        c = self.skip_space()
        if c == ord("{"):
            self.at += 1
            self.members()
            return "object"
        if c == ord("["):
            self.at += 1
            self.elements()
            return "array"
        if c == ord('"'):
            self.string()
            return "string"
        if c == ord("-") or ord("0") <= c <= ord("9"):
            self.number()
            return "number"
        for word, kind in ((b"true", "bool"), (b"false", "bool"), (b"null", "null")):
            if c == word[0]:
                self.literal(word)
                return kind
        raise self.fail("looking for beginning of value")

    def members(self) -> None:
        if self.skip_space() == ord("}"):
            self.at += 1
            return
        while True:
            if self.skip_space() != ord('"'):
                raise self.fail("looking for beginning of object key string")
            self.string()
            if self.skip_space() != ord(":"):
                raise self.fail("after object key")
            self.at += 1
            self.value()
            c = self.skip_space()
            self.at += 1
            if c == ord("}"):
                return
            if c != ord(","):
                self.at -= 1
                raise self.fail("after object key:value pair")

    def elements(self) -> None:
        if self.skip_space() == ord("]"):
            self.at += 1
            return
        while True:
            self.value()
            c = self.skip_space()
            self.at += 1
            if c == ord("]"):
                return
            if c != ord(","):
                self.at -= 1
                raise self.fail("after array element")

    def string(self) -> None:
        self.at += 1
        while True:
            c = self.peek()
            self.at += 1
            if c == ord('"'):
                return
            if c == ord("\\"):
                self.escape()
            elif c < 0x20:
                self.at -= 1
                raise self.fail("in string literal")

    def escape(self) -> None:
        c = self.peek()
        if c in b'"\\/bfnrt':
            self.at += 1
            return
        if c != ord("u"):
            raise self.fail("in string escape code")
        self.at += 1
        for _ in range(4):
            if self.peek() not in b"0123456789abcdefABCDEF":
                raise self.fail("in \\u hexadecimal character escape")
            self.at += 1

    def digits(self, context: str) -> None:
        if not ord("0") <= self.peek() <= ord("9"):
            raise self.fail(context)
        while self.at < len(self.data) and ord("0") <= self.data[self.at] <= ord("9"):
            self.at += 1

    def number(self) -> None:
        if self.data[self.at] == ord("-"):
            self.at += 1
        if self.peek() == ord("0"):
            self.at += 1
        else:
            self.digits("in numeric literal")
        if self.at < len(self.data) and self.data[self.at] == ord("."):
            self.at += 1
            self.digits("after decimal point in numeric literal")
        if self.at < len(self.data) and self.data[self.at] in b"eE":
            self.at += 1
            if self.peek() in b"+-":
                self.at += 1
            self.digits("in exponent of numeric literal")

    def literal(self, word: bytes) -> None:
        name = word.decode()
        for expected in word:
            if self.peek() != expected:
                raise self.fail(f"in literal {name} (expecting {_quote_char(expected)})")
            self.at += 1


def unmarshal_object_error(data: bytes) -> str | None:
    """The error Go's ``json.Unmarshal`` gives decoding ``data`` into a
    ``map[string]interface{}``, or ``None`` when it succeeds (``null`` does)."""
    scanner = _Scanner(data)
    try:
        kind = scanner.value()
        while scanner.at < len(data):
            if data[scanner.at] not in _SPACE:
                raise scanner.fail("after top-level value")
            scanner.at += 1
    except _SyntaxError as error:
        return str(error)
    if kind in ("object", "null"):
        return None
    return f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
