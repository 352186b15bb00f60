"""The CEL syntax tree: what ``parser`` builds and ``checker``, ``cost`` and ``interpreter`` walk.

Every node carries ``id`` (unique in its tree, the key of the checker's type map) and
``offset`` (a character offset into the source, used for cel-go's ``<input>:L:C``
locations). Macros (``has``, ``all``, ``exists``, ``exists_one``, ``map``, ``filter``)
are expanded by the parser into ``Comprehension`` nodes the way cel-go expands them,
so type checking, cost estimation and evaluation see the same shape as Kubernetes.

Entry point: the node classes; ``Expr`` is their union.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ACCUMULATOR",
    "Call",
    "Comprehension",
    "CreateList",
    "CreateMap",
    "Expr",
    "Ident",
    "Literal",
    "Select",
]

# The accumulator variable of expanded macros; cel-go's name, so paths and costs agree.
ACCUMULATOR = "__result__"


@dataclass(eq=False)
class Node:
    id: int
    offset: int


@dataclass(eq=False)
class Literal(Node):
    """A constant; ``value`` is already the runtime value (int, UInt, float, str, bytes ...)."""

    value: Any


@dataclass(eq=False)
class Ident(Node):
    name: str


@dataclass(eq=False)
class Select(Node):
    """``operand.field``; ``test_only`` for ``has(operand.field)``; ``optional`` for ``.?``."""

    operand: Expr
    field: str
    test_only: bool = False
    optional: bool = False


@dataclass(eq=False)
class Call(Node):
    """A function or operator call; operators use cel-go's names (``_+_``, ``_[_]``, ``!_``)."""

    function: str
    args: list[Expr]
    target: Expr | None = None


@dataclass(eq=False)
class CreateList(Node):
    elements: list[Expr]
    optional_indices: frozenset[int] = frozenset()


@dataclass(eq=False)
class MapEntry:
    key: Expr
    value: Expr
    optional: bool = False


@dataclass(eq=False)
class CreateMap(Node):
    entries: list[MapEntry] = field(default_factory=list)


@dataclass(eq=False)
class Comprehension(Node):
    iter_var: str
    iter_range: Expr
    accu_var: str
    accu_init: Expr
    loop_condition: Expr
    loop_step: Expr
    result: Expr


Expr = Literal | Ident | Select | Call | CreateList | CreateMap | Comprehension
