"""Kubernetes' quantity library: ``quantity("1.5Gi")``, ``isQuantity``, and the methods
``sign``, ``isInteger``, ``asInteger``, ``asApproximateFloat``, ``add``, ``sub``,
``isLessThan``, ``isGreaterThan``, ``compareTo``.

Values are exact rationals (``fractions.Fraction``), so ``quantity("1Gi") ==
quantity("1024Mi")`` and comparisons are exact, as ``resource.Quantity.Cmp`` is. The
accepted text is ``resource.ParseQuantity``'s, with its error message.

Entry point: ``FUNCTIONS``; ``Quantity``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.cel.values import INT64_MAX, INT64_MIN, EvalError

__all__ = ["FUNCTIONS", "Quantity"]

_FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
_SHAPE = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eEinumkKMGTP]*[-+]?[0-9]*)")
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: dict[str, Fraction | int] = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
}  # fmt: skip


class Quantity:
    """A ``resource.Quantity``: an exact value (the text form is not kept: CEL never shows it)."""

    cel_type_name = "kubernetes.Quantity"
    __slots__ = ("value",)

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def cel_equal(self, other: Any) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def cel_compare(self, other: Quantity) -> int:
        return (self.value > other.value) - (self.value < other.value)

    def cel_sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def cel_isInteger(self) -> bool:
        return self.value.denominator == 1 and INT64_MIN <= self.value <= INT64_MAX

    def cel_asInteger(self) -> int:
        if not self.cel_isInteger():
            raise EvalError("cannot convert value to integer")
        return int(self.value)

    def cel_asApproximateFloat(self) -> float:
        return float(self.value)

    def cel_add(self, other: Any) -> Quantity:
        return Quantity(self.value + _operand(other))

    def cel_sub(self, other: Any) -> Quantity:
        return Quantity(self.value - _operand(other))

    def cel_isLessThan(self, other: Quantity) -> bool:
        return self.value < other.value

    def cel_isGreaterThan(self, other: Quantity) -> bool:
        return self.value > other.value

    def cel_compareTo(self, other: Quantity) -> int:
        return self.cel_compare(other)

    def __repr__(self) -> str:
        return f"Quantity({self.value})"


def _operand(other: Any) -> Fraction:
    if isinstance(other, Quantity):
        return other.value
    if isinstance(other, int) and not isinstance(other, bool):
        return Fraction(other)
    raise EvalError("no such overload")


def parse_quantity(text: str) -> Quantity:
    match = _SHAPE.fullmatch(text)
    if match is None:
        raise EvalError(_FORMAT_ERROR)
    number, suffix = match.groups()
    multiplier: Fraction | int
    if suffix in _BINARY:
        multiplier = _BINARY[suffix]
    elif suffix in _DECIMAL:
        multiplier = _DECIMAL[suffix]
    elif re.fullmatch(r"[eE][-+]?[0-9]+", suffix):
        exponent = int(suffix[1:])
        multiplier = Fraction(10**exponent) if exponent >= 0 else Fraction(1, 10**-exponent)
    else:
        raise EvalError("unable to parse quantity's suffix")
    return Quantity(Fraction(number) * multiplier)


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except EvalError:
        return False
    return True


def _method(name: str) -> Callable[..., Any]:
    def call(target: Any, *args: Any) -> Any:
        if not isinstance(target, Quantity):
            raise EvalError("no such overload")
        return getattr(target, f"cel_{name}")(*args)

    return call


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": parse_quantity,
    "isQuantity": _is_quantity,
    **{
        name: _method(name)
        for name in (
            "sign",
            "isInteger",
            "asInteger",
            "asApproximateFloat",
            "add",
            "sub",
            "isLessThan",
            "isGreaterThan",
            "compareTo",
        )
    },
}
