"""One resource's objects as they were at a past revision, read in key order a few at a time.

Entry point: ``RevisionView(storage, resource, revision, namespace)``; ``after(key, n)``
gives the next ``n`` ``(key, object)`` pairs after ``key`` and ``count_after(key)`` how
many follow it. A paged list reads every page at its first page's revision, as etcd
reads at one revision; a view reads the live key-ordered objects and undoes only what
changed since that revision, so a page costs its own size plus the recent history,
never a copy or a sort of the whole resource.

A view stays right across ``await``: before each read it takes in the events written
since its last one (the state at the revision of a key is the ``previous`` of the first
event after that revision, and never changes), so a page may yield to other clients
between chunks and still read one consistent revision. It raises ``ExpiredError`` when
it is made for a revision older than the kept history.

>>> from kubeforge.apiserver.storage.sqlite import Storage
>>> storage = Storage(None)
>>> _ = storage.create(("", "configmaps"), {"metadata": {"name": "a", "namespace": "x"}})
>>> view = RevisionView(storage, ("", "configmaps"), storage.revision, None)
>>> _ = storage.create(("", "configmaps"), {"metadata": {"name": "b", "namespace": "x"}})
>>> [key for key, _ in view.after(None, 10)]
[('x', 'a')]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from kubeforge.apiserver.storage.journal import Event, ResourceKey
from kubeforge.apiserver.storage.sqlite import Storage, namespace_range

__all__ = ["Key", "RevisionView"]

Key = tuple[str, str]
"""``(namespace, name)``; cluster-scoped objects have the namespace ``""``."""

_ALL: tuple[Key, Key] = (("", ""), ("\U0010ffff", ""))


class RevisionView:
    """``resource``'s objects (in ``namespace``, or all) as they were at ``revision``."""

    def __init__(
        self, storage: Storage, resource: ResourceKey, revision: int, namespace: str | None
    ) -> None:
        self._storage = storage
        self._resource = resource
        self.revision = revision
        self._low, self._high = _ALL if namespace is None else namespace_range(namespace)
        # Keys changed after ``revision`` -> their state then (``None``: absent then).
        self._then: dict[Key, dict[str, Any] | None] = {}
        self._last: Event | None = None
        self._take_in(storage.events_after(revision))

    # --- reads -------------------------------------------------------------------------------

    def after(self, key: Key | None, count: int) -> list[tuple[Key, dict[str, Any]]]:
        """The next ``count`` objects after ``key`` (``None``: from the first), in key order."""
        self._catch_up()
        return list(itertools.islice(self._walk(key), count))

    def count_after(self, key: Key) -> int:
        """How many objects follow ``key``."""
        self._catch_up()
        bucket = self._storage.index(self._resource)
        floor = max(key, self._low)
        now = 0
        if bucket is not None:
            now = bucket.bisect_left(self._high) - bucket.bisect_right(floor)
        for changed, then in self._then.items():
            if floor < changed < self._high:
                exists_now = bucket is not None and changed in bucket
                now += (then is not None) - exists_now
        return max(0, int(now))

    def _walk(self, key: Key | None) -> Iterator[tuple[Key, dict[str, Any]]]:
        """Objects after ``key`` at the revision: the live keys with what changed undone,
        merged with the keys deleted since (which the live index no longer has)."""
        bucket = self._storage.index(self._resource)
        start, inclusive = (self._low, True) if key is None or key < self._low else (key, False)
        gone = sorted(
            changed
            for changed, then in self._then.items()
            if then is not None
            and (bucket is None or changed not in bucket)
            and (start < changed or (inclusive and start == changed))
            and changed < self._high
        )
        live: Iterator[Key] = iter(())
        if bucket is not None:
            live = bucket.irange(start, self._high, inclusive=(inclusive, False))
        then_of = self._then
        for current in _merged(live, gone):
            if current in then_of:
                obj = then_of[current]
                if obj is not None:
                    yield current, obj
            else:
                assert bucket is not None  # a key not changed since is a live one
                yield current, bucket[current]

    # --- keeping up with writes ---------------------------------------------------------------

    def _catch_up(self) -> None:
        """Take in the events written since the last read (none were, most of the time)."""
        history = self._storage.history
        if not history or history[-1] is self._last:
            return
        newer: list[Event] = []
        for event in reversed(history):
            # Identity, not revision: a failed commit is undone and its revisions reused.
            if event is self._last or event.revision <= self.revision:
                break
            newer.append(event)
        newer.reverse()
        self._take_in(newer)

    def _take_in(self, events: list[Event]) -> None:
        then = self._then
        for event in events:
            if event.resource != self._resource:
                continue
            meta = event.object["metadata"]
            key = (meta.get("namespace") or "", meta["name"])
            if key not in then:  # the first change after the revision knows the state then
                then[key] = None if event.type == "ADDED" else event.previous
        history = self._storage.history
        self._last = history[-1] if history else None


def _merged(first: Iterator[Key], second: list[Key]) -> Iterator[Key]:
    """Two ascending key sequences as one (they share no key)."""
    if not second:
        yield from first
        return
    index = 0
    for key in first:
        while index < len(second) and second[index] < key:
            yield second[index]
            index += 1
        yield key
    yield from second[index:]
