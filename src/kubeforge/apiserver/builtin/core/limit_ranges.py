"""LimitRanges as 1.32's ``ValidateLimitRange`` checks them: each item's type (standard or
fully qualified, once each), its resource names, no defaults for ``Pod`` items, a storage
bound for ``PersistentVolumeClaim`` items, and per resource min <= defaultRequest <=
default <= max, ratios of at least 1 and at most max/min, and equal default and default
request for resources that cannot be overcommitted.

Quantities are shown as Go shows them: ``String()`` in the words, ``%#v`` as the value.
Go walks a set of resource names in no fixed order; here they go in sorted order.

Entry point: ``limit_range_errors``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubeforge.apiserver.builtin.podspec.resource_names import overcommit_allowed
from kubeforge.apiserver.builtin.podspec.resources import (
    canonical_quantity,
    container_resource_name_errors,
    go_quantity,
    quantity_value,
    resource_name_errors,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import qualified_name

__all__ = ["limit_range_errors"]

_STANDARD_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_PARTS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")
_MAX_MILLI = (2**63 - 1) // 1000
_POD_DEFAULT = "may not be specified when `type` is 'Pod'"
# (larger, smaller, the error's part, the part whose value it shows, its words), in Go's order
_ORDER = (
    ("min", "max", "min", "min", "min value {min} is greater than max value {max}"),
    (
        "min",
        "defaultRequest",
        "defaultRequest",
        "defaultRequest",
        "min value {min} is greater than default request value {defaultRequest}",
    ),
    (
        "defaultRequest",
        "max",
        "defaultRequest",
        "defaultRequest",
        "default request value {defaultRequest} is greater than max value {max}",
    ),
    (
        "defaultRequest",
        "default",
        "defaultRequest",
        "defaultRequest",
        "default request value {defaultRequest} is greater than default limit value {default}",
    ),
    ("min", "default", "default", "min", "min value {min} is greater than default value {default}"),
    ("default", "max", "default", "max", "default value {default} is greater than max value {max}"),
)
_NO_OVERCOMMIT = (
    "default value {default} must equal to defaultRequest value {defaultRequest} in {name}"
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _type_errors(kind: str, path: str) -> list[FieldError]:
    problems = qualified_name(kind)
    if problems:
        return [FieldError.invalid(path, kind, m) for m in problems]
    if "/" not in kind and kind not in _STANDARD_TYPES:
        return [FieldError.invalid(path, kind, "must be a standard limit type or fully qualified")]
    return []


def _name_errors(kind: str, name: str, path: str) -> list[FieldError]:
    if kind in ("Pod", "Container"):
        return container_resource_name_errors(name, path)
    return resource_name_errors(name, path)


def _value(text: Any) -> Fraction:
    return quantity_value(text) or Fraction(0)


def _milli(text: Any) -> int:
    return -(-_value(text) * 1000 // 1)


def _ratio_limit(ratio: Any, low: Any, high: Any) -> tuple[float, float]:
    """Go's comparison of a ratio with max/min: in milli units unless a value is too big."""
    ratio_value: float = float(-(-_value(ratio) // 1))
    low_value, high_value = -(-_value(low) // 1), -(-_value(high) // 1)
    if max(ratio_value, low_value, high_value) < _MAX_MILLI:
        ratio_value = _milli(ratio) / 1000
        low_value, high_value = _milli(low), _milli(high)
    limit = float(high_value) / float(low_value) if low_value else float("inf")
    return ratio_value, limit


def _go_float(value: float) -> str:
    return "+Inf" if value == float("inf") else f"{value:f}"


def _bound_errors(name: str, found: dict[str, dict[str, Any]], at: str) -> list[FieldError]:
    """The order rules between one resource's min, max, defaults and ratio."""
    given = {part: found[part][name] for part in _PARTS if name in found[part]}
    shown = {part: canonical_quantity(str(value)) for part, value in given.items()}
    errors = [
        FieldError.invalid(
            f"{at}.{where}[{name}]", go_quantity(str(given[value])), words.format(**shown)
        )
        for bigger, smaller, where, value, words in _ORDER
        if bigger in given and smaller in given and _value(given[bigger]) > _value(given[smaller])
    ]
    ratio, low, high = (given.get(p) for p in ("maxLimitRequestRatio", "min", "max"))
    where = f"{at}.maxLimitRequestRatio[{name}]"
    if ratio is not None and _value(ratio) < 1:
        detail = f"ratio {shown['maxLimitRequestRatio']} is less than 1"
        errors.append(FieldError.invalid(where, go_quantity(str(ratio)), detail))
    if ratio is not None and low is not None and high is not None:
        ratio_value, limit = _ratio_limit(ratio, low, high)
        if ratio_value > limit:
            ratio_text = shown["maxLimitRequestRatio"]
            detail = f"ratio {ratio_text} is greater than max/min = {_go_float(limit)}"
            errors.append(FieldError.invalid(where, go_quantity(str(ratio)), detail))
    default, request = given.get("default"), given.get("defaultRequest")
    both = default is not None and request is not None
    if both and not overcommit_allowed(name) and _value(default) != _value(request):
        detail = _NO_OVERCOMMIT.format(**shown, name=name)
        at_request = f"{at}.defaultRequest[{name}]"
        errors.append(FieldError.invalid(at_request, go_quantity(str(request)), detail))
    return errors


def _item_errors(item: dict[str, Any], at: str) -> list[FieldError]:
    kind = str(item.get("type") or "")
    found = {part: _dict(item.get(part)) for part in _PARTS}
    errors: list[FieldError] = []
    for part in ("max", "min"):
        errors += [
            e for name in found[part] for e in _name_errors(kind, name, f"{at}.{part}[{name}]")
        ]
    if kind == "Pod":
        errors += [
            FieldError.forbidden(f"{at}.{part}", _POD_DEFAULT)
            for part in ("default", "defaultRequest")
            if found[part]
        ]
        found["default"], found["defaultRequest"] = {}, {}
    for part in ("default", "defaultRequest") if kind != "Pod" else ():
        errors += [
            e for name in found[part] for e in _name_errors(kind, name, f"{at}.{part}[{name}]")
        ]
    if (
        kind == "PersistentVolumeClaim"
        and "storage" not in found["min"]
        and "storage" not in found["max"]
    ):
        detail = "either minimum or maximum storage value is required, but neither was provided"
        errors.append(FieldError.required(f"{at}.limits", detail))
    ratios = found["maxLimitRequestRatio"]
    errors += [
        e for name in ratios for e in _name_errors(kind, name, f"{at}.maxLimitRequestRatio[{name}]")
    ]
    for name in sorted(set().union(*found.values())):
        errors += _bound_errors(name, found, at)
    return errors


def limit_range_errors(limit_range: dict[str, Any]) -> list[FieldError]:
    """``ValidateLimitRange`` past the metadata."""
    limits = _dict(limit_range.get("spec")).get("limits")
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, item in enumerate(limits if isinstance(limits, list) else ()):
        item = _dict(item)
        at = f"spec.limits[{i}]"
        kind = str(item.get("type") or "")
        errors += _type_errors(kind, f"{at}.type")
        if kind in seen:
            errors.append(FieldError.duplicate(f"{at}.type", kind))
        seen.add(kind)
        errors += _item_errors(item, at)
    return errors
