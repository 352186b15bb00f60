"""A container's ``resources``: names, non-negative quantities, requests <= limits
(``ValidateContainerResourceRequirements`` of kubernetes 1.32), with quantities shown
in their canonical form as ``resource.Quantity.String()`` prints them.

Entry points: ``container_resources(value, path)``, ``canonical_quantity(text)``.

>>> canonical_quantity("1024Mi"), canonical_quantity("0.5"), canonical_quantity("1500")
('1Gi', '500m', '1500')
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from kubeforge.apiserver.builtin.podspec.resource_names import (
    is_extended,
    is_hugepages,
    is_integer_resource,
    is_native,
    is_standard_container_resource,
    is_standard_resource,
    overcommit_allowed,
)
from kubeforge.apiserver.cel.lib_quantity import parse_quantity
from kubeforge.apiserver.cel.values import EvalError
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import qualified_name

__all__ = [
    "canonical_quantity",
    "container_resource_name_errors",
    "container_resources",
    "format_quantity",
    "go_quantity",
    "quantity_errors",
    "quantity_format",
    "quantity_value",
    "resource_name_errors",
]

_BINARY = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_SI = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_QUANTITY_PARTS = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)")


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


def go_quantity(text: str) -> GoValue:
    """The ``resource.Quantity`` ParseQuantity makes of ``text``, as ``%#v`` prints it (a
    field error shows a Quantity value so: its String method needs a pointer). Values
    beyond int64's fast path live in an ``inf.Dec`` whose address Go prints; a fixed
    one stands in for it."""
    form = quantity_format(text)
    sign, num, denom, suffix = _QUANTITY_PARTS.fullmatch(text).groups()  # type: ignore[union-attr]
    num, denom = num or "0", denom or ""
    exponent = int(suffix[1:] or 0) if form == "DecimalExponent" else _SI.get(suffix, 0)
    scale = exponent - len(denom)
    if form == "BinarySI" or len(num) + len(denom) > 18 or scale < -9:
        inner, kept = "value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000010000)}", ""
    else:
        shifted = num + denom
        value = -int(shifted) if sign == "-" else int(shifted)
        canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
        inner = f"value:{value}, scale:{scale}}}, d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}"
        kept = text if canonical else ""
    amount = f"i:resource.int64Amount{{{inner}"
    return GoValue(f'resource.Quantity{{{amount}, s:{GoValue.quote(kept)}, Format:"{form}"}}')


def quantity_errors(name: str, text: Any, path: str) -> list[FieldError]:
    """``ValidateResourceQuantityValue``: not negative, and whole for resources counted
    in units (objects, extended resources)."""
    value = quantity_value(text)
    if value is None:
        return []
    errors = []
    if value < 0:
        shown = canonical_quantity(str(text))
        errors.append(FieldError.invalid(path, shown, "must be greater than or equal to 0"))
    if is_integer_resource(name) and math.ceil(value * 1000) % 1000:
        errors.append(FieldError.invalid(path, go_quantity(str(text)), "must be an integer"))
    return errors


def resource_name_errors(name: str, path: str) -> list[FieldError]:
    """``validateResourceName``: a qualified name, standard unless prefixed."""
    problems = qualified_name(name)
    if problems:
        return [FieldError.invalid(path, name, problem) for problem in problems]
    if "/" not in name and not is_standard_resource(name):
        detail = "must be a standard resource type or fully qualified"
        return [FieldError.invalid(path, name, detail)]
    return []


def container_resource_name_errors(name: str, path: str) -> list[FieldError]:
    """``validateContainerResourceName``."""
    errors = resource_name_errors(name, path)
    if "/" not in name:
        if not is_standard_container_resource(name):
            detail = "must be a standard resource for containers"
            errors.append(FieldError.invalid(path, name, detail))
    elif not is_native(name) and not is_extended(name):
        detail = "doesn't follow extended resource name standard"
        errors.append(FieldError.invalid(path, name, detail))
    return errors


def _hugepage_errors(name: str, text: Any, path: str) -> list[FieldError]:
    """``validateResourceQuantityHugePageValue`` on a create: a whole number of pages."""
    page = quantity_value(name.removeprefix("hugepages-"))
    value = quantity_value(text)
    if value is None:
        return []
    divisible = page is not None and page > 0 and page.denominator == 1
    if divisible and math.ceil(value) % int(page) == 0:  # type: ignore[arg-type]
        return []
    shown = canonical_quantity(str(text))
    return [FieldError.invalid(path, shown, f"{shown} is not positive integer multiple of {name}")]


def _amount_errors(name: str, text: Any, path: str) -> list[FieldError]:
    return container_resource_name_errors(name, path) + quantity_errors(name, text, path)


def _request_errors(name: str, request: Any, limits: dict[str, Any], path: str) -> list[FieldError]:
    """A request against its limit: no more than it, equal to it where overcommit is not
    allowed, and a limit at all for those."""
    if name not in limits:
        if overcommit_allowed(name):
            return []
        detail = "Limit must be set for non overcommitable resources"
        return [FieldError.required(path.rsplit(".", 1)[0] + ".limits", detail)]
    amount, limit = quantity_value(request), quantity_value(limits[name])
    if amount is None or limit is None:
        return []
    shown, limit_text = canonical_quantity(str(request)), canonical_quantity(str(limits[name]))
    if amount != limit and not overcommit_allowed(name):
        detail = f"must be equal to {name} limit of {limit_text}"
    elif amount > limit:
        detail = f"must be less than or equal to {name} limit of {limit_text}"
    else:
        return []
    return [FieldError.invalid(path, shown, detail)]


def container_resources(value: Any, path: str) -> list[FieldError]:
    """``ValidateContainerResourceRequirements``: limits, then requests, each request
    checked against its limit; hugepages in whole pages and beside cpu or memory."""
    if not isinstance(value, dict):
        return []
    limits: dict[str, Any] = value["limits"] if isinstance(value.get("limits"), dict) else {}
    requests: dict[str, Any] = value["requests"] if isinstance(value.get("requests"), dict) else {}
    errors: list[FieldError] = []
    for name in sorted(limits):
        at = f"{path}.limits[{name}]"
        errors += _amount_errors(name, limits[name], at)
        if is_hugepages(name):
            errors += _hugepage_errors(name, limits[name], at)
    for name in sorted(requests):
        at = f"{path}.requests[{name}]"
        errors += _amount_errors(name, requests[name], at)
        errors += _request_errors(name, requests[name], limits, f"{path}.requests")
        if is_hugepages(name):
            errors += _hugepage_errors(name, requests[name], at)
    named = set(limits) | set(requests)
    if not named & {"cpu", "memory"} and any(map(is_hugepages, named)):
        errors.append(FieldError.forbidden(path, "HugePages require cpu or memory"))
    return errors
