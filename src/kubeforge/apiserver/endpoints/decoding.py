"""Request bodies decoded as kube-apiserver decodes them, within the limits its decoders keep.

Entry points: ``decode_json(raw)`` and ``decode_yaml(raw)``; both return plain JSON
data (dicts with string keys, lists, str, int, float, bool, None) or raise
``DecodeError`` with the message the real decoder gives. The limits, and why:

* Nesting: Go's ``encoding/json`` stops at depth 10,000 ("exceeded max depth") and
  go-yaml at 10,000 too; this server's own rules recurse in Python, so both stop at
  ``MAX_DEPTH`` (in the same words) instead of failing later with a 500.
* YAML aliases: sigs.k8s.io/yaml decodes with go-yaml v2, which counts the nodes it
  decodes and those that alias expansion produces, and stops a document when more
  than a share of them (99% up to 400,000 nodes, falling to 10% at 4,000,000) come
  from aliases: "yaml: document contains excessive aliasing". The same count is made
  here over the composed graph (each anchor's size computed once), before anything
  is expanded, so a 500-byte bomb costs nothing.
* YAML values go to JSON as sigs.k8s.io/yaml sends them: mapping keys become strings
  (``1`` -> ``"1"``, ``true`` -> ``"true"``), timestamps stay the text they were
  written as (go-yaml v2 keeps them as strings), ``!!binary`` becomes its decoded
  text, ``!!set`` a mapping to nulls, integers beyond 64 bits floats; infinities and
  NaN cannot be JSON ("json: unsupported value: +Inf") and an escaped lone surrogate
  is no character ("found invalid Unicode character escape code"); in JSON, Go's
  decoder puts U+FFFD in its place, and so does ``decode_json``.

>>> decode_yaml(b"a: &x [1, 2]\\nb: *x\\n1: one\\n")
{'a': [1, 2], 'b': [1, 2], '1': 'one'}
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson
import yaml

__all__ = ["MAX_DEPTH", "DecodeError", "decode_json", "decode_yaml"]

MAX_DEPTH = 100
"""Deepest nesting of arrays and objects accepted in a body (the real decoders: 10,000)."""

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT64_MIN, _UINT64_MAX = -(2**63), 2**64 - 1
_ALIAS_RATIO_LOW, _ALIAS_RATIO_HIGH = 400_000, 4_000_000


class DecodeError(ValueError):
    """The body cannot be decoded; the message is the real decoder's."""


# --- JSON ----------------------------------------------------------------------------------


def decode_json(raw: bytes) -> Any:
    """``raw`` as JSON; ``DecodeError`` for malformed or too deeply nested documents."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        if "depth" in str(error) or "recursion" in str(error):
            raise DecodeError("exceeded max depth") from None
        if "surrogate" not in str(error):
            raise DecodeError(str(error)) from None
        value = _with_replaced_surrogates(raw, error)
    # Depth can only exceed the limit when there are more brackets than the limit.
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise DecodeError("exceeded max depth")
    return value


def _with_replaced_surrogates(raw: bytes, error: Exception) -> Any:
    """JSON with an escaped lone surrogate: Go's decoder puts U+FFFD in its place."""

    def refuse(constant: str) -> Any:
        raise DecodeError(str(error))  # NaN and Infinity are not JSON, in Go either

    try:
        value = json.loads(raw, parse_constant=refuse)
    except (ValueError, RecursionError):
        raise DecodeError(str(error)) from None
    return _replace_surrogates(value)


def _replace_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    return value


def _depth(value: Any) -> int:
    """Nesting depth of decoded JSON, without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


# --- YAML ----------------------------------------------------------------------------------


def decode_yaml(raw: bytes) -> Any:
    """``raw`` as YAML, as sigs.k8s.io/yaml turns it into JSON data."""
    try:
        _check_event_depth(raw)
        node = yaml.compose(raw, Loader=_Loader)
        if node is None:
            return None
        _check_graph(node)
        value = _Constructor().construct_document(node)
    except yaml.YAMLError as error:
        raise DecodeError(_yaml_message(error)) from None
    # A round trip gives every alias its own copy, as go-yaml decodes them (the
    # server changes objects in place); the alias check above bounds the copies.
    return orjson.loads(orjson.dumps(value))


def _yaml_message(error: yaml.YAMLError) -> str:
    if isinstance(error, _Refused):
        return str(error)
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or getattr(error, "reason", None) or str(error)
    where = f"line {mark.line + 1}: " if mark is not None else ""
    return f"yaml: {where}" + " ".join(str(problem).split())


class _Refused(yaml.YAMLError):
    """A document go-yaml or the JSON encoder would refuse; the message is theirs."""


def _check_event_depth(raw: bytes) -> None:
    """Refuse deep nesting before composing (PyYAML's composer recurses per level)."""
    depth = 0
    for event in yaml.parse(raw, Loader=_Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _Refused(f"yaml: exceeded max depth of {MAX_DEPTH}")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _allowed_alias_ratio(decoded: int) -> float:
    """go-yaml v2's ``allowedAliasRatio``."""
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    span = _ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / span


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class _Graph:
    """Expanded sizes and depths of composed nodes (aliases are shared node objects)."""

    def __init__(self) -> None:
        self.size: dict[int, int] = {}
        self.depth: dict[int, int] = {}
        self.open: set[int] = set()

    def measure(self, node: yaml.Node) -> None:
        key = id(node)
        if key in self.size:
            return
        if key in self.open:
            raise _Refused("yaml: anchor value contains itself")
        self.open.add(key)
        children = _children(node)
        for child in children:
            self.measure(child)
        self.open.discard(key)
        self.size[key] = 1 + sum(self.size[id(child)] for child in children)
        collection = 1 if isinstance(node, yaml.CollectionNode) else 0
        self.depth[key] = collection + max((self.depth[id(c)] for c in children), default=0)


def _check_graph(root: yaml.Node) -> None:
    """go-yaml's alias budget and the depth limit, over the graph as decoding would walk it."""
    graph = _Graph()
    graph.measure(root)
    if graph.depth[id(root)] > MAX_DEPTH:
        raise _Refused(f"yaml: exceeded max depth of {MAX_DEPTH}")
    decoded = aliased = 0
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias: the whole anchored value is decoded again
            decoded += 1 + graph.size[id(node)]
            aliased += graph.size[id(node)]
        else:
            seen.add(id(node))
            decoded += 1
            stack.extend(reversed(_children(node)))
        if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
            raise _Refused("yaml: document contains excessive aliasing")


class _Constructor(yaml.constructor.SafeConstructor):
    """Python values shaped as sigs.k8s.io/yaml hands them to JSON."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark
            )
        self.flatten_mapping(node)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            mapping[_json_key(key, key_node)] = self.construct_object(value_node, deep=deep)
        return mapping

    def json_str(self, node: yaml.ScalarNode) -> str:
        text = str(self.construct_scalar(node))
        if _SURROGATE.search(text):
            line = node.start_mark.line + 1
            raise _Refused(f"yaml: line {line}: found invalid Unicode character escape code")
        return text

    def json_int(self, node: yaml.ScalarNode) -> int | float:
        value = self.construct_yaml_int(node)
        # go-yaml resolves an integer that fits no 64-bit type as a float.
        return value if _INT64_MIN <= value <= _UINT64_MAX else float(value)

    def json_float(self, node: yaml.ScalarNode) -> float:
        value = float(self.construct_yaml_float(node))
        if math.isinf(value) or math.isnan(value):
            shown = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
            raise _Refused(f"json: unsupported value: {shown}")
        return value

    def json_timestamp(self, node: yaml.ScalarNode) -> str:
        return str(self.construct_scalar(node))  # go-yaml v2 keeps timestamps as text

    def json_binary(self, node: yaml.ScalarNode) -> str:
        data = self.construct_yaml_binary(node)
        return data.decode("utf-8", errors="replace")  # as Go's JSON encoder writes bytes

    def json_set(self, node: yaml.MappingNode) -> Any:
        data: dict[str, Any] = {}
        yield data
        data.update(self.construct_mapping(node))

    def json_omap(self, node: yaml.Node) -> Any:
        pairs: list[dict[str, Any]] = []
        yield pairs
        if not isinstance(node, yaml.SequenceNode):
            raise yaml.constructor.ConstructorError(
                None, None, "expected a sequence of mappings", node.start_mark
            )
        for item in node.value:
            pairs.append(self.construct_mapping(item, deep=True))


_CONSTRUCTORS: dict[str, Any] = {
    "str": _Constructor.json_str,
    "int": _Constructor.json_int,
    "float": _Constructor.json_float,
    "timestamp": _Constructor.json_timestamp,
    "binary": _Constructor.json_binary,
    "set": _Constructor.json_set,
    "omap": _Constructor.json_omap,
    "pairs": _Constructor.json_omap,
}
for _name, _method in _CONSTRUCTORS.items():
    _Constructor.add_constructor(f"tag:yaml.org,2002:{_name}", _method)


def _json_key(key: Any, node: yaml.Node) -> str:
    """A mapping key as sigs.k8s.io/yaml writes it into JSON."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return repr(key)
    shown = "<nil>" if key is None else repr(key)
    raise _Refused(f"yaml: invalid map key: {shown}")
