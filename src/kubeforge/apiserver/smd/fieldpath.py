"""Field paths and field sets: what a manager owns, and the ``FieldsV1`` wire format.

A path is a tuple of elements, each one of

* ``("f", name)`` a field or map key (``f:name`` in FieldsV1, ``.name`` in messages),
* ``("k", ((key, json), ...))`` an item of a keyed list (``k:{"name":"c"}``,
  ``[name="c"]``), key fields sorted by name, values as canonical JSON,
* ``("v", json)`` an item of a set list (``v:"a"``, ``[="a"]``),
* ``("i", n)`` a list position (``i:0``, ``[0]``).

``FieldSet`` is a trie: ``members`` are paths in the set, ``children`` hold deeper
paths, so ``{".": {}}`` in FieldsV1 marks a node that is both. Entry points:
``FieldSet.from_fields_v1``/``to_fields_v1`` and ``path_string`` (conflict messages).
Element order follows structured-merge-diff: fields, then keys, values, indexes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

__all__ = [
    "FieldSet",
    "Path",
    "PathElement",
    "field_element",
    "index_element",
    "key_element",
    "path_string",
    "value_element",
]

PathElement = tuple[str, Any]
Path = tuple[PathElement, ...]

_KIND_ORDER = {"f": 0, "k": 1, "v": 2, "i": 3}


def _json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def field_element(name: str) -> PathElement:
    return ("f", name)


def key_element(keys: dict[str, Any]) -> PathElement:
    return ("k", tuple((name, _json(keys[name])) for name in sorted(keys)))


def value_element(value: Any) -> PathElement:
    return ("v", _json(value))


def index_element(index: int) -> PathElement:
    return ("i", index)


def _value_order(text: str) -> tuple[int, Any]:
    value = orjson.loads(text)
    if value is None:
        return (0, 0)
    if isinstance(value, bool):
        return (3, value)
    if isinstance(value, int | float):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    return (4, text)


def _order(element: PathElement) -> tuple[Any, ...]:
    kind, payload = element
    if kind == "f" or kind == "i":
        return (_KIND_ORDER[kind], payload)
    known = _ORDERS.get(element)
    if known is None:
        # Keys and values are parsed to be ordered: the same few recur on every write.
        if kind == "v":
            known = (2, _value_order(payload))
        else:
            known = (1, tuple((name, _value_order(text)) for name, text in payload))
        _remember(_ORDERS, element, known)
    return known


def _ordered(elements: set[PathElement]) -> list[PathElement]:
    """``elements`` in structured-merge-diff order. Most nodes hold fields only, which
    compare as plain tuples in that order (by name), without a key per element."""
    ordered = sorted(elements)
    if ordered and (ordered[0][0] != "f" or ordered[-1][0] != "f"):
        ordered.sort(key=_order)
    return ordered


def element_string(element: PathElement) -> str:
    """How structured-merge-diff prints one element in messages."""
    kind, payload = element
    if kind == "f":
        return f".{payload}"
    if kind == "k":
        return "[" + ",".join(f"{name}={text}" for name, text in payload) + "]"
    if kind == "v":
        return f"[={payload}]"
    return f"[{payload}]"


def path_string(path: Path) -> str:
    """``.spec.containers[name="c"].image``: the ``field`` of a conflict cause."""
    return "".join(element_string(e) for e in path)


def _encode_element(element: PathElement) -> str:
    kind, payload = element
    if kind == "f":
        return f"f:{payload}"
    if kind == "k":
        known = _KEYS.get(payload)
        if known is None:
            known = "k:{" + ",".join(f"{_json(name)}:{text}" for name, text in payload) + "}"
            _remember(_KEYS, payload, known)
        return known
    if kind == "v":
        return f"v:{payload}"
    return f"i:{payload}"


_ORDERS: dict[PathElement, tuple[Any, ...]] = {}
_KEYS: dict[Any, str] = {}
_ELEMENTS_LIMIT = 4096


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    if len(memo) >= _ELEMENTS_LIMIT:
        memo.clear()
    memo[key] = value


def _decode_element(text: str) -> PathElement:
    kind, sep, rest = text.partition(":")
    if not sep:
        raise ValueError(f"invalid path element {text!r}")
    if kind == "f":
        return ("f", rest)
    if kind == "k":
        keys = orjson.loads(rest)
        if not isinstance(keys, dict):
            raise ValueError(f"invalid key {rest!r}")
        return key_element(keys)
    if kind == "v":
        return value_element(orjson.loads(rest))
    if kind == "i":
        return ("i", int(rest))
    raise ValueError(f"unknown path element kind {kind!r}")


class FieldSet:
    """A set of paths, stored as a trie."""

    __slots__ = ("_encoded", "children", "members")

    def __init__(self) -> None:
        self.members: set[PathElement] = set()
        self.children: dict[PathElement, FieldSet] = {}
        self._encoded: dict[str, Any] | None = None  # FieldsV1, once computed

    # --- building and querying ---------------------------------------------------------

    def insert(self, path: Path) -> None:
        self._encoded = None
        node = self
        for element in path[:-1]:
            child = node.children.get(element)
            if child is None:
                child = node.children[element] = FieldSet()
            node = child
        if path:
            node.members.add(path[-1])

    def insert_tree(self, path: Path, below: FieldSet | None) -> None:
        """Insert ``path`` and every path of ``below`` under it (the set takes ``below``)."""
        self.insert(path)
        if below is None:
            return
        if not path:
            self.members |= below.members
            for element, child in below.children.items():
                mine = self.children.get(element)
                self.children[element] = child if mine is None else mine.union(child)
            return
        parent = self
        for element in path[:-1]:
            parent = parent.children[element]
        mine = parent.children.get(path[-1])
        parent.children[path[-1]] = below if mine is None else mine.union(below)

    def has(self, path: Path) -> bool:
        node: FieldSet | None = self
        for element in path[:-1]:
            node = node.children.get(element) if node is not None else None
            if node is None:
                return False
        return node is not None and bool(path) and path[-1] in node.members

    def has_prefix(self, path: Path) -> bool:
        """Whether the set holds ``path`` or anything below it."""
        node: FieldSet | None = self
        for element in path[:-1]:
            node = node.children.get(element) if node is not None else None
            if node is None:
                return False
        if node is None or not path:
            return not self.empty()
        return path[-1] in node.members or path[-1] in node.children

    def child(self, element: PathElement) -> FieldSet | None:
        return self.children.get(element)

    def empty(self) -> bool:
        return not self.members and not self.children

    def paths(self, prefix: Path = ()) -> Iterator[Path]:
        """Every member path, in structured-merge-diff order."""
        for element in _ordered({*self.members, *self.children}):
            if element in self.members:
                yield (*prefix, element)
            child = self.children.get(element)
            if child is not None:
                yield from child.paths((*prefix, element))

    def copy(self) -> FieldSet:
        result = FieldSet()
        result.members = set(self.members)
        result.children = {k: v.copy() for k, v in self.children.items()}
        return result

    # --- set algebra (results share unchanged subtrees with their inputs: sets built by
    # these operations are never mutated afterwards) ------------------------------------

    def union(self, other: FieldSet) -> FieldSet:
        if other.empty():
            return self
        if self.empty():
            return other
        result = FieldSet()
        result.members = self.members | other.members
        result.children = dict(self.children)
        for element, child in other.children.items():
            mine = result.children.get(element)
            result.children[element] = child if mine is None else mine.union(child)
        return result

    def difference(self, other: FieldSet) -> FieldSet:
        """Paths of ``self`` that are not in ``other`` (exact paths: children stay)."""
        if other.empty() or self.empty():
            return self
        result = FieldSet()
        result.members = self.members - other.members
        for element, child in self.children.items():
            theirs = other.children.get(element)
            rest = child if theirs is None else child.difference(theirs)
            if not rest.empty():
                result.children[element] = rest
        return self if _same(self, result) else result

    def intersection(self, other: FieldSet) -> FieldSet:
        result = FieldSet()
        result.members = self.members & other.members
        for element, child in self.children.items():
            theirs = other.children.get(element)
            if theirs is not None:
                common = child.intersection(theirs)
                if not common.empty():
                    result.children[element] = common
        return result

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """``self`` without the paths of ``other`` and everything below them."""
        if other.empty() or self.empty():
            return self
        result = FieldSet()
        result.members = self.members - other.members
        for element, child in self.children.items():
            if element in other.members:
                continue
            theirs = other.children.get(element)
            rest = child if theirs is None else child.recursive_difference(theirs)
            if not rest.empty():
                result.children[element] = rest
        return self if _same(self, result) else result

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        return self.members == other.members and self.children == other.children

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FieldSet({[path_string(p) for p in self.paths()]})"

    # --- FieldsV1 ---------------------------------------------------------------------

    def to_fields_v1(self) -> dict[str, Any]:
        """The FieldsV1 document (computed once: field sets are not changed once shared)."""
        if self._encoded is None:
            self._encoded = self._encode(include_self=False)
        return self._encoded

    def _encode(self, *, include_self: bool) -> dict[str, Any]:
        members, children = self.members, self.children
        out: dict[str, Any] = {".": {}} if include_self and (members or children) else {}
        for element in _ordered(members | children.keys()):
            child = children.get(element)
            # Fields are most elements: their text is made here, without a call.
            key = f"f:{element[1]}" if element[0] == "f" else _encode_element(element)
            out[key] = {} if child is None else child._encode(include_self=element in members)
        return out

    @classmethod
    def from_fields_v1(cls, document: Any) -> FieldSet:
        """Parse FieldsV1 JSON; ``ValueError`` when it is not a valid field set.

        Parsed sets are cached by their canonical JSON: the same ownership is decoded on
        every write of an object, and a set is never changed once built."""
        key = orjson.dumps(document, option=orjson.OPT_SORT_KEYS)
        cached = _PARSED.get(key)
        if cached is None:
            cached = cls._parse(document)
            if len(_PARSED) >= _PARSED_LIMIT:
                _PARSED.clear()
            _PARSED[key] = cached
        return cached

    @classmethod
    def _parse(cls, document: Any) -> FieldSet:
        if not isinstance(document, dict):
            raise ValueError("FieldsV1 must be an object")
        result = cls()
        for key, value in document.items():
            if key == ".":
                continue
            element = _decode_element(key)
            if not isinstance(value, dict):
                raise ValueError(f"FieldsV1 entry {key!r} must be an object")
            if not value or "." in value:
                result.members.add(element)
            inner = {k: v for k, v in value.items() if k != "."}
            if inner:
                result.children[element] = cls._parse(inner)
        return result


def _same(a: FieldSet, b: FieldSet) -> bool:
    """``b`` (derived from ``a``) kept every member and child of ``a`` unchanged."""
    return (
        a.members == b.members
        and len(a.children) == len(b.children)
        and all(b.children.get(k) is v for k, v in a.children.items())
    )


_PARSED: dict[bytes, FieldSet] = {}
_PARSED_LIMIT = 4096
