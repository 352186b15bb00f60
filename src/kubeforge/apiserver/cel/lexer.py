"""CEL tokens: ``tokenize(source)`` turns an expression into ``Token``\\ s, CEL's lexical rules.

Literals are decoded here (escapes, ``r''`` raw strings, ``b''`` bytes, triple quotes,
hex and ``u`` suffixes), so the parser only arranges them. A character that starts no
token raises ``SyntaxIssue`` worded as cel-go's ANTLR lexer words it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.cel.values import UInt

__all__ = ["RESERVED", "SyntaxIssue", "Token", "tokenize"]

# Identifiers CEL reserves for the future: an expression may not use them as names.
RESERVED = frozenset(
    {
        "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
        "loop", "package", "namespace", "return", "var", "void", "while",
    }
)  # fmt: skip


class SyntaxIssue(Exception):
    """A syntax error at ``offset`` (characters into the source)."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


@dataclass(frozen=True)
class Token:
    kind: str  # "int" "uint" "float" "string" "bytes" "ident" "op" "eof"
    text: str
    offset: int
    value: Any = None


_OPERATORS = sorted(
    [
        "==",
        "!=",
        "<=",
        ">=",
        "&&",
        "||",
        ".?",
        "[?",
        "<",
        ">",
        "!",
        "-",
        "+",
        "*",
        "/",
        "%",
        "?",
        ":",
        ".",
        ",",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "in",
    ],
    key=len,
    reverse=True,
)
_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F]+[uU]?"
    r"|(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?)"
    r"|[0-9]+[uU]?"
)
_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_SPACE = re.compile(r"(?:[ \t\r\n\f]+|//[^\n]*)+")
_STRING_START = re.compile(r"([rRbB]{0,2})('''|\"\"\"|'|\")")
_SIMPLE_ESCAPES = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?",
}  # fmt: skip


def tokenize(source: str) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    while True:
        space = _SPACE.match(source, i)
        if space:
            i = space.end()
        if i >= len(source):
            tokens.append(Token("eof", "<EOF>", i))
            return tokens
        token = _string(source, i) or _number(source, i) or _ident_or_op(source, i)
        if token is None:
            raise SyntaxIssue(i, f"Syntax error: token recognition error at: '{source[i]}'")
        tokens.append(token)
        i = token.offset + len(token.text)


def _number(source: str, i: int) -> Token | None:
    match = _NUMBER.match(source, i)
    if not match:
        return None
    text = match.group()
    if "." in text or (("e" in text or "E" in text) and not text.lower().startswith("0x")):
        return Token("float", text, i, float(text))
    unsigned = text[-1] in "uU"
    digits = text[:-1] if unsigned else text
    value = int(digits, 16) if digits.lower().startswith("0x") else int(digits)
    if unsigned:
        return Token("uint", text, i, UInt(value))
    return Token("int", text, i, value)


def _ident_or_op(source: str, i: int) -> Token | None:
    match = _IDENT.match(source, i)
    if match:
        text = match.group()
        return Token("op" if text == "in" else "ident", text, i)
    for op in _OPERATORS:
        if source.startswith(op, i):
            return Token("op", op, i)
    return None


def _string(source: str, i: int) -> Token | None:
    match = _STRING_START.match(source, i)
    if not match:
        return None
    prefix, quote = match.group(1).lower(), match.group(2)
    if len(prefix) > 2 or prefix.count("r") > 1 or prefix.count("b") > 1:
        return None
    raw, as_bytes = "r" in prefix, "b" in prefix
    start = match.end()
    end = source.find(quote, start)
    while end != -1 and not raw and _escaped(source, start, end):
        end = source.find(quote, end + 1)
    body_end = end
    if end == -1 or (len(quote) == 1 and "\n" in source[start:end]):
        raise SyntaxIssue(i, f"Syntax error: token recognition error at: '{source[i:]}'")
    body = source[start:body_end]
    text = source[i : body_end + len(quote)]
    if raw:
        decoded: str | bytes = body.encode() if as_bytes else body
    else:
        decoded = _unescape(body, i, as_bytes)
    return Token("bytes" if as_bytes else "string", text, i, decoded)


def _escaped(source: str, start: int, at: int) -> bool:
    count = 0
    while at - 1 - count >= start and source[at - 1 - count] == "\\":
        count += 1
    return count % 2 == 1


def _unescape(body: str, offset: int, as_bytes: bool) -> str | bytes:
    out: list[int] | list[str] = []
    chunks: list[bytes] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            chunks.append(ch.encode())
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _SIMPLE_ESCAPES:
            chunks.append(_SIMPLE_ESCAPES[nxt].encode())
            i += 2
        elif nxt in ("x", "X") and _hex(body, i + 2, 2):
            code = int(body[i + 2 : i + 4], 16)
            chunks.append(bytes([code]) if as_bytes else chr(code).encode())
            i += 4
        elif nxt == "u" and not as_bytes and _hex(body, i + 2, 4):
            chunks.append(chr(int(body[i + 2 : i + 6], 16)).encode())
            i += 6
        elif nxt == "U" and not as_bytes and _hex(body, i + 2, 8):
            chunks.append(chr(int(body[i + 2 : i + 10], 16)).encode())
            i += 10
        elif nxt in "0123" and nxt and re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
            code = int(body[i + 1 : i + 4], 8)
            chunks.append(bytes([code]) if as_bytes else chr(code).encode())
            i += 4
        else:
            raise SyntaxIssue(
                offset, f"Syntax error: token recognition error at: '{body[i : i + 2]}'"
            )
    del out
    joined = b"".join(chunks)
    return joined if as_bytes else joined.decode("utf-8", errors="replace")


def _hex(body: str, start: int, count: int) -> bool:
    return re.fullmatch(f"[0-9a-fA-F]{{{count}}}", body[start : start + count]) is not None
