"""Every function and operator a Kubernetes 1.32 CEL environment declares, with its overloads.

The set is the one ``k8s.io/apiserver/pkg/cel/environment/base.go`` (v0.32.0) enables
for new expressions (compatibility version 1.31): CEL's standard library, optional
types, cross-type numeric comparisons, cel-go's string extensions (version 2) and
sets, and Kubernetes' URLs, regex, lists, authorizer (+ selectors), quantity, IP,
CIDR and format libraries. Two-variable comprehensions (1.32) and semver (1.33+)
are absent, as they are for a new rule on a 1.32 server.

A declaration line reads ``"[target.](arg, ...) -> result [#overload_id]"``; the
overload id is given only where Kubernetes' cost model looks it up.

Entry point: ``FUNCTIONS``: name -> list of ``Overload``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kubeforge.apiserver.cel.types import Type, parse_type

__all__ = ["FUNCTIONS", "Overload"]


@dataclass(frozen=True)
class Overload:
    id: str
    member: bool  # called as target.f(args); the target is params[0]
    params: tuple[Type, ...]
    result: Type


_COMPARABLE = ("bool", "int", "uint", "double", "string", "bytes", "timestamp", "duration")
_NUMERIC_PAIRS = [(a, b) for a in ("int", "uint", "double") for b in ("int", "uint", "double")]


def _relations() -> list[str]:
    same = [f"({t}, {t}) -> bool" for t in _COMPARABLE]
    cross = [f"({a}, {b}) -> bool" for a, b in _NUMERIC_PAIRS if a != b]
    return same + cross


_STANDARD: dict[str, list[str]] = {
    "!_": ["(bool) -> bool"],
    "-_": ["(int) -> int", "(double) -> double"],
    "_&&_": ["(bool, bool) -> bool #logical_and"],
    "_||_": ["(bool, bool) -> bool #logical_or"],
    "_?_:_": ["(bool, A, A) -> A #conditional"],
    "_==_": ["(A, A) -> bool #equals"],
    "_!=_": ["(A, A) -> bool #not_equals"],
    "_<_": _relations(),
    "_<=_": _relations(),
    "_>_": _relations(),
    "_>=_": _relations(),
    "_+_": [
        "(int, int) -> int", "(uint, uint) -> uint", "(double, double) -> double",
        "(string, string) -> string #add_string", "(bytes, bytes) -> bytes #add_bytes",
        "(list(A), list(A)) -> list(A) #add_list",
        "(timestamp, duration) -> timestamp", "(duration, timestamp) -> timestamp",
        "(duration, duration) -> duration",
    ],
    "_-_": [
        "(int, int) -> int", "(uint, uint) -> uint", "(double, double) -> double",
        "(timestamp, timestamp) -> duration", "(timestamp, duration) -> timestamp",
        "(duration, duration) -> duration",
    ],
    "_*_": ["(int, int) -> int", "(uint, uint) -> uint", "(double, double) -> double"],
    "_/_": ["(int, int) -> int", "(uint, uint) -> uint", "(double, double) -> double"],
    "_%_": ["(int, int) -> int", "(uint, uint) -> uint"],
    "_[_]": ["(list(A), int) -> A #index_list", "(map(K, V), K) -> V #index_map",
             "(optional(list(V)), int) -> optional(V)",
             "(optional(map(K, V)), K) -> optional(V)"],
    "@in": ["(A, list(A)) -> bool #in_list", "(K, map(K, V)) -> bool #in_map"],
    "@not_strictly_false": ["(bool) -> bool"],
    "size": [
        "(string) -> int", "(bytes) -> int", "(list(A)) -> int", "(map(K, V)) -> int",
        "string.() -> int", "bytes.() -> int", "list(A).() -> int", "map(K, V).() -> int",
    ],
    "int": ["(int) -> int", "(uint) -> int", "(double) -> int", "(string) -> int",
            "(timestamp) -> int"],
    "uint": ["(uint) -> uint", "(int) -> uint", "(double) -> uint", "(string) -> uint"],
    "double": ["(double) -> double", "(int) -> double", "(uint) -> double",
               "(string) -> double"],
    "string": ["(string) -> string", "(int) -> string", "(uint) -> string",
               "(double) -> string", "(bool) -> string", "(bytes) -> string #bytes_to_string",
               "(timestamp) -> string", "(duration) -> string",
               "(net.IP) -> string", "(net.CIDR) -> string"],
    "bytes": ["(bytes) -> bytes", "(string) -> bytes #string_to_bytes"],
    "bool": ["(bool) -> bool", "(string) -> bool"],
    "duration": ["(duration) -> duration", "(string) -> duration"],
    "timestamp": ["(timestamp) -> timestamp", "(string) -> timestamp", "(int) -> timestamp"],
    "dyn": ["(A) -> dyn"],
    "type": ["(A) -> type(A)"],
    "contains": ["string.(string) -> bool #contains_string"],
    "startsWith": ["string.(string) -> bool #starts_with_string"],
    "endsWith": ["string.(string) -> bool #ends_with_string"],
    "matches": ["string.(string) -> bool #matches_string", "(string, string) -> bool"],
}  # fmt: skip

_TIME_PARTS = ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate",
               "getDayOfWeek")  # fmt: skip
_CLOCK_PARTS = ("getHours", "getMinutes", "getSeconds", "getMilliseconds")
for _part in _TIME_PARTS:
    _STANDARD[_part] = ["timestamp.() -> int", "timestamp.(string) -> int"]
for _part in _CLOCK_PARTS:
    _STANDARD[_part] = ["timestamp.() -> int", "timestamp.(string) -> int", "duration.() -> int"]

_OPTIONAL: dict[str, list[str]] = {
    "optional.of": ["(A) -> optional(A)"],
    "optional.ofNonZeroValue": ["(A) -> optional(A)"],
    "optional.none": ["() -> optional(A)"],
    "value": ["optional(A).() -> A"],
    "hasValue": ["optional(A).() -> bool"],
    "or": ["optional(A).(optional(A)) -> optional(A)"],
    "orValue": ["optional(A).(A) -> A"],
    "_[?_]": ["(map(K, V), K) -> optional(V)", "(list(V), int) -> optional(V)",
              "(optional(map(K, V)), K) -> optional(V)", "(optional(list(V)), int) -> optional(V)"],
}  # fmt: skip

_STRINGS: dict[str, list[str]] = {
    "charAt": ["string.(int) -> string"],
    "indexOf": ["string.(string) -> int", "string.(string, int) -> int"],
    "lastIndexOf": ["string.(string) -> int", "string.(string, int) -> int"],
    "lowerAscii": ["string.() -> string"],
    "upperAscii": ["string.() -> string"],
    "replace": ["string.(string, string) -> string", "string.(string, string, int) -> string"],
    "split": ["string.(string) -> list(string)", "string.(string, int) -> list(string)"],
    "substring": ["string.(int) -> string", "string.(int, int) -> string"],
    "trim": ["string.() -> string"],
    "join": ["list(string).() -> string", "list(string).(string) -> string"],
    "format": ["string.(list(dyn)) -> string #string_format"],
    "strings.quote": ["(string) -> string #strings_quote"],
    "sets.contains": ["(list(A), list(A)) -> bool"],
    "sets.equivalent": ["(list(A), list(A)) -> bool"],
    "sets.intersects": ["(list(A), list(A)) -> bool"],
}  # fmt: skip

_SORTABLE = ("int", "uint", "double", "bool", "string", "bytes", "duration", "timestamp")
_KUBERNETES: dict[str, list[str]] = {
    "isSorted": [f"list({t}).() -> bool" for t in _SORTABLE],
    "sum": [f"list({t}).() -> {t}" for t in ("int", "uint", "double", "duration")],
    "min": [f"list({t}).() -> {t}" for t in _SORTABLE],
    "max": [f"list({t}).() -> {t}" for t in _SORTABLE],
    "find": ["string.(string) -> string"],
    "findAll": ["string.(string) -> list(string)", "string.(string, int) -> list(string)"],
    "url": ["(string) -> kubernetes.URL"],
    "isURL": ["(string) -> bool"],
    "getScheme": ["kubernetes.URL.() -> string"],
    "getHost": ["kubernetes.URL.() -> string"],
    "getHostname": ["kubernetes.URL.() -> string"],
    "getPort": ["kubernetes.URL.() -> string"],
    "getEscapedPath": ["kubernetes.URL.() -> string"],
    "getQuery": ["kubernetes.URL.() -> map(string, list(string))"],
    "quantity": ["(string) -> kubernetes.Quantity"],
    "isQuantity": ["(string) -> bool"],
    "sign": ["kubernetes.Quantity.() -> int"],
    "isInteger": ["kubernetes.Quantity.() -> bool"],
    "asInteger": ["kubernetes.Quantity.() -> int"],
    "asApproximateFloat": ["kubernetes.Quantity.() -> double"],
    "isLessThan": ["kubernetes.Quantity.(kubernetes.Quantity) -> bool"],
    "isGreaterThan": ["kubernetes.Quantity.(kubernetes.Quantity) -> bool"],
    "compareTo": ["kubernetes.Quantity.(kubernetes.Quantity) -> int"],
    "add": ["kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity",
            "kubernetes.Quantity.(int) -> kubernetes.Quantity"],
    "sub": ["kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity",
            "kubernetes.Quantity.(int) -> kubernetes.Quantity"],
    "ip": ["(string) -> net.IP #string_to_ip", "net.CIDR.() -> net.IP #cidr_ip"],
    "isIP": ["(string) -> bool"],
    "ip.isCanonical": ["(string) -> bool"],
    "family": ["net.IP.() -> int"],
    "isUnspecified": ["net.IP.() -> bool"],
    "isLoopback": ["net.IP.() -> bool"],
    "isLinkLocalMulticast": ["net.IP.() -> bool"],
    "isLinkLocalUnicast": ["net.IP.() -> bool"],
    "isGlobalUnicast": ["net.IP.() -> bool"],
    "cidr": ["(string) -> net.CIDR"],
    "isCIDR": ["(string) -> bool"],
    "containsIP": ["net.CIDR.(string) -> bool #cidr_contains_ip_string",
                   "net.CIDR.(net.IP) -> bool #cidr_contains_ip_ip"],
    "containsCIDR": ["net.CIDR.(string) -> bool #cidr_contains_cidr_string",
                     "net.CIDR.(net.CIDR) -> bool #cidr_contains_cidr"],
    "masked": ["net.CIDR.() -> net.CIDR"],
    "prefixLength": ["net.CIDR.() -> int"],
    "format.named": ["(string) -> optional(kubernetes.NamedFormat)"],
    "validate": ["kubernetes.NamedFormat.(string) -> optional(list(string))"],
    "path": ["kubernetes.authorization.Authorizer.(string) -> "
             "kubernetes.authorization.PathCheck"],
    "group": ["kubernetes.authorization.Authorizer.(string) -> "
              "kubernetes.authorization.GroupCheck"],
    "serviceAccount": ["kubernetes.authorization.Authorizer.(string, string) -> "
                       "kubernetes.authorization.Authorizer"],
    "resource": ["kubernetes.authorization.GroupCheck.(string) -> "
                 "kubernetes.authorization.ResourceCheck"],
    "subresource": ["kubernetes.authorization.ResourceCheck.(string) -> "
                    "kubernetes.authorization.ResourceCheck"],
    "namespace": ["kubernetes.authorization.ResourceCheck.(string) -> "
                  "kubernetes.authorization.ResourceCheck"],
    "name": ["kubernetes.authorization.ResourceCheck.(string) -> "
             "kubernetes.authorization.ResourceCheck"],
    "fieldSelector": ["kubernetes.authorization.ResourceCheck.(string) -> "
                      "kubernetes.authorization.ResourceCheck"],
    "labelSelector": ["kubernetes.authorization.ResourceCheck.(string) -> "
                      "kubernetes.authorization.ResourceCheck"],
    "check": ["kubernetes.authorization.PathCheck.(string) -> kubernetes.authorization.Decision",
              "kubernetes.authorization.ResourceCheck.(string) -> "
              "kubernetes.authorization.Decision"],
    "allowed": ["kubernetes.authorization.Decision.() -> bool"],
    "errored": ["kubernetes.authorization.Decision.() -> bool"],
    "reason": ["kubernetes.authorization.Decision.() -> string"],
    "error": ["kubernetes.authorization.Decision.() -> string"],
}  # fmt: skip
# Kubernetes' list library also declares indexOf/lastIndexOf on lists of any element type.
_KUBERNETES_EXTRA = {
    "indexOf": ["list(A).(A) -> int"],
    "lastIndexOf": ["list(A).(A) -> int"],
}
# format.<name>() for each of the named formats of the format library.
FORMAT_NAMES = (
    "dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName",
    "dns1123LabelPrefix", "dns1123SubdomainPrefix", "dns1035LabelPrefix",
    "labelValue", "uri", "uuid", "byte", "date", "datetime",
)  # fmt: skip
for _name in FORMAT_NAMES:
    _KUBERNETES[f"format.{_name}"] = ["() -> kubernetes.NamedFormat"]

_LINE = re.compile(
    r"^(?:(?P<target>.+?)\.)?\((?P<args>.*)\) -> (?P<result>[^#]+?)(?: #(?P<id>\S+))?$"
)


def _overloads(name: str, lines: list[str]) -> list[Overload]:
    out = []
    for n, line in enumerate(lines):
        match = _LINE.match(line)
        if match is None:
            raise ValueError(line)
        params = [parse_type(a) for a in _split_args(match["args"])]
        member = match["target"] is not None
        if member:
            params.insert(0, parse_type(match["target"]))
        out.append(
            Overload(
                match["id"] or f"{name}_{n}", member, tuple(params), parse_type(match["result"])
            )
        )
    return out


def _split_args(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    if current.strip():
        parts.append(current)
    return [p.strip() for p in parts]


def _table() -> dict[str, list[Overload]]:
    table: dict[str, list[Overload]] = {}
    for group in (_STANDARD, _OPTIONAL, _STRINGS, _KUBERNETES, _KUBERNETES_EXTRA):
        for name, lines in group.items():
            table.setdefault(name, []).extend(_overloads(name, lines))
    return table


FUNCTIONS: dict[str, list[Overload]] = _table()
