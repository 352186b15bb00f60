"""A container's ``resources``: names, non-negative quantities, requests <= limits
(``ValidateContainerResourceRequirements`` of kubernetes 1.32), with quantities shown
in their canonical form as ``resource.Quantity.String()`` prints them.

Entry points: ``container_resources(value, path)``, ``canonical_quantity(text)``.

>>> canonical_quantity("1024Mi"), canonical_quantity("0.5"), canonical_quantity("1500")
('1Gi', '500m', '1500')
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.cel.lib_quantity import parse_quantity
from kubeforge.apiserver.cel.values import EvalError
from kubeforge.apiserver.failures import FieldError

__all__ = [
    "canonical_quantity",
    "container_resources",
    "format_quantity",
    "quantity_format",
    "quantity_value",
]

_BINARY = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_STANDARD = ("cpu", "memory", "ephemeral-storage")


def quantity_value(text: Any) -> Fraction | None:
    """The exact value of a quantity string, rounded up to nano units as the server keeps
    it; None when it does not parse (the decoder has already refused those)."""
    try:
        value = parse_quantity(str(text)).value
    except EvalError:
        return None
    return Fraction(math.ceil(value * 10**9), 10**9)


def _binary(value: Fraction) -> str | None:
    if value.denominator != 1 or -1024 < value < 1024:
        return None
    mantissa, power = int(value), 0
    while power < len(_BINARY) - 1 and mantissa % 1024 == 0:
        mantissa //= 1024
        power += 1
    return f"{mantissa}{_BINARY[power]}"


def _decimal(value: Fraction, exponent_form: bool) -> str:
    exponent = -9
    mantissa = value * 10**9
    while exponent < 18 and mantissa % 1000 == 0 and mantissa != 0:
        mantissa /= 1000
        exponent += 3
    if exponent_form:
        return f"{int(mantissa)}" + (f"e{exponent}" if exponent else "")
    return f"{int(mantissa)}{_DECIMAL[exponent]}"


def quantity_format(text: str) -> str:
    """The ``resource.Format`` a quantity string parses with: ``BinarySI`` (Ki ... Ei),
    ``DecimalExponent`` (e/E) or ``DecimalSI``."""
    suffix = str(text).lstrip("+-0123456789.")
    if suffix in _BINARY[1:]:
        return "BinarySI"
    return "DecimalExponent" if suffix[:1] in ("e", "E") else "DecimalSI"


def format_quantity(value: Fraction, form: str) -> str:
    """``value`` printed as ``resource.Quantity.String()`` prints it in format ``form``."""
    if value == 0:
        return "0"
    if form == "BinarySI":
        binary = _binary(value)
        if binary is not None:
            return binary
    return _decimal(value, form == "DecimalExponent")


def canonical_quantity(text: str) -> str:
    """``text`` as the server prints the quantity back (its canonical form)."""
    value = quantity_value(text)
    if value is None:
        return text
    return format_quantity(value, quantity_format(text))


def _name_errors(name: str, path: str) -> list[FieldError]:
    if "/" not in name:
        if name in _STANDARD or name.startswith("hugepages-"):
            return []
        return [FieldError.invalid(path, name, "must be a standard resource for containers")]
    return []


def _amounts(value: Any, path: str) -> tuple[dict[str, Fraction], list[FieldError]]:
    amounts: dict[str, Fraction] = {}
    errors: list[FieldError] = []
    for name in sorted(value) if isinstance(value, dict) else ():
        at = f"{path}[{name}]"
        errors += _name_errors(name, at)
        amount = quantity_value(value[name])
        if amount is None:
            continue
        if amount < 0:
            text = canonical_quantity(str(value[name]))
            errors.append(FieldError.invalid(at, text, "must be greater than or equal to 0"))
        amounts[name] = amount
    return amounts, errors


def container_resources(value: Any, path: str) -> list[FieldError]:
    """Limits, then requests, each request no more than its limit."""
    if not isinstance(value, dict):
        return []
    limits, errors = _amounts(value.get("limits"), f"{path}.limits")
    requests, request_errors = _amounts(value.get("requests"), f"{path}.requests")
    errors += request_errors
    for name, amount in requests.items():
        limit = limits.get(name)
        if limit is not None and amount > limit:
            shown = canonical_quantity(str(value["requests"][name]))
            limit_text = canonical_quantity(str(value["limits"][name]))
            detail = f"must be less than or equal to {name} limit of {limit_text}"
            errors.append(FieldError.invalid(f"{path}.requests", shown, detail))
    return errors
