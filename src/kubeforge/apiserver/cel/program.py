"""One expression, compiled: parse, type-check, estimate its cost, and evaluate it.

``compile_expression(source, variables, decl)`` returns a ``Program`` or raises
``CompileError`` whose ``str()`` is cel-go's ``issues.String()``: each issue as
``ERROR: <input>:LINE:COL: message`` followed by the source line and a caret under
the column (``Program.evaluate`` runs it with a cost limit).

>>> from kubeforge.apiserver.cel.types import INT
>>> compile_expression("self + 1", {"self": INT}).evaluate({"self": 41})[0]
42
>>> compile_expression("self.x", {"self": INT})
Traceback (most recent call last):
...
kubeforge.apiserver.cel.program.CompileError: ERROR: <input>:1:5: type 'int' does not ...
 | self.x
 | ....^
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.checker import Checked, check
from kubeforge.apiserver.cel.cost import estimate
from kubeforge.apiserver.cel.functions import call_function
from kubeforge.apiserver.cel.interpreter import evaluate
from kubeforge.apiserver.cel.lib_text import compile_regex
from kubeforge.apiserver.cel.parser import SyntaxIssue, parse
from kubeforge.apiserver.cel.schema_types import Decl
from kubeforge.apiserver.cel.types import Type
from kubeforge.apiserver.cel.values import EvalError

__all__ = ["CompileError", "Program", "compile_expression"]


class CompileError(Exception):
    """The expression does not parse or type-check; the text is cel-go's."""


@dataclass(frozen=True)
class Program:
    source: str
    checked: Checked
    max_cost: int
    min_cost: int

    @property
    def result_type(self) -> Type:
        return self.checked.result

    def references(self, name: str) -> bool:
        return name in self.checked.references

    def evaluate(self, variables: dict[str, Any], limit: int | None = None) -> tuple[Any, int]:
        """``(value, cost)``; raises ``EvalError`` or ``CostExceeded``."""
        return evaluate(self.checked.tree, variables, limit)


def compile_expression(
    source: str, variables: dict[str, Type], decl: Decl | None = None
) -> Program:
    tree = _parse(source)
    checked = check(tree, variables)
    issues = checked.issues or _literal_issues(tree)
    if issues:
        raise CompileError(_display(source, issues))
    cost = estimate(checked, decl)
    return Program(source, checked, cost.max, cost.min)


@lru_cache(maxsize=4096)
def _parse(source: str) -> ast.Expr:
    try:
        return parse(source)
    except SyntaxIssue as issue:
        raise CompileError(_display(source, [(issue.offset, issue.message)])) from None
    except RecursionError:
        raise CompileError(_display(source, [(0, "expression recursion limit exceeded")])) from None


# cel-go's literal validators, which Kubernetes enables from 1.29: a constant argument of
# duration(), timestamp() or matches() must be valid when the expression is compiled.
_LITERAL_CHECKS = {"duration": "duration", "timestamp": "timestamp", "matches": "matches"}


def _literal_issues(tree: ast.Expr) -> list[tuple[int, str]]:
    issues: list[tuple[int, str]] = []
    for node in _walk(tree):
        if not isinstance(node, ast.Call) or node.function not in _LITERAL_CHECKS:
            continue
        if not node.args or not isinstance(node.args[0], ast.Literal):
            continue
        literal = node.args[0]
        try:
            if node.function == "matches":
                compile_regex(str(literal.value))
            else:
                call_function(node.function, [literal.value], False)
        except EvalError:
            issues.append((literal.offset, f"invalid {node.function} argument"))
    return sorted(issues, key=lambda issue: issue[0])


def _walk(node: ast.Expr) -> Iterator[ast.Expr]:
    yield node
    children: list[ast.Expr] = []
    if isinstance(node, ast.Select):
        children = [node.operand]
    elif isinstance(node, ast.Call):
        children = [*([node.target] if node.target is not None else []), *node.args]
    elif isinstance(node, ast.CreateList):
        children = list(node.elements)
    elif isinstance(node, ast.CreateMap):
        children = [e for entry in node.entries for e in (entry.key, entry.value)]
    elif isinstance(node, ast.Comprehension):
        children = [
            node.iter_range,
            node.accu_init,
            node.loop_condition,
            node.loop_step,
            node.result,
        ]
    for child in children:
        yield from _walk(child)


def _display(source: str, issues: list[tuple[int, str]]) -> str:
    return "\n".join(_one(source, offset, message) for offset, message in issues)


def _one(source: str, offset: int, message: str) -> str:
    line_start = source.rfind("\n", 0, offset) + 1
    line_number = source.count("\n", 0, offset) + 1
    column = offset - line_start
    text = f"ERROR: <input>:{line_number}:{column + 1}: {message}"
    line_end = source.find("\n", offset)
    snippet = source[line_start : line_end if line_end != -1 else len(source)]
    if len(snippet) <= 16384:
        marker = "".join("\uff0e" if len(ch.encode()) > 1 else "." for ch in snippet[:column])
        caret = "\uff3e" if column < len(snippet) and len(snippet[column].encode()) > 1 else "^"
        text += f"\n | {snippet.replace(chr(9), ' ')}\n | {marker}{caret}"
    return text
