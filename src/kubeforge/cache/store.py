"""An in-memory, indexed view of one resource: ``store()`` -> ``(Store, Writer)``.

One ``Writer`` (owned by whoever runs the watcher) applies watcher events; any
number of code paths read through the ``Store``. Readers always get **copies**:
the store keeps each object packed (compact JSON bytes, see ``_packing``) and
decodes a fresh one on every read, so a reconciler that mutates what it read
cannot corrupt the cache (client-go hands out shared pointers and asks everyone to
deep-copy first; that rule is easy to break and hard to debug).

A relist is applied atomically: ``Init`` starts a private state, ``InitApply``
fills it (indexes included), and ``InitDone`` swaps it in in one step, so readers
see either the old state or the new one, never a half-listed mix.
"""

from __future__ import annotations

import asyncio
import builtins
import threading
from collections.abc import Callable, Mapping
from typing import Any, Generic

from kubeforge.cache._packing import Unpacker, labels_in, pack
from kubeforge.cache._state import Index, State
from kubeforge.cache.indexers import NAMESPACE_INDEX, IndexFunc, by_namespace
from kubeforge.core.objects import key_of
from kubeforge.core.refs import ObjectKey
from kubeforge.core.selectors import parse_label_selector
from kubeforge.watch.events import Apply, Delete, Event, Init, InitApply, InitDone, T

__all__ = ["NAMESPACE_INDEX", "Change", "IndexFunc", "Store", "Writer", "store"]

Transform = Callable[[Any], Any]


class Change(Generic[T]):
    """What one event did to the store; ``old()`` and ``new()`` hand out private copies.

    ``is_add``: only ``new()``. ``is_delete``: only ``old()``, the last known state
    (the watch event's object, or the cached one when a relist found it gone; then
    ``final_state_unknown`` is True, client-go's ``DeletedFinalStateUnknown``).
    Otherwise an update (a relist reports every surviving object as updated, as
    client-go's ``Replaced`` deltas do).

    Each call decodes a new copy, except that the first call on a side may return
    the object the watcher decoded, which nothing else holds.
    """

    __slots__ = ("_decode", "_live", "_new", "_old", "final_state_unknown")

    def __init__(
        self,
        old: bytes | None,
        new: bytes | None,
        decode: Callable[[bytes], T],
        *,
        live: T | None = None,
        final_state_unknown: bool = False,
    ) -> None:
        self._old, self._new, self._decode = old, new, decode
        self._live = live  # the new side's object (the old side's for a delete)
        self.final_state_unknown = final_state_unknown

    @property
    def is_add(self) -> bool:
        return self._old is None

    @property
    def is_delete(self) -> bool:
        return self._new is None

    def old(self) -> T | None:
        return self._take(self._old) if self._new is None else self._copy(self._old)

    def new(self) -> T | None:
        return self._take(self._new) if self._new is not None else None

    def _take(self, data: bytes | None) -> T | None:
        live, self._live = self._live, None
        return live if live is not None else self._copy(data)

    def _copy(self, data: bytes | None) -> T | None:
        return None if data is None else self._decode(data)

    def __repr__(self) -> str:
        verb = "add" if self.is_add else "delete" if self.is_delete else "update"
        unknown = ", final state unknown" if self.final_state_unknown else ""
        return f"Change({verb}{unknown})"


class Store(Generic[T]):
    """Read handle on the cache. Every object returned is a private copy.

    Thread-safe: reads and the writer's updates take a lock, so a reconciler may
    read from a worker thread.
    """

    def __init__(self, indexers: Mapping[str, IndexFunc] | None = None) -> None:
        self._lock = threading.Lock()
        self._indexers: dict[str, IndexFunc] = {NAMESPACE_INDEX: by_namespace}
        self._indexers.update(indexers or {})
        self._state = self._empty_state()
        self._unpack: Unpacker[T] | None = None
        self._synced = False
        self._ready = asyncio.Event()

    # -- reading ------------------------------------------------------------------

    def get(self, key: ObjectKey | str) -> T | None:
        """The object stored under ``key`` (``ObjectKey`` or ``"ns/name"``), or ``None``."""
        if isinstance(key, str):
            key = ObjectKey.parse(key)
        with self._lock:
            data = self._state.get(key)
        return None if data is None else self._decode(data)

    def list(
        self, namespace: str | None = None, *, label_selector: str | None = None
    ) -> builtins.list[T]:
        """Every object (in ``namespace``, when given) whose labels match ``label_selector``."""
        selector = parse_label_selector(label_selector) if label_selector else None
        with self._lock:
            if namespace is None:
                packed = self._state.values()
            else:
                packed = self._state.in_namespace(namespace)
        if selector is not None:
            packed = [data for data in packed if selector.matches(labels_in(data))]
        return [self._decode(data) for data in packed]

    def keys(self) -> builtins.list[ObjectKey]:
        with self._lock:
            return [key for key, _ in self._state.items()]

    def by_index(self, index: str, value: str) -> builtins.list[T]:
        """Objects filed under ``value`` in ``index``; ``KeyError`` for an unknown index."""
        with self._lock:
            packed = self._lookup(index, value)
        return [self._decode(data) for data in packed]

    def index_keys(self, index: str, value: str) -> builtins.list[ObjectKey]:
        with self._lock:
            if index == NAMESPACE_INDEX:
                names = self._state.namespaces.get(value, {})
                return [ObjectKey(value, name) for name in sorted(names)]
            return sorted(self._state.indices[index].buckets.get(value, ()))

    def index_values(self, index: str) -> builtins.list[str]:
        """Every value ``index`` currently holds (client-go's ``ListIndexFuncValues``)."""
        with self._lock:
            if index == NAMESPACE_INDEX:
                return sorted(self._state.namespaces)
            return sorted(self._state.indices[index].buckets)

    def has_index(self, name: str) -> bool:
        return name in self._indexers

    def add_index(self, name: str, func: IndexFunc) -> None:
        """Add a secondary index, filled from the current contents at once.

        Unlike client-go, this is allowed while the informer runs.
        """
        with self._lock:
            if name in self._indexers:
                raise ValueError(f"index {name!r} already exists")
            self._indexers[name] = func
            self._state.indices[name] = self._build_index(func, self._state)

    @property
    def has_synced(self) -> bool:
        """True once the first list has been applied in full."""
        return self._synced

    async def wait_until_ready(self) -> None:
        """Return once ``has_synced`` (client-go's ``WaitForCacheSync`` for one store)."""
        await self._ready.wait()

    def __len__(self) -> int:
        return self._state.size

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            key = ObjectKey.parse(key)
        return isinstance(key, ObjectKey) and self._state.get(key) is not None

    # -- internals shared with Writer and Informer ------------------------------------

    def _lookup(self, index: str, value: str) -> builtins.list[bytes]:
        state = self._state
        if index == NAMESPACE_INDEX:
            return state.in_namespace(value)
        return [
            state.namespaces[key.namespace][key.name]
            for key in state.indices[index].buckets.get(value, ())
        ]

    def _packed(self) -> builtins.list[bytes]:
        """A snapshot of every packed object (for resyncs and late handlers)."""
        with self._lock:
            return self._state.values()

    def _decode(self, data: bytes) -> T:
        assert self._unpack is not None  # anything stored was packed by the writer
        return self._unpack(data)

    def _empty_state(self) -> State:
        indexers = self._indexers.items()
        return State(indices={name: Index(f) for name, f in indexers if name != NAMESPACE_INDEX})

    def _build_index(self, func: IndexFunc, state: State) -> Index:
        index = Index(func)
        for key, data in state.items():
            index.file(key, self._decode(data))
        return index

    def _learn_type(self, obj: T) -> Unpacker[T]:
        cls = type(obj)
        if self._unpack is None:
            self._unpack = Unpacker.for_type(cls)
        elif self._unpack.cls is not cls:
            raise TypeError(
                f"this store holds {self._unpack.cls.__name__} objects, got {cls.__name__}"
            )
        return self._unpack


class Writer(Generic[T]):
    """The single writer of a ``Store``: feed it every event of one ``watcher()``.

    ``transform`` (if given) is applied to each incoming object before it is stored
    or handed on, e.g. to drop ``managedFields``; it may change and return its
    argument, which nothing else holds.
    """

    def __init__(self, store: Store[T], *, transform: Transform | None = None) -> None:
        self.store = store
        self.transform = transform
        self._fresh: State | None = None

    def apply(self, event: Event[T]) -> list[Change[T]]:
        """Apply one watcher event; return what changed, in order."""
        store = self.store
        # Live changes first: every watch event is one, a relist only once per object.
        match event:
            case Apply(obj):
                obj = self._transformed(obj)
                key, data = key_of(obj), pack(obj)
                unpack = store._learn_type(obj)
                with store._lock:
                    old = store._state.put(key, data, obj)
                return [Change(old, data, unpack, live=obj)]
            case Delete(obj):
                obj = self._transformed(obj)
                key = key_of(obj)
                unpack = store._learn_type(obj)
                with store._lock:
                    if store._state.get(key) is None:
                        # Never seen, or already gone: no second delete (as DeltaFIFO).
                        return []
                    store._state.put(key, None, None)
                return [Change(pack(obj), None, unpack, live=obj)]
            case InitApply(obj):
                obj = self._transformed(obj)
                store._learn_type(obj)
                data = pack(obj)
                if self._fresh is None:  # tolerate a stream that skipped Init
                    self._fresh = store._empty_state()
                self._fresh.put(key_of(obj), data, obj)
                return []
            case Init():
                self._fresh = store._empty_state()
                return []
            case InitDone():
                return self._swap()
        raise TypeError(f"not a watcher event: {event!r}")

    def _transformed(self, obj: T) -> T:
        if self.transform is not None:
            obj = self.transform(obj)
        return obj

    def _swap(self) -> list[Change[T]]:
        store = self.store
        fresh = self._fresh if self._fresh is not None else store._empty_state()
        self._fresh = None
        with store._lock:
            # An index added while the relist ran is missing from the fresh state.
            for name, func in store._indexers.items():
                if name != NAMESPACE_INDEX and name not in fresh.indices:
                    fresh.indices[name] = store._build_index(func, fresh)
            previous = store._state
            # Indexes were built on the side: readers see the old state or the new one.
            store._state = fresh
        changes: list[Change[T]] = []
        if store._unpack is not None:
            unpack = store._unpack
            changes = [Change(previous.get(key), data, unpack) for key, data in fresh.items()]
            changes.extend(
                Change(data, None, unpack, final_state_unknown=True)
                for key, data in previous.items()
                if fresh.get(key) is None
            )
        store._synced = True
        store._ready.set()
        return changes


def store(
    kind: type[T] | None = None,
    *,
    indexers: Mapping[str, IndexFunc] | None = None,
    transform: Transform | None = None,
) -> tuple[Store[T], Writer[T]]:
    """A new empty ``Store`` and its only ``Writer``.

    ``kind`` only pins the type for the type checker (``store(Pod)``, ``store(dict)``).
    ``indexers`` adds secondary indexes next to the built-in ``"namespace"`` one;
    ``transform`` rewrites every object before it is stored.

    >>> from kubeforge.watch.events import Apply
    >>> reader, writer = store(dict)
    >>> _ = writer.apply(Apply({"metadata": {"namespace": "ns", "name": "a"}}))
    >>> [obj["metadata"]["name"] for obj in reader.list("ns")]
    ['a']
    """
    del kind
    reader: Store[T] = Store(indexers)
    return reader, Writer(reader, transform=transform)
