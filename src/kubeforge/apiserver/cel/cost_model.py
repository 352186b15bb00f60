"""The numbers of cost estimation: ``Estimate`` (a saturating ``[min, max]`` pair of cost or
size units, as cel-go's CostEstimate/SizeEstimate) and ``Node``, what an estimator knows of
one expression (its path in the schema, its type, any size computed for it).

Entry points: ``Estimate``, ``Node``, ``Sizer``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.types import Type

__all__ = ["MAX", "ONE", "UNKNOWN", "ZERO", "Estimate", "Node", "Sizer"]

MAX = 2**64 - 1


def _add(a: int, b: int) -> int:
    return min(MAX, a + b)


def _mul(a: int, b: int) -> int:
    return min(MAX, a * b)


def _factor(x: int, f: float) -> int:
    if x > 0 and f > 0 and x > MAX / f:
        return MAX
    value = math.ceil(x * f)
    return MAX if value >= 2**64 else int(value)


@dataclass(frozen=True)
class Estimate:
    """A ``[min, max]`` pair: a cost, or a size."""

    min: int
    max: int

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(_add(self.min, other.min), _add(self.max, other.max))

    def times(self, other: Estimate) -> Estimate:
        return Estimate(_mul(self.min, other.min), _mul(self.max, other.max))

    def scaled(self, f: float) -> Estimate:
        return Estimate(_factor(self.min, f), _factor(self.max, f))

    def union(self, other: Estimate) -> Estimate:
        return Estimate(min(self.min, other.min), max(self.max, other.max))


ZERO = Estimate(0, 0)
ONE = Estimate(1, 1)
UNKNOWN = Estimate(0, MAX)


@dataclass
class Node:
    """What cel-go's AstNode gives an estimator: path, type, and any size computed so far."""

    path: list[str] | None
    type: Type
    expr: ast.Expr | None
    computed: Estimate | None


class Sizer(Protocol):
    """How big a node can be: cel-go's sizeEstimate and Kubernetes' (no scalar fallback)."""

    def size(self, node: Node) -> Estimate: ...

    def k8s_size(self, node: Node) -> Estimate: ...
