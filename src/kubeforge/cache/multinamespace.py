"""One kind cached in a fixed set of namespaces: ``MultiNamespaceInformer``, ``OutsideCacheScope``.

What ``CacheOptions(default_namespaces=[...])`` gives for a namespaced kind: one
informer per namespace (so the manager needs list/watch only there, a Role per
namespace, never a ClusterRole), seen through one informer and one store, as
controller-runtime's multi-namespace cache does. Reading a namespace the cache
does not hold raises ``OutsideCacheScope`` with controller-runtime's words
(``unable to get: NS/NAME because of unknown namespace for the cache``) instead of
answering ``None``, so a missing namespace in the options cannot pass for a
missing object.

Both classes subclass ``Informer`` and ``Store`` so that everything typed against
those (controllers, listers, the cached client) takes them unchanged; they delegate
every public method to the per-namespace ones and hold no objects themselves.

>>> OutsideCacheScope.for_get("kube-system/coredns", ("shop",)).args[0]
'unable to get: kube-system/coredns because of unknown namespace for the cache (it holds shop)'
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

from kubeforge.cache.indexers import IndexFunc
from kubeforge.cache.informer import HandlerRegistration, Informer, wait_for_sync
from kubeforge.cache.store import Store
from kubeforge.core.clock import Clock
from kubeforge.core.errors import KubeforgeError
from kubeforge.core.refs import ObjectKey
from kubeforge.watch.events import T

__all__ = ["MultiNamespaceInformer", "MultiNamespaceStore", "OutsideCacheScope"]


class OutsideCacheScope(KubeforgeError, LookupError):
    """A read of a namespace the cache does not hold (``CacheOptions.default_namespaces``)."""

    @classmethod
    def for_get(cls, key: object, held: Sequence[str]) -> OutsideCacheScope:
        return cls(
            f"unable to get: {key} because of unknown namespace for the cache "
            f"(it holds {', '.join(held)})"
        )

    @classmethod
    def for_list(cls, namespace: str, held: Sequence[str]) -> OutsideCacheScope:
        return cls(
            f"unable to list: {namespace} because of unknown namespace for the cache "
            f"(it holds {', '.join(held)})"
        )


class MultiNamespaceStore(Store[T]):
    """The stores of one kind in several namespaces, read as one."""

    def __init__(self, stores: dict[str, Store[T]]) -> None:
        super().__init__()
        self._stores = stores

    def _in(self, namespace: str, key: object) -> Store[T]:
        store = self._stores.get(namespace)
        if store is None:
            raise OutsideCacheScope.for_get(key, tuple(self._stores))
        return store

    def get(self, key: ObjectKey | str) -> T | None:
        parsed = ObjectKey.parse(key) if isinstance(key, str) else key
        return self._in(parsed.namespace, parsed).get(parsed)

    def list(
        self, namespace: str | None = None, *, label_selector: str | None = None
    ) -> builtins.list[T]:
        if namespace is not None:
            if namespace not in self._stores:
                raise OutsideCacheScope.for_list(namespace, tuple(self._stores))
            return self._stores[namespace].list(namespace, label_selector=label_selector)
        return [o for s in self._stores.values() for o in s.list(label_selector=label_selector)]

    def keys(self) -> builtins.list[ObjectKey]:
        return [key for store in self._stores.values() for key in store.keys()]  # noqa: SIM118 (a Store is not iterable)

    def by_index(self, index: str, value: str) -> builtins.list[T]:
        return [obj for store in self._stores.values() for obj in store.by_index(index, value)]

    def index_keys(self, index: str, value: str) -> builtins.list[ObjectKey]:
        return sorted(k for s in self._stores.values() for k in s.index_keys(index, value))

    def index_values(self, index: str) -> builtins.list[str]:
        return sorted({v for store in self._stores.values() for v in store.index_values(index)})

    def has_index(self, name: str) -> bool:
        return all(store.has_index(name) for store in self._stores.values())

    def add_index(self, name: str, func: IndexFunc) -> None:
        for store in self._stores.values():
            store.add_index(name, func)

    @property
    def has_synced(self) -> bool:
        return all(store.has_synced for store in self._stores.values())

    async def wait_until_ready(self) -> None:
        for store in self._stores.values():
            await store.wait_until_ready()

    def __len__(self) -> int:
        return sum(len(store) for store in self._stores.values())

    def __contains__(self, key: object) -> bool:
        parsed = ObjectKey.parse(key) if isinstance(key, str) else key
        if not isinstance(parsed, ObjectKey):
            return False
        return parsed in self._in(parsed.namespace, parsed)


class MultiNamespaceInformer(Informer[T]):
    """The informers of one kind in several namespaces, handled as one.

    Handlers are registered on each; the per-namespace informers are the ones
    that watch (the factory lists them in ``InformerFactory.informers``).
    """

    def __init__(self, informers: dict[str, Informer[T]], name: str, clock: Clock) -> None:
        first = next(iter(informers.values()))
        super().__init__(first.api, first.config, name=name, clock=clock)
        self.informers = informers
        self.store = MultiNamespaceStore({ns: inf.store for ns, inf in informers.items()})
        self._parts: dict[int, list[HandlerRegistration[T]]] = {}

    @property
    def namespaces(self) -> tuple[str, ...]:
        return tuple(self.informers)

    def add_handler(
        self,
        *,
        on_add: Callable[[T], None] | None = None,
        on_update: Callable[[T, T], None] | None = None,
        on_delete: Callable[[T], None] | None = None,
        on_missed_delete: Callable[[T], None] | None = None,
        resync_period: float | None = None,
        old_state: bool = True,
    ) -> HandlerRegistration[T]:
        handlers: dict[str, Any] = {
            "on_add": on_add,
            "on_update": on_update,
            "on_delete": on_delete,
            "on_missed_delete": on_missed_delete,
            "resync_period": resync_period,
            "old_state": old_state,
        }
        parts = [informer.add_handler(**handlers) for informer in self.informers.values()]
        registration = HandlerRegistration(
            on_add=on_add,
            on_update=on_update,
            on_delete=on_delete,
            on_missed_delete=on_missed_delete,
            resync_period=resync_period,
            old_state=old_state,
        )
        self._parts[id(registration)] = parts
        return registration

    def remove_handler(self, registration: HandlerRegistration[T]) -> None:
        parts = self._parts.pop(id(registration), [])
        for informer, part in zip(self.informers.values(), parts, strict=False):
            informer.remove_handler(part)

    @property
    def has_synced(self) -> bool:
        return self.store.has_synced

    @property
    def running(self) -> bool:
        return all(informer.running for informer in self.informers.values())

    async def wait_for_sync(self, timeout: float | None = None) -> None:
        await wait_for_sync(self.informers.values(), timeout, clock=self._clock)

    def start(self) -> None:
        for informer in self.informers.values():
            informer.start()

    async def stop(self) -> None:
        for informer in self.informers.values():
            await informer.stop()

    async def run(self) -> None:
        raise RuntimeError("a multi-namespace informer runs through its per-namespace informers")

    def __repr__(self) -> str:
        return f"MultiNamespaceInformer({self.name}, synced={self.has_synced})"
