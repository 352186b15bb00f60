"""Quantities with their format, and the arithmetic over resource lists that quota does
(``k8s.io/apiserver/pkg/quota/v1``'s ``Add``, ``SubtractWithNonNegativeResult``,
``Mask``, ``LessThanOrEqual``, ``Equals``, ``RemoveZeros``, ``IsNegative``).

A sum keeps the format of its first non-zero term, as ``resource.Quantity.Add`` does, so
a quota's ``used`` prints as a cluster prints it: ``512Mi`` + ``512Mi`` is ``1Gi``,
``500m`` + ``1`` is ``1500m``.

Entry points: ``Quantity``, ``ResourceList`` (a ``dict`` of resource name to Quantity),
``parse_list`` and ``render_list`` (to and from an object's JSON), ``pretty``.

>>> used = add(parse_list({"requests.memory": "512Mi"}), parse_list({"requests.memory": "0.5Gi"}))
>>> render_list(used), pretty(used)
({'requests.memory': '1Gi'}, 'requests.memory=1Gi')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.builtin.podspec.resources import (
    format_quantity,
    quantity_format,
    quantity_value,
)

__all__ = [
    "ONE",
    "ZERO",
    "Quantity",
    "ResourceList",
    "add",
    "equals",
    "exceeded",
    "is_negative",
    "mask",
    "parse_list",
    "pretty",
    "remove_zeros",
    "render_list",
    "subtract_non_negative",
]


@dataclass(frozen=True)
class Quantity:
    """An exact value (nano-rounded, as the server keeps it) and how it prints."""

    value: Fraction
    form: str = "DecimalSI"

    @classmethod
    def parse(cls, text: Any) -> Quantity | None:
        value = quantity_value(text)
        return None if value is None else cls(value, quantity_format(str(text)))

    def __add__(self, other: Quantity) -> Quantity:
        form = other.form if self.value == 0 else self.form
        return Quantity(self.value + other.value, form)

    def __sub__(self, other: Quantity) -> Quantity:
        form = other.form if self.value == 0 else self.form
        return Quantity(self.value - other.value, form)

    def __str__(self) -> str:
        return format_quantity(self.value, self.form)


ZERO = Quantity(Fraction(0))
ONE = Quantity(Fraction(1))

ResourceList = dict[str, Quantity]


def parse_list(raw: Any) -> ResourceList:
    """A JSON resource list; entries that do not parse (refused by validation) are left out."""
    result: ResourceList = {}
    for name, text in raw.items() if isinstance(raw, dict) else ():
        quantity = Quantity.parse(text)
        if quantity is not None:
            result[str(name)] = quantity
    return result


def render_list(items: ResourceList) -> dict[str, str]:
    return {name: str(quantity) for name, quantity in sorted(items.items())}


def add(a: ResourceList, b: ResourceList) -> ResourceList:
    result = dict(a)
    for name, quantity in b.items():
        result[name] = result[name] + quantity if name in result else quantity
    return result


def subtract_non_negative(a: ResourceList, b: ResourceList) -> ResourceList:
    """``a - b`` per resource, where a negative difference (and a name only in b) is 0."""
    result: ResourceList = {}
    for name, quantity in a.items():
        difference = quantity - b[name] if name in b else quantity
        result[name] = difference if difference.value > 0 else ZERO
    for name in b:
        result.setdefault(name, ZERO)
    return result


def mask(items: ResourceList, names: Iterable[str]) -> ResourceList:
    wanted = set(names)
    return {name: quantity for name, quantity in items.items() if name in wanted}


def remove_zeros(items: ResourceList) -> ResourceList:
    return {name: quantity for name, quantity in items.items() if quantity.value != 0}


def is_negative(items: ResourceList) -> list[str]:
    return sorted(name for name, quantity in items.items() if quantity.value < 0)


def exceeded(a: ResourceList, limits: ResourceList) -> list[str]:
    """The names whose amount in ``a`` is above the one in ``limits`` (``LessThanOrEqual``;
    a name without a limit is never exceeded)."""
    return sorted(n for n, q in a.items() if n in limits and q.value > limits[n].value)


def equals(a: ResourceList, b: ResourceList) -> bool:
    return a.keys() == b.keys() and all(a[n].value == b[n].value for n in a)


def pretty(items: ResourceList) -> str:
    """``name=value,...`` sorted by name, as the quota admission's messages print lists."""
    return ",".join(f"{name}={quantity}" for name, quantity in sorted(items.items()))
