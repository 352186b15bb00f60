"""Ready-made index functions for a ``Store``: namespace, owner UID, and field indexes.

An index files every cached object under the values its ``IndexFunc`` returns, so
``store.by_index(name, value)`` answers without a scan (client-go's ``Indexers``).

- ``NAMESPACE_INDEX``: built into every store.
- ``OWNER_UID_INDEX`` / ``by_owner_uid``: dependents by their owners' UIDs (opt in:
  ``store.add_index(OWNER_UID_INDEX, by_owner_uid)``).
- ``field_index(field)`` / ``field_indexer(fn)``: controller-runtime's field indexes
  (``IndexField``), queried with ``CacheReader.list(..., fields={field: value})``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from kubeforge.core.objects import namespace_of, owner_references_of

__all__ = [
    "ALL_NAMESPACES",
    "NAMESPACE_INDEX",
    "OWNER_UID_INDEX",
    "IndexFunc",
    "by_namespace",
    "by_owner_uid",
    "field_index",
    "field_index_value",
    "field_indexer",
]

IndexFunc: TypeAlias = Callable[[Any], Iterable[str]]
"""Values an object is filed under in one index. It gets a decoded object it may read
but should not keep; it must be deterministic (the same object, the same values)."""

NAMESPACE_INDEX = "namespace"
"""The built-in index: each object's namespace (``""`` for cluster-scoped objects)."""

OWNER_UID_INDEX = "ownerUID"
"""Dependents by the UID of each of their owners (``by_owner_uid``)."""

ALL_NAMESPACES = "__all_namespaces"
"""The namespace part of field index values that match in every namespace."""


def by_namespace(obj: Any) -> list[str]:
    return [namespace_of(obj)]


def by_owner_uid(obj: Any) -> list[str]:
    """The UIDs of ``obj``'s owner references, e.g. to find a ReplicaSet's pods."""
    return [ref.uid for ref in owner_references_of(obj) if ref.uid]


def field_index(field: str) -> str:
    """The index name controller-runtime gives a field index: ``field:<field>``."""
    return f"field:{field}"


def field_index_value(namespace: str | None, value: str) -> str:
    """The value to look up: ``<ns>/<value>``, or across namespaces when ``namespace`` is None."""
    return f"{namespace or ALL_NAMESPACES}/{value}"


def field_indexer(extract: Callable[[Any], Iterable[str]]) -> IndexFunc:
    """An ``IndexFunc`` filing each value ``extract(obj)`` returns per namespace and overall.

    Every value is filed twice, as ``<namespace>/<value>`` and as
    ``__all_namespaces/<value>``, so one index answers both scoped and cluster-wide
    queries (controller-runtime stores its field indexes the same way).
    """

    def index(obj: Any) -> list[str]:
        namespace = namespace_of(obj)
        values: list[str] = []
        for value in extract(obj):
            if namespace:
                values.append(field_index_value(namespace, value))
            values.append(field_index_value(None, value))
        return values

    return index
