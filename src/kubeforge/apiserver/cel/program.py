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

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.checker import Checked, check
from kubeforge.apiserver.cel.cost import estimate
from kubeforge.apiserver.cel.interpreter import evaluate
from kubeforge.apiserver.cel.parser import SyntaxIssue, parse
from kubeforge.apiserver.cel.schema_types import Decl
from kubeforge.apiserver.cel.types import Type

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
    if checked.issues:
        raise CompileError(_display(source, checked.issues))
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
