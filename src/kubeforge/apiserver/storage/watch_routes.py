"""Which watch groups of one resource an event can concern, found without asking each.

A watch scoped to one namespace, or selecting on one field value (``metadata.name=x``,
``spec.nodeName=node-7``), can only see objects that have that value, before or after
the change. Such a watch names it as its ``WatchIndex``, and ``Routes`` files its group
under it: an event is then checked against the groups filed under its object's values
(old and new) and the groups that name none, instead of against every group. This is
the watch cache's indexed triggers (pods by ``spec.nodeName``, any resource by
namespace), so a thousand kubelet-like watchers cost one lookup per event, not a
thousand filter calls. Filing only narrows the candidates: each candidate group still
runs its full filter, so what a watch sees does not depend on the index.

Entry point: ``Routes`` (one per resource, kept by ``fanout.WatchHub``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.storage.watch_log import WatchGroup

__all__ = ["Routes", "WatchIndex", "namespace_index"]


@dataclass(frozen=True)
class WatchIndex:
    """``read(obj) == value`` holds for every object the watch's filter accepts.

    ``name`` says what ``read`` reads; watches whose ``name`` is equal must read alike,
    so a name carries whatever ``read`` depends on (a strategy, a field path).
    Example: ``WatchIndex("namespace", lambda obj: obj["metadata"].get("namespace"), "ns")``.
    """

    name: Hashable
    read: Callable[[dict[str, Any]], Hashable] = field(compare=False)
    value: Hashable


def _namespace(obj: dict[str, Any]) -> Hashable:
    meta: dict[str, Any] = obj.get("metadata") or {}
    return meta.get("namespace")


def namespace_index(namespace: str) -> WatchIndex:
    """The index of a watch on one namespace."""
    return WatchIndex("namespace", _namespace, namespace)


class Routes:
    """The watch groups of one resource: those filed under an index value, and the rest."""

    __slots__ = ("_indexed", "_unindexed")

    def __init__(self) -> None:
        self._unindexed: dict[Hashable, WatchGroup] = {}
        # index name -> (its read, value -> groups filed under that value)
        self._indexed: dict[
            Hashable,
            tuple[Callable[[dict[str, Any]], Hashable], dict[Hashable, dict[Hashable, WatchGroup]]],
        ] = {}

    def _bucket(self, index: WatchIndex | None, create: bool) -> dict[Hashable, WatchGroup] | None:
        if index is None:
            return self._unindexed
        entry = self._indexed.get(index.name)
        if entry is None:
            if not create:
                return None
            entry = self._indexed[index.name] = (index.read, {})
        by_value = entry[1]
        bucket = by_value.get(index.value)
        if bucket is None and create:
            bucket = by_value[index.value] = {}
        return bucket

    def get(self, index: WatchIndex | None, key: Hashable) -> WatchGroup | None:
        bucket = self._bucket(index, create=False)
        return None if bucket is None else bucket.get(key)

    def add(self, index: WatchIndex | None, key: Hashable, group: WatchGroup) -> None:
        bucket = self._bucket(index, create=True)
        assert bucket is not None
        bucket[key] = group

    def remove(self, index: WatchIndex | None, key: Hashable, group: WatchGroup) -> None:
        """Forget ``group`` (if it is still the one filed under ``key``)."""
        bucket = self._bucket(index, create=False)
        if bucket is None or bucket.get(key) is not group:
            return
        del bucket[key]
        if not bucket and index is not None:
            _, by_value = self._indexed[index.name]
            del by_value[index.value]
            if not by_value:
                del self._indexed[index.name]

    def __bool__(self) -> bool:
        return bool(self._unindexed or self._indexed)

    def __iter__(self) -> Iterator[WatchGroup]:
        """Every group."""
        yield from self._unindexed.values()
        for _, by_value in self._indexed.values():
            for bucket in by_value.values():
                yield from bucket.values()

    def concerned(self, obj: dict[str, Any], previous: dict[str, Any] | None) -> list[WatchGroup]:
        """The groups an event on ``obj`` (formerly ``previous``) may concern."""
        out = list(self._unindexed.values())
        for read, by_value in self._indexed.values():
            now = read(obj)
            bucket = by_value.get(now)
            if bucket:
                out.extend(bucket.values())
            if previous is not None:
                before = read(previous)
                if before != now:  # an object leaving a value: DELETED for its watches
                    bucket = by_value.get(before)
                    if bucket:
                        out.extend(bucket.values())
        return out
