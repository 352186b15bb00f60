"""Runtime dispatch of CEL functions, and what each call costs.

``call_function(name, args, member)`` runs a function (operators, the standard
library, optional types, and the libraries in ``lib_*``); ``runtime_cost(name, args,
result)`` is the cost cel-go's tracker (with Kubernetes' ``CostEstimator.CallCost``)
charges for that call. Arguments arrive evaluated; a member call's target is
``args[0]``.

Entry points: ``call_function``, ``runtime_cost``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.cel import lib_format, lib_net, lib_quantity, lib_text, lib_time
from kubeforge.apiserver.cel.operators import OPERATORS
from kubeforge.apiserver.cel.values import (
    NONE,
    ZERO_TIMESTAMP,
    Duration,
    EvalError,
    Optional,
    Timestamp,
)

__all__ = ["call_function", "runtime_cost"]

_TRAVERSAL = 0.1  # cel-go common.StringTraversalCostFactor
_REGEX = 0.25  # cel-go common.RegexStringLengthCostFactor


def _size(value: Any) -> int:
    if isinstance(value, str | bytes | list | dict):
        return len(value)
    raise EvalError("no such overload")


def _optional_of_non_zero(value: Any) -> Optional:
    zero = (
        value in (0, "", b"", False, None)
        or value == []
        or value == {}
        or value == Duration(0)
        or value == Timestamp(ZERO_TIMESTAMP)
    )
    return NONE if zero and not isinstance(value, Optional) else Optional(value, True)


def _value(opt: Any) -> Any:
    if not isinstance(opt, Optional):
        raise EvalError("no such overload")
    if not opt.present:
        raise EvalError("optional.none() dereference")
    return opt.value


def _or(opt: Any, other: Any) -> Any:
    return opt if opt.present else other


def _or_value(opt: Any, other: Any) -> Any:
    return opt.value if opt.present else other


_BUILTINS: dict[str, Callable[..., Any]] = {
    "size": _size,
    "dyn": lambda value: value,
    "optional.of": lambda value: Optional(value, True),
    "optional.ofNonZeroValue": _optional_of_non_zero,
    "optional.none": lambda: NONE,
    "value": _value,
    "hasValue": lambda opt: opt.present,
    "or": _or,
    "orValue": _or_value,
}

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **OPERATORS,
    **_BUILTINS,
    **lib_time.FUNCTIONS,
    **lib_text.FUNCTIONS,
    **lib_quantity.FUNCTIONS,
    **lib_net.FUNCTIONS,
    **lib_format.FUNCTIONS,
}


def call_function(name: str, args: list[Any], member: bool) -> Any:
    """Run ``name`` on ``args``; an argument of the wrong runtime type is ``no such overload``."""
    method = getattr(args[0], "cel_" + name, None) if member and args else None
    implementation = _FUNCTIONS.get(name)
    if method is None and implementation is None:
        raise EvalError("no such overload")
    try:
        if method is not None:
            return method(*args[1:])
        return implementation(*args)  # type: ignore[misc]
    except (TypeError, AttributeError):
        raise EvalError("no such overload") from None


def _size_or_one(value: Any) -> int:
    if isinstance(value, str | bytes | list | dict):
        return len(value)
    size = getattr(value, "cel_size", None)
    return int(size()) if size is not None else 1


def _scaled(size: int, factor: float) -> int:
    return math.ceil(size * factor)


def _traversal_cost(value: Any) -> int:
    """Kubernetes' traversalCost: the list's length, plus each string element's length / 10."""
    if isinstance(value, str | bytes):
        return _scaled(len(value), _TRAVERSAL)
    if isinstance(value, list):
        return sum(1 + (_traversal_cost(v) if isinstance(v, str | bytes) else 0) for v in value)
    return 1


def _format_regex_size(named: Any) -> int:
    """The regex size Kubernetes charges each named format's ``validate`` (its MaxRegexSize)."""
    sizes = {"dns1123Label": 30, "dns1123Subdomain": 60, "dns1035Label": 30, "qualifiedName": 60,
             "dns1123LabelPrefix": 30, "dns1123SubdomainPrefix": 60, "dns1035LabelPrefix": 30,
             "labelValue": 40}  # fmt: skip
    return sizes.get(getattr(named, "name", ""), 1)


def _selector_cost(length: int) -> int:
    """Kubernetes' selectorCostEstimate: parsing, plus ~one requirement per two characters."""
    requirements = _scaled(length, 0.5)
    return 10 + _scaled(length, _TRAVERSAL) + requirements * 50


def runtime_cost(name: str, args: list[Any], result: Any) -> int:
    rule = _COSTS.get(name)
    if rule is not None:
        return rule(args, result)
    return 1


_SCALARS = (int, float, bool)


def _relation_cost(args: list[Any], _result: Any) -> int:
    first = args[0]
    if type(first) in _SCALARS or getattr(first, "cel_type_name", None):
        return 1  # min(size 1, ...) * 0.1, rounded up
    return _scaled(min(_size_or_one(args[0]), _size_or_one(args[1])), _TRAVERSAL)


def _add_cost(args: list[Any], _result: Any) -> int:
    if isinstance(args[0], str | bytes):
        return _scaled(len(args[0]) + len(args[1]), _TRAVERSAL)
    return 1


def _regex_cost(target: Any, pattern: Any) -> int:
    return _scaled(1 + _size_or_one(target), _TRAVERSAL) * _scaled(_size_or_one(pattern), _REGEX)


def _first_scaled(factor: float) -> Callable[[list[Any], Any], int]:
    return lambda args, _result: _scaled(_size_or_one(args[0]), factor)


_ONE: Callable[[list[Any], Any], int] = lambda _args, _result: 1  # noqa: E731
_COSTS: dict[str, Callable[[list[Any], Any], int]] = {
    "_==_": _relation_cost, "_!=_": _relation_cost, "_<_": _relation_cost,
    "_<=_": _relation_cost, "_>_": _relation_cost, "_>=_": _relation_cost,
    "_+_": _add_cost,
    "matches": lambda args, _r: _regex_cost(args[0], args[1]),
    "find": lambda args, _r: _regex_cost(args[0], args[1]),
    "findAll": lambda args, _r: _regex_cost(args[0], args[1]),
    "contains": lambda args, _r: _scaled(_size_or_one(args[0]), _TRAVERSAL)
    * _scaled(_size_or_one(args[1]), _TRAVERSAL),
    "startsWith": lambda args, _r: _scaled(_size_or_one(args[1]), _TRAVERSAL),
    "endsWith": lambda args, _r: _scaled(_size_or_one(args[1]), _TRAVERSAL),
    "@in": lambda args, _r: len(args[1]) if isinstance(args[1], list) else 1,
    "format": _first_scaled(_TRAVERSAL),
    "strings.quote": _first_scaled(_TRAVERSAL),
    "bytes": _first_scaled(_TRAVERSAL),
    "isSorted": lambda args, _r: _traversal_cost(args[0]),
    "sum": lambda args, _r: _traversal_cost(args[0]),
    "min": lambda args, _r: _traversal_cost(args[0]),
    "max": lambda args, _r: _traversal_cost(args[0]),
    "indexOf": lambda args, _r: _traversal_cost(args[0]),
    "lastIndexOf": lambda args, _r: _traversal_cost(args[0]),
    "url": _first_scaled(_TRAVERSAL), "lowerAscii": _first_scaled(_TRAVERSAL),
    "upperAscii": _first_scaled(_TRAVERSAL), "substring": _first_scaled(_TRAVERSAL),
    "trim": _first_scaled(_TRAVERSAL),
    "replace": _first_scaled(2 * _TRAVERSAL), "split": _first_scaled(2 * _TRAVERSAL),
    "join": lambda _args, result: _scaled(_size_or_one(result), 2 * _TRAVERSAL),
    "cidr": _first_scaled(_TRAVERSAL), "isIP": _first_scaled(_TRAVERSAL),
    "isCIDR": _first_scaled(_TRAVERSAL),
    "ip": lambda args, _r: 1 if not isinstance(args[0], str) else _scaled(len(args[0]), _TRAVERSAL),
    "ip.isCanonical": _first_scaled(2 * _TRAVERSAL),
    "quantity": _first_scaled(_TRAVERSAL), "isQuantity": _first_scaled(_TRAVERSAL),
    "check": lambda _args, _r: 350000,
    "fieldSelector": lambda args, _r: _selector_cost(len(args[1])),
    "labelSelector": lambda args, _r: _selector_cost(len(args[1])),
    "sets.contains": lambda args, _r: 1 + len(args[0]) * len(args[1]),
    "sets.intersects": lambda args, _r: 1 + len(args[0]) * len(args[1]),
    "sets.equivalent": lambda args, _r: 1 + 2 * len(args[0]) * len(args[1]),
    "validate": lambda args, _r: _scaled(1 + _size_or_one(args[1]), _TRAVERSAL)
    * _scaled(_format_regex_size(args[0]), _REGEX),
}  # fmt: skip
