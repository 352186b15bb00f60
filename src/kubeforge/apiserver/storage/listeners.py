"""Who hears the storage's writes: listeners in subscription order, each for every
resource or for a few named ones.

Entry point: ``Listeners`` (``Storage`` keeps one for writes as they apply and one for
writes once committed). Every write asks who hears its resource, and most of the
server's control loops care about two or three resources of the dozens written, so the
answer is worked out once per resource and kept until someone (un)subscribes.

>>> heard = []
>>> listeners = Listeners()
>>> unsubscribe = listeners.subscribe(heard.append, [("", "pods")])
>>> [len(listeners.of(key)) for key in [("", "pods"), ("", "configmaps")]]
[1, 0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

__all__ = ["Listeners"]

E = TypeVar("E")
Key = tuple[str, str]


class Listeners(Generic[E]):
    """Listeners of events about resources (``(group, plural)`` keys)."""

    def __init__(self) -> None:
        self._entries: list[tuple[Callable[[E], None], frozenset[Key] | None]] = []
        self._of: dict[Key, tuple[Callable[[E], None], ...]] = {}

    def subscribe(
        self, listener: Callable[[E], None], resources: Iterable[Key] | None = None
    ) -> Callable[[], None]:
        """Call ``listener`` for events of ``resources`` (None: of every resource);
        returns the function that unsubscribes it."""
        entry = (listener, frozenset(resources) if resources is not None else None)
        self._entries.append(entry)
        self._of.clear()

        def unsubscribe() -> None:
            if entry in self._entries:
                self._entries.remove(entry)
                self._of.clear()

        return unsubscribe

    def of(self, resource: Key) -> tuple[Callable[[E], None], ...]:
        """Those listening to ``resource``, in subscription order: a snapshot, so a
        listener may unsubscribe while being called."""
        found = self._of.get(resource)
        if found is None:
            found = tuple(
                listener
                for listener, wanted in self._entries
                if wanted is None or resource in wanted
            )
            self._of[resource] = found
        return found
