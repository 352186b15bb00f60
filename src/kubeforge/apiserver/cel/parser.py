"""CEL source -> syntax tree: ``parse(source)``, precedence and macros as cel-go has them.

Grammar (CEL spec, lowest precedence first): ``?:``, ``||``, ``&&``, relations
(``< <= >= > == != in``), ``+ -``, ``* / %``, unary ``! -``, member access (``.f``,
``.?f``, ``.f(args)``, ``[i]``, ``[?i]``), primaries. Optional syntax (``.?``, ``[?``,
``{?k: v}``, ``[?v]``) is accepted because Kubernetes enables optional types.

Each node's ``offset`` is where cel-go reports it: an operator's own token, a call's
``(``, an index's ``[``, a select's ``.``. Syntax errors raise ``SyntaxIssue`` with
the ANTLR wording for the common cases (``mismatched input '<EOF>' expecting {...}``).

>>> parse("self.size() > 1").function
'_>_'
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.lexer import RESERVED, SyntaxIssue, Token, tokenize
from kubeforge.apiserver.cel.macros import expand_macro

__all__ = ["SyntaxIssue", "parse"]

_EXPECT_EXPR = (
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, "
    "NUM_UINT, STRING, BYTES, IDENTIFIER}"
)
_RELATIONS = {
    "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_", "in": "@in",
}  # fmt: skip
_ADDITIVE = {"+": "_+_", "-": "_-_"}
_MULTIPLICATIVE = {"*": "_*_", "/": "_/_", "%": "_%_"}
# Function namespaces of the libraries Kubernetes enables: ``optional.of(x)`` is one
# function named "optional.of", not a call on a variable named ``optional``.
_NAMESPACES = frozenset({"optional", "strings", "sets", "format", "ip"})
# cel-go stops parsing beyond this depth of nesting (its default recursion limit).
_MAX_DEPTH = 250


def parse(source: str) -> ast.Expr:
    """The syntax tree of ``source``; raises ``SyntaxIssue``."""
    return _Parser(source).parse()


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens = tokenize(source)
        self.pos = 0
        self.next_id = 1
        self.depth = 0

    # -- plumbing --
    def node_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def at(self, text: str) -> bool:
        return self.tok.kind == "op" and self.tok.text == text

    def take(self) -> Token:
        token = self.tok
        self.pos += 1
        return token

    def expect(self, text: str) -> Token:
        if not self.at(text):
            raise self.mismatch(f"'{text}'")
        return self.take()

    def mismatch(self, expecting: str) -> SyntaxIssue:
        tok = self.tok
        shown = tok.text if tok.kind != "eof" else "<EOF>"
        return SyntaxIssue(
            tok.offset, f"Syntax error: mismatched input '{shown}' expecting {expecting}"
        )

    # -- grammar --
    def parse(self) -> ast.Expr:
        expr = self.expr()
        if self.tok.kind != "eof":
            raise self.mismatch("<EOF>")
        return expr

    def expr(self) -> ast.Expr:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise SyntaxIssue(self.tok.offset, "expression recursion limit exceeded: 250")
        try:
            cond = self.binary_chain(0)
            if not self.at("?"):
                return cond
            op = self.take()
            then = self.binary_chain(0)
            self.expect(":")
            otherwise = self.expr()
            return ast.Call(self.node_id(), op.offset, "_?_:_", [cond, then, otherwise])
        finally:
            self.depth -= 1

    _LEVELS: tuple[dict[str, str], ...] = (
        {"||": "_||_"},
        {"&&": "_&&_"},
        _RELATIONS,
        _ADDITIVE,
        _MULTIPLICATIVE,
    )

    def binary_chain(self, level: int) -> ast.Expr:
        if level == len(self._LEVELS):
            return self.unary()
        ops = self._LEVELS[level]
        left = self.binary_chain(level + 1)
        while self.tok.kind == "op" and self.tok.text in ops:
            op = self.take()
            right = self.binary_chain(level + 1)
            left = ast.Call(self.node_id(), op.offset, ops[op.text], [left, right])
        return left

    def unary(self) -> ast.Expr:
        if self.at("!") or self.at("-"):
            ops = []
            while self.at("!") or self.at("-"):
                ops.append(self.take())
            if (
                ops[-1].text == "-"
                and self.tok.kind in ("int", "float")
                and not self._member_follows()
            ):
                literal = self.take()
                value: Any = -literal.value
                operand: ast.Expr = ast.Literal(self.node_id(), ops[-1].offset, value)
                ops.pop()
            else:
                operand = self.member()
            for op in reversed(ops):
                name = "!_" if op.text == "!" else "-_"
                operand = ast.Call(self.node_id(), op.offset, name, [operand])
            return operand
        return self.member()

    def _member_follows(self) -> bool:
        after = self.tokens[self.pos + 1]
        return after.kind == "op" and after.text in (".", "[", ".?", "[?")

    def member(self) -> ast.Expr:
        expr = self.primary()
        while True:
            if self.at(".") or self.at(".?"):
                dot = self.take()
                if self.tok.kind != "ident":
                    raise self.mismatch("IDENTIFIER")
                name = self.take()
                if self.at("(") and dot.text == ".":
                    open_paren = self.take()
                    args = self.arguments(")")
                    expr = self.call(open_paren.offset, name.text, args, expr)
                else:
                    optional = dot.text == ".?"
                    expr = ast.Select(
                        self.node_id(), dot.offset, expr, name.text, optional=optional
                    )
            elif self.at("[") or self.at("[?"):
                bracket = self.take()
                index = self.expr()
                self.expect("]")
                function = "_[?_]" if bracket.text == "[?" else "_[_]"
                expr = ast.Call(self.node_id(), bracket.offset, function, [expr, index])
            else:
                return expr

    def arguments(self, close: str) -> list[ast.Expr]:
        args: list[ast.Expr] = []
        if not self.at(close):
            args.append(self.expr())
            while self.at(","):
                self.take()
                args.append(self.expr())
        self.expect(close)
        return args

    def call(
        self, offset: int, name: str, args: list[ast.Expr], target: ast.Expr | None
    ) -> ast.Expr:
        if isinstance(target, ast.Ident) and target.name in _NAMESPACES:
            name, target = f"{target.name}.{name}", None
        expanded = expand_macro(self.node_id, offset, name, target, args)
        if expanded is not None:
            return expanded
        return ast.Call(self.node_id(), offset, name, args, target)

    def primary(self) -> ast.Expr:
        tok = self.tok
        if tok.kind in ("int", "uint", "float", "string", "bytes"):
            self.take()
            return ast.Literal(self.node_id(), tok.offset, tok.value)
        if tok.kind == "ident":
            return self.identifier()
        if self.at("."):
            dot = self.take()
            if self.tok.kind != "ident":
                raise self.mismatch("IDENTIFIER")
            return self.identifier(leading=dot)
        if self.at("("):
            self.take()
            inner = self.expr()
            self.expect(")")
            return inner
        if self.at("[") or self.at("[?"):
            return self.list_literal()
        if self.at("{"):
            return self.map_literal()
        raise self.mismatch(_EXPECT_EXPR)

    def identifier(self, leading: Token | None = None) -> ast.Expr:
        name = self.take()
        text = name.text
        if text in ("true", "false", "null") and leading is None:
            value = {"true": True, "false": False, "null": None}[text]
            return ast.Literal(self.node_id(), name.offset, value)
        if text in RESERVED:
            raise SyntaxIssue(name.offset, f"reserved identifier: {text}")
        if self.at("("):
            open_paren = self.take()
            args = self.arguments(")")
            return self.call(open_paren.offset, ("." if leading else "") + text, args, None)
        return ast.Ident(self.node_id(), name.offset, ("." if leading else "") + text)

    def list_literal(self) -> ast.Expr:
        bracket = self.take()
        elements: list[ast.Expr] = []
        optional: set[int] = set()
        first_optional = bracket.text == "[?"
        while not self.at("]"):
            if self.at("?"):
                self.take()
                first_optional = True
            if first_optional:
                optional.add(len(elements))
                first_optional = False
            elements.append(self.expr())
            if not self.at(","):
                break
            self.take()
        self.expect("]")
        return ast.CreateList(self.node_id(), bracket.offset, elements, frozenset(optional))

    def map_literal(self) -> ast.Expr:
        brace = self.take()
        entries: list[ast.MapEntry] = []
        while not self.at("}"):
            optional = False
            if self.at("?"):
                self.take()
                optional = True
            key = self.expr()
            self.expect(":")
            value = self.expr()
            entries.append(ast.MapEntry(key, value, optional))
            if not self.at(","):
                break
            self.take()
        self.expect("}")
        return ast.CreateMap(self.node_id(), brace.offset, entries)
