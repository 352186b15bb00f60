"""The estimated cost of one call: cel-go's per-overload rules and Kubernetes' per-function ones.

``call_estimate(coster, function, overload_id, target, args, arg_costs)`` returns the
call's cost (its arguments' costs included) and, where known, the size of its result.
Order of precedence as in cel-go: ext.Sets' overload estimators, then Kubernetes'
``EstimateCallCost``, then cel-go's built-in cases, then 1.
"""

from __future__ import annotations

import math

from kubeforge.apiserver.cel.cost_model import MAX, ONE, ZERO, Estimate, Node, Sizer
from kubeforge.apiserver.cel.types import LIBRARY_TYPES, Type

__all__ = ["call_estimate"]

_T = 0.1
_R = 0.25
_UNIT_FUNCTIONS = frozenset(
    [
        "serviceAccount",
        "path",
        "group",
        "resource",
        "subresource",
        "namespace",
        "name",
        "allowed",
        "reason",
        "error",
        "errored",
        "masked",
        "prefixLength",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
        "format.named",
        "sign",
        "asInteger",
        "isInteger",
        "asApproximateFloat",
        "isGreaterThan",
        "isLessThan",
        "compareTo",
        "add",
        "sub",
        "getScheme",
        "getHostname",
        "getHost",
        "getPort",
        "getEscapedPath",
        "getQuery",
    ]
)
_ONE_EQUALITY = frozenset(
    {"net.IP", "net.CIDR", "kubernetes.Quantity"}
    | {name for name in LIBRARY_TYPES if name.startswith("kubernetes.authorization")}
)
Result = tuple[Estimate, Estimate | None]


def call_estimate(
    coster: Sizer,
    function: str,
    overload_id: str,
    target: Node | None,
    args: list[Node],
    arg_costs: list[Estimate],
) -> Result:
    arg_sum = ZERO
    for cost in arg_costs:
        arg_sum = arg_sum + cost
    if function.startswith("sets."):
        factor = 2 if function == "sets.equivalent" else 1
        sizes = coster.k8s_size(args[0]).times(coster.k8s_size(args[1]))
        return sizes.scaled(factor) + ONE + arg_sum, None
    found = _kubernetes(coster, function, overload_id, target, args)
    if found is not None:
        return found[0] + arg_sum, found[1]
    found = _cel_go(coster, function, overload_id, target, args, arg_costs)
    if found is not None:
        cost, result = found
        if isinstance(cost, _Whole):
            return Estimate(cost.min, cost.max), result
        return cost + arg_sum, result
    return ONE + arg_sum, None


def _kubernetes(
    coster: Sizer, function: str, overload_id: str, target: Node | None, args: list[Node]
) -> Result | None:
    size = coster.k8s_size
    if function == "check":
        return Estimate(350000, 350000), None
    if function in _UNIT_FUNCTIONS:
        return ONE, None
    if function in ("fieldSelector", "labelSelector") and len(args) == 1:
        length = size(args[0])
        parse = length.scaled(_T)
        requirements = length.scaled(0.5).scaled(50)
        return Estimate(10, 10) + parse + requirements, None
    if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and target:
        element = _list_element(target)
        if element is None:
            return size(target).scaled(_T), None
        unit = ONE
        if element.type.kind in ("string", "bytes"):
            unit = unit + size(element).scaled(_T)
        return size(target).times(unit), None
    if function == "url" and len(args) == 1:
        length = size(args[0])
        return length.scaled(_T), length
    if function in ("lowerAscii", "upperAscii", "substring", "trim") and target:
        length = size(target)
        return length.scaled(_T), length
    if function == "replace" and target and len(args) >= 2:
        return _replace(size(target), size(args[0]), size(args[1]))
    if function == "split" and target:
        length = size(target)
        most = length.max
        if len(args) > 1 and _int_literal(args[1]) is not None:
            most = _int_literal(args[1]) or 0
        return length.scaled(2 * _T), Estimate(0, most)
    if function == "join" and target:
        return _join(coster, target, args)
    if function in ("find", "findAll") and target and args:
        length = size(target)
        cost = (length + ONE).scaled(_T).times(size(args[0]).scaled(_R))
        return cost, Estimate(0, length.max)
    if function in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity") and args:
        return size(args[0]).scaled(_T), None
    if function == "ip":
        if overload_id == "cidr_ip" or not args:
            return ONE, None
        return size(args[0]).scaled(_T), None
    if function == "ip.isCanonical" and args:
        return size(args[0]).scaled(2 * _T), None
    if function in ("containsIP", "containsCIDR") and target and args:
        return _contains(coster, function, overload_id, args), None
    if function == "validate" and args:
        return size(args[0]).scaled(_T).scaled(128 * _R), None
    if function == "_==_" and len(args) == 2:
        return _library_equality(args)
    return None


def _list_element(target: Node) -> Node | None:
    if target.type.kind != "list":
        return None
    path = [*target.path, "@items"] if target.path else None
    return Node(path, target.type.params[0], None, None)


def _int_literal(node: Node) -> int | None:
    from kubeforge.apiserver.cel.ast import Literal

    expr = node.expr
    if isinstance(expr, Literal) and type(expr.value) is int:
        return int(expr.value)
    return None


def _replace(text: Estimate, old: Estimate, new: Estimate) -> Result:
    count_max = retained_max = count_min = retained_min = 0
    if old.min == 0:
        count_max = text.max + 1 if text.max < MAX else text.max
        retained_max = text.max
    elif new.max <= old.min:
        retained_max = text.max
    else:
        count_max = math.ceil(text.max / old.min)
    if old.max == 0:
        count_min = text.min + 1 if text.min < MAX else text.min
        retained_min = text.min
    elif old.max <= new.min:
        retained_min = text.min
    else:
        count_min = math.ceil(text.min / old.max)
    result = Estimate(count_min, count_max).times(new) + Estimate(retained_min, retained_max)
    return text.scaled(2 * _T), result


def _join(coster: Sizer, target: Node, args: list[Node]) -> Result:
    items = coster.k8s_size(target)
    element = _list_element(target)
    total = ZERO
    if element is not None:
        total = items.times(coster.k8s_size(element))
    if args:
        separators = Estimate(max(items.min - 1, 0), max(items.max - 1, 0))
        total = total + coster.k8s_size(args[0]).times(separators)
    return total.scaled(_T), total


def _contains(coster: Sizer, function: str, overload_id: str, args: list[Node]) -> Estimate:
    address = Estimate(4, 16)
    cost = (address + address).scaled(_T)
    if function == "containsCIDR":
        cost = cost + address.scaled(_T) + ONE
    if overload_id in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
        cost = cost + coster.k8s_size(args[0]).scaled(_T)
    return cost


def _library_equality(args: list[Node]) -> Result | None:
    left, right = args[0].type, args[1].type
    if left != right:
        return None
    if left.name in _ONE_EQUALITY:
        return ONE, None
    if left.name == "kubernetes.NamedFormat":
        return Estimate(1, 64).scaled(_T), None
    if left.name == "kubernetes.URL":
        size = Estimate(1, 1)
        if args[1].computed is not None:
            size = args[1].computed
        return Estimate(1, size.max).scaled(_T), None
    return None


def _is_string_like(t: Type) -> bool:
    return t.kind in ("string", "bytes")


def _cel_go(
    coster: Sizer,
    function: str,
    overload_id: str,
    target: Node | None,
    args: list[Node],
    arg_costs: list[Estimate],
) -> Result | None:
    size = coster.size
    if overload_id == "string_format" and target:
        return size(target).scaled(_T), None
    if overload_id == "string_to_bytes" and len(args) == 1:
        s = size(args[0])
        return s.scaled(_T), Estimate(s.min, _mul_max(s.max, 4))
    if overload_id == "bytes_to_string" and len(args) == 1:
        s = size(args[0])
        return s.scaled(_T), Estimate(s.min // 4, s.max)
    if overload_id == "strings_quote" and len(args) == 1:
        s = size(args[0])
        return s.scaled(_T), Estimate(s.min + 2, _mul_max(s.max, 2) + 2)
    if overload_id in ("starts_with_string", "ends_with_string") and len(args) == 1:
        return size(args[0]).scaled(_T), None
    if overload_id == "in_list" and len(args) == 2:
        return size(args[1]), None
    if overload_id == "matches_string" and target and len(args) == 1:
        text = (size(target) + ONE).scaled(_T)
        return text.times(size(args[0]).scaled(_R)), None
    if overload_id == "contains_string" and target and len(args) == 1:
        return size(target).scaled(_T).times(size(args[0]).scaled(_T)), None
    if overload_id in ("logical_and", "logical_or"):
        left, right = arg_costs
        return _whole(Estimate(left.min, (left + right).max)), None
    if overload_id == "conditional":
        result = size(args[1]).union(size(args[2]))
        return _whole(arg_costs[0] + arg_costs[1].union(arg_costs[2])), result
    if overload_id in ("add_string", "add_bytes", "add_list") and len(args) == 2:
        result = size(args[0]) + size(args[1])
        if overload_id == "add_list":
            return ONE, result
        return result.scaled(_T), result
    if _comparison(function, args):
        left, right = size(args[0]), size(args[1])
        smallest = min(left.max, right.max)
        return Estimate(1 if smallest > 0 else 0, smallest).scaled(_T), None
    return None


def _comparison(function: str, args: list[Node]) -> bool:
    if function in ("_==_", "_!=_"):
        return True
    relation = function in ("_<_", "_<=_", "_>_", "_>=_")
    return relation and len(args) == 2 and all(_is_string_like(a.type) for a in args)


def _mul_max(a: int, b: int) -> int:
    return min(MAX, a * b)


class _Whole(Estimate):
    """A cost that already includes the arguments' costs."""


def _whole(estimate: Estimate) -> Estimate:
    return _Whole(estimate.min, estimate.max)
