"""The two envelopes the API server wraps objects in: a list page and a watch event.

Both are generic msgspec ``Struct``s, so a typed list or watch line decodes in
one pass straight into ``ObjectList[Pod]`` / ``WatchEvent[Pod]`` with no
intermediate dicts. The dynamic face builds the same classes around dicts.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

from kubeforge.core.meta import ListMeta

__all__ = ["ObjectList", "WatchEvent"]

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
