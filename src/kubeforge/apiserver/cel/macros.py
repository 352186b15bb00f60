"""CEL macros, expanded at parse time into comprehensions exactly as cel-go expands them.

``has(a.f)`` becomes a presence-test select; ``all``, ``exists``, ``exists_one``,
``map`` (2 and 3 arguments), ``filter`` become ``Comprehension`` nodes over the
accumulator ``__result__``; ``optMap``/``optFlatMap`` (the optional-types library)
bind their variable with an empty comprehension. The shapes matter beyond evaluation:
Kubernetes' cost estimates are computed over these expansions.

Entry point: ``expand_macro(new_id, offset, name, target, args)`` (None: not a macro).
"""

from __future__ import annotations

from collections.abc import Callable

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.lexer import SyntaxIssue

__all__ = ["expand_macro"]

_ACC = ast.ACCUMULATOR


def expand_macro(
    new_id: Callable[[], int],
    offset: int,
    name: str,
    target: ast.Expr | None,
    args: list[ast.Expr],
) -> ast.Expr | None:
    if target is None:
        if name == "has" and len(args) == 1:
            arg = args[0]
            if not isinstance(arg, ast.Select) or arg.test_only or arg.optional:
                raise SyntaxIssue(arg.offset, "invalid argument to has() macro")
            return ast.Select(new_id(), offset, arg.operand, arg.field, test_only=True)
        return None
    if name in ("optMap", "optFlatMap") and len(args) == 2:
        return _optional_map(new_id, offset, name, target, args)
    shape = _SHAPES.get((name, len(args)))
    if shape is None:
        return None
    var = args[0]
    if not isinstance(var, ast.Ident):
        raise SyntaxIssue(var.offset, "argument must be a simple name")
    if var.name == _ACC:
        raise SyntaxIssue(var.offset, "iteration variable overwrites accumulator variable")
    build = _Builder(new_id, offset)
    init, condition, step, result = shape(build, var, args[1:])
    return ast.Comprehension(
        new_id(), offset, var.name, target, _ACC, init, condition, step, result
    )


class _Builder:
    def __init__(self, new_id: Callable[[], int], offset: int) -> None:
        self.new_id = new_id
        self.offset = offset

    def lit(self, value: object) -> ast.Literal:
        return ast.Literal(self.new_id(), self.offset, value)

    def acc(self) -> ast.Ident:
        return ast.Ident(self.new_id(), self.offset, _ACC)

    def call(self, function: str, *args: ast.Expr) -> ast.Call:
        return ast.Call(self.new_id(), self.offset, function, list(args))

    def appended(self, item: ast.Expr) -> ast.Call:
        return self.call("_+_", self.acc(), ast.CreateList(self.new_id(), self.offset, [item]))


_Shape = Callable[
    [_Builder, ast.Ident, list[ast.Expr]], tuple[ast.Expr, ast.Expr, ast.Expr, ast.Expr]
]


def _all(b: _Builder, _var: ast.Ident, rest: list[ast.Expr]) -> tuple[ast.Expr, ...]:
    condition = b.call("@not_strictly_false", b.acc())
    return b.lit(True), condition, b.call("_&&_", b.acc(), rest[0]), b.acc()


def _exists(b: _Builder, _var: ast.Ident, rest: list[ast.Expr]) -> tuple[ast.Expr, ...]:
    condition = b.call("@not_strictly_false", b.call("!_", b.acc()))
    return b.lit(False), condition, b.call("_||_", b.acc(), rest[0]), b.acc()


def _exists_one(b: _Builder, _var: ast.Ident, rest: list[ast.Expr]) -> tuple[ast.Expr, ...]:
    step = b.call("_?_:_", rest[0], b.call("_+_", b.acc(), b.lit(1)), b.acc())
    return b.lit(0), b.lit(True), step, b.call("_==_", b.acc(), b.lit(1))


def _map(b: _Builder, _var: ast.Ident, rest: list[ast.Expr]) -> tuple[ast.Expr, ...]:
    step: ast.Expr = b.appended(rest[-1])
    if len(rest) == 2:
        step = b.call("_?_:_", rest[0], step, b.acc())
    return ast.CreateList(b.new_id(), b.offset, []), b.lit(True), step, b.acc()


def _filter(b: _Builder, var: ast.Ident, rest: list[ast.Expr]) -> tuple[ast.Expr, ...]:
    item = ast.Ident(b.new_id(), var.offset, var.name)
    step = b.call("_?_:_", rest[0], b.appended(item), b.acc())
    return ast.CreateList(b.new_id(), b.offset, []), b.lit(True), step, b.acc()


_SHAPES: dict[tuple[str, int], _Shape] = {
    ("all", 2): _all,  # type: ignore[dict-item]
    ("exists", 2): _exists,  # type: ignore[dict-item]
    ("exists_one", 2): _exists_one,  # type: ignore[dict-item]
    ("map", 2): _map,  # type: ignore[dict-item]
    ("map", 3): _map,  # type: ignore[dict-item]
    ("filter", 2): _filter,  # type: ignore[dict-item]
}


def _optional_map(
    new_id: Callable[[], int], offset: int, name: str, target: ast.Expr, args: list[ast.Expr]
) -> ast.Expr:
    var = args[0]
    if not isinstance(var, ast.Ident):
        raise SyntaxIssue(var.offset, f"{name}() variable name must be a simple identifier")
    b = _Builder(new_id, offset)
    value = ast.Call(new_id(), offset, "value", [], target)
    bound = ast.Comprehension(
        new_id(), offset, "#unused", ast.CreateList(new_id(), offset, []),
        var.name, value, b.lit(False), ast.Ident(new_id(), offset, var.name), args[1],
    )  # fmt: skip
    mapped: ast.Expr = bound
    if name == "optMap":
        mapped = ast.Call(new_id(), offset, "optional.of", [bound])
    has_value = ast.Call(new_id(), offset, "hasValue", [], target)
    none = ast.Call(new_id(), offset, "optional.none", [])
    return b.call("_?_:_", has_value, mapped, none)
