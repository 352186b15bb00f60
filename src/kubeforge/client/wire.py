"""The two envelopes the API server wraps objects in: a list page and a watch event.

Both are generic msgspec ``Struct``s, so a typed list or watch line decodes in
one pass straight into ``ObjectList[Pod]`` / ``WatchEvent[Pod]`` with no
intermediate dicts. The dynamic face builds the same classes around dicts.
``LazyPage`` is a list page whose items are decoded only as they are read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import msgspec

from kubeforge.core.meta import ListMeta

__all__ = ["LazyPage", "ObjectList", "WatchEvent"]

T = TypeVar("T")


class ObjectList(msgspec.Struct, Generic[T], kw_only=True):
    """One page of a list: ``items`` plus the list's ``resourceVersion`` and ``continue`` token."""

    items: list[T] = msgspec.field(default_factory=list)
    metadata: ListMeta = msgspec.field(default_factory=ListMeta)

    @property
    def resource_version(self) -> str:
        """The collection's version at the time of the list: where a watch should start."""
        return self.metadata.resource_version or ""

    @property
    def continue_(self) -> str | None:
        """Token for the next page, or ``None`` on the last page."""
        return self.metadata.continue_ or None

    @property
    def remaining_item_count(self) -> int | None:
        return self.metadata.remaining_item_count


class WatchEvent(msgspec.Struct, Generic[T]):
    """One change: ``type`` is ``ADDED``, ``MODIFIED``, ``DELETED`` or ``BOOKMARK``.

    A ``BOOKMARK``'s ``object`` carries only ``metadata.resourceVersion``. ``ERROR``
    events never reach the caller: the client raises them as ``ApiError``.
    """

    type: str
    object: T


class LazyPage(Generic[T]):
    """One page of a list whose ``items`` are decoded one at a time, as they are read.

    A decoded page of 500 pods is tens of thousands of small objects alive at once;
    whatever a cache keeps of each (its name, its key) then pins the memory they
    share long after the page is gone (5x the cache's own size at 100,000 pods,
    ``benchmarks/scale``). Decoded one by one, each object's leftovers reuse the
    memory of the one before. ``items`` can be iterated once.
    """

    __slots__ = ("_decode", "_raw", "metadata")

    def __init__(self, raw: list[Any], decode: Callable[[Any], T], metadata: ListMeta) -> None:
        self._raw = raw
        self._decode = decode
        self.metadata = metadata

    @property
    def items(self) -> Iterator[T]:
        """The objects, decoded as the iteration reaches each; a second read is empty."""
        raw, self._raw = self._raw, []
        raw.reverse()
        decode = self._decode
        while raw:
            yield decode(raw.pop())

    @property
    def resource_version(self) -> str:
        """The collection's version at the time of the list: where a watch should start."""
        return self.metadata.resource_version or ""

    @property
    def continue_(self) -> str | None:
        """Token for the next page, or ``None`` on the last page."""
        return self.metadata.continue_ or None
