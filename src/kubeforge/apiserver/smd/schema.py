"""How each node of an object merges: the type model server-side apply and strategic
merge patch share.

An ``Atom`` describes one node: a scalar, a map (a struct's named ``fields`` plus an
``element`` type for other keys), a list (``atomic``, ``set`` or ``map`` keyed by
``keys``) or ``any`` (free-form JSON, "deduced" from the value: objects merge key by
key, lists are atomic). Strategic-merge hints of the field holding the node ride on
the atom (``strategy``, ``merge_key``).

Entry points: ``builtin_root(group, version, kind)`` (from ``builtin_types.json``,
generated from the Kubernetes 1.32 OpenAPI), ``crd_root(openapi_v3_schema)`` (a CRD
version's structural schema; lists without ``x-kubernetes-list-type`` are atomic) and
``ANY`` for kinds nothing is known about. ``prune_unknown(obj, atom)`` drops what a
type does not declare, at any depth, as decoding into the Go types does.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

import orjson

__all__ = ["ANY", "SCALAR", "Atom", "builtin_root", "crd_root", "object_meta", "prune_unknown"]

_TABLE = "builtin_types.json"
_OBJECT_META = "meta.v1.ObjectMeta"


@dataclass(eq=False)
class Atom:
    """One node's merge rules. ``kind``: ``scalar`` | ``map`` | ``list`` | ``any``."""

    kind: str
    atomic: bool = False
    """Maps and lists: replaced (and owned) as one value rather than merged."""
    fields: Mapping[str, Atom] = field(default_factory=dict)
    """Maps: the declared fields (a struct); other keys use ``element``."""
    element: Atom | None = None
    """Maps: the type of undeclared keys (None: undeclared keys are not allowed).
    Lists: the item type."""
    list_type: str = "atomic"
    keys: tuple[str, ...] = ()
    key_defaults: Mapping[str, Any] = field(default_factory=dict)
    strategy: str = ""
    """Strategic merge patch strategy of the field holding this node
    (``merge``, ``replace``, ``retainKeys``, ``merge,retainKeys``)."""
    merge_key: str = ""
    go: str = ""
    """Built-ins: the Go type a scalar or struct decodes into (``int32``, ``v1.PodSpec``);
    empty where nothing is known (custom resources, free-form JSON)."""

    def child(self, key: str) -> Atom | None:
        """The type of map key ``key`` (None: not declared and no element type)."""
        found = self.fields.get(key)
        if found is not None:
            return found
        if self.kind == "any":
            return ANY
        return self.element

    def declares(self, key: str) -> bool:
        return key in self.fields

    @property
    def merging_list(self) -> bool:
        """A list strategic merge patch merges item by item (rather than replacing)."""
        return "merge" in self.strategy.split(",")

    @property
    def retains_keys(self) -> bool:
        return "retainKeys" in self.strategy.split(",")

    def resolve(self, value: Any) -> str:
        """The effective kind for ``value``: ``any`` becomes map, list (atomic) or scalar."""
        if self.kind != "any":
            return self.kind
        if isinstance(value, dict):
            return "map"
        if isinstance(value, list):
            return "list"
        return "scalar"

    def is_leaf(self, value: Any) -> bool:
        """Owned and compared as one value: scalars, atomic nodes, free-form lists."""
        kind = self.resolve(value)
        if kind == "scalar":
            return True
        if kind == "list":
            return self.atomic or self.kind == "any" or self.list_type == "atomic"
        return self.atomic


SCALAR = Atom("scalar")
ANY = Atom("any")


_MISSING = object()


class _LazyFields(Mapping[str, Atom]):
    """A struct's fields, each resolved from the table on first access (types recurse)."""

    def __init__(self, table: _Table, specs: Mapping[str, Any]) -> None:
        self._table = table
        self._specs = specs
        self._resolved: dict[str, Atom] = {}

    def __getitem__(self, key: str) -> Atom:
        atom: Atom | None = self.get(key)
        if atom is None:
            raise KeyError(key)
        return atom

    def get(self, key: str, default: Any = None) -> Any:
        # Mapping's own get goes through __getitem__ and a KeyError for every undeclared
        # key: walking a body meets many (every key of a map-valued field such as data).
        atom = self._resolved.get(key)
        if atom is None:
            spec = self._specs.get(key, _MISSING)
            if spec is _MISSING:
                return default
            atom = self._resolved[key] = self._table.spec(spec)
        return atom

    def __iter__(self) -> Any:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, key: object) -> bool:
        return key in self._specs


class _Table:
    def __init__(self, document: dict[str, Any]) -> None:
        self.kinds: dict[str, str] = document["kinds"]
        self.types: dict[str, dict[str, Any]] = document["types"]
        self._named: dict[str, Atom] = {}
        self._scalars: dict[str, Atom] = {}

    def scalar(self, go: str) -> Atom:
        atom = self._scalars.get(go)
        if atom is None:
            atom = self._scalars[go] = Atom("scalar", go=go)
        return atom

    def named(self, name: str) -> Atom:
        atom = self._named.get(name)
        if atom is None:
            entry = self.types[name]
            atom = Atom(
                "map",
                atomic=bool(entry.get("atomic")),
                fields=_LazyFields(self, entry.get("fields") or {}),
                go=".".join(name.split(".")[-2:]),  # core.v1.PodSpec -> v1.PodSpec
            )
            self._named[name] = atom
        return atom

    def spec(self, spec: Any) -> Atom:
        if spec == "any":
            return ANY
        if isinstance(spec, str):
            return self.scalar(spec[1:]) if spec.startswith("=") else self.named(spec)
        if "ref" in spec:
            return replace(self.named(spec["ref"]), strategy=spec.get("strategy", ""))
        if "map" in spec:
            return Atom("map", atomic=bool(spec.get("atomic")), element=self.spec(spec["map"]))
        return Atom(
            "list",
            element=self.spec(spec["list"]),
            list_type=spec.get("type", "atomic"),
            keys=tuple(spec.get("keys") or ()),
            key_defaults=spec.get("keyDefaults") or {},
            strategy=spec.get("strategy", ""),
            merge_key=spec.get("mergeKey", ""),
        )


@functools.cache
def _table() -> _Table:
    raw = resources.files(__package__).joinpath(_TABLE).read_bytes()
    return _Table(orjson.loads(raw))


def builtin_root(group: str, version: str, kind: str) -> Atom | None:
    """The type of a built-in kind of Kubernetes 1.32, or None if it is not one."""
    table = _table()
    name = table.kinds.get(f"{group}/{version}/{kind}")
    return table.named(name) if name is not None else None


def object_meta() -> Atom:
    return _table().named(_OBJECT_META)


# --- custom resources ------------------------------------------------------------------

_crd_cache: dict[int, tuple[dict[str, Any], Atom]] = {}


def crd_root(schema: dict[str, Any] | None) -> Atom:
    """The type of a custom resource whose version has ``openAPIV3Schema`` ``schema``."""
    if schema is None:
        return _with_object_fields(Atom("map", element=ANY))
    cached = _crd_cache.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    root = _with_object_fields(_compile(schema))
    if len(_crd_cache) > 256:  # CRDs come and go in long test sessions
        _crd_cache.clear()
    _crd_cache[id(schema)] = (schema, root)
    return root


def _with_object_fields(atom: Atom) -> Atom:
    fields = dict(atom.fields)
    fields.setdefault("apiVersion", SCALAR)
    fields.setdefault("kind", SCALAR)
    fields["metadata"] = object_meta()
    return replace(atom, fields=fields)


def _compile(schema: dict[str, Any]) -> Atom:
    if schema.get("x-kubernetes-int-or-string"):
        return SCALAR
    type_ = schema.get("type")
    preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
    if type_ == "array":
        items = schema.get("items")
        list_type = schema.get("x-kubernetes-list-type", "atomic")
        return Atom(
            "list",
            element=_compile(items) if isinstance(items, dict) else ANY,
            list_type=list_type,
            keys=tuple(schema.get("x-kubernetes-list-map-keys") or ()),
            key_defaults=_key_defaults(items, schema),
        )
    if type_ == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        element: Atom | None = None
        if isinstance(additional, dict):
            element = _compile(additional)
        elif preserve or additional is True:
            element = ANY
        atom = Atom(
            "map",
            atomic=schema.get("x-kubernetes-map-type") == "atomic",
            fields={k: _compile(v) for k, v in properties.items() if isinstance(v, dict)},
            element=element,
        )
        if schema.get("x-kubernetes-embedded-resource"):
            return _with_object_fields(atom)
        return atom
    if type_ is None and preserve:
        return ANY
    return SCALAR


def _key_defaults(items: Any, schema: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(items, dict):
        return {}
    properties = items.get("properties") or {}
    return {
        key: properties[key]["default"]
        for key in schema.get("x-kubernetes-list-map-keys") or ()
        if isinstance(properties.get(key), dict) and "default" in properties[key]
    }


# --- unknown fields -------------------------------------------------------------------


def prune_unknown(obj: Any, atom: Atom, path: str = "") -> list[str]:
    """Drop fields ``atom`` does not declare, at any depth, as decoding into the Go types
    does; returns their paths (``spec.containers[0].imagee``) for field validation.
    ``path`` is where ``obj`` sits in its object (``status``), when it is a part of one."""
    dropped: list[str] = []
    if _has_unknown(obj, atom):  # rarely: the walk that names what it drops only then
        _prune(obj, atom, path, dropped)
    return dropped


_LEAVES = ("any", "scalar")  # nothing is unknown below them


def _child(atom: Atom, key: str) -> Atom | None:
    fields = atom.fields
    # A struct's fields already met are a plain dict: a C lookup, not a method call.
    resolved = fields._resolved if isinstance(fields, _LazyFields) else fields
    return resolved.get(key) or fields.get(key) or atom.element


def _has_unknown(value: Any, atom: Atom) -> bool:
    if isinstance(value, dict) and atom.kind == "map":
        fields, element = atom.fields, atom.element
        # A struct's fields already met are a plain dict: a C lookup, not a method call.
        resolved = fields._resolved if isinstance(fields, _LazyFields) else fields
        for key, child_value in value.items():
            child = resolved.get(key) or fields.get(key) or element
            if child is None:
                return True
            if (
                child.kind not in _LEAVES
                and isinstance(child_value, dict | list)
                and _has_unknown(child_value, child)
            ):
                return True
    elif isinstance(value, list) and atom.kind == "list" and atom.element is not None:
        item_atom = atom.element
        if item_atom.kind not in _LEAVES:
            for item in value:
                if _has_unknown(item, item_atom):
                    return True
    return False


def _prune(value: Any, atom: Atom, path: str, dropped: list[str]) -> None:
    if atom.kind in _LEAVES:
        return
    if isinstance(value, dict) and atom.kind == "map":
        for key in list(value):
            child = _child(atom, key)
            if child is None:
                del value[key]
                dropped.append(f"{path}.{key}" if path else key)
            elif child.kind not in ("any", "scalar"):  # nothing to prune below a scalar
                _prune(value[key], child, f"{path}.{key}" if path else key, dropped)
    elif isinstance(value, list) and atom.kind == "list" and atom.element is not None:
        for i, item in enumerate(value):
            _prune(item, atom.element, f"{path}[{i}]", dropped)
