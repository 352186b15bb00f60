"""Filters deciding which events reach a controller's queue. See ``Predicate``.

A predicate sees each event a source delivers and returns ``False`` to drop it
before any key is queued (controller-runtime's ``predicate`` package).
"""

from __future__ import annotations

from typing import Any, Protocol

from kubeforge.core.objects import generation_of, resource_version_of

__all__ = ["GenerationChanged", "Predicate", "ResourceVersionChanged"]


class Predicate(Protocol):
    """Per event kind: ``True`` lets the event through."""

    def create(self, obj: Any) -> bool: ...

    def update(self, old: Any, new: Any) -> bool: ...

    def delete(self, obj: Any) -> bool: ...


class ResourceVersionChanged:
    """Drops updates whose resourceVersion did not change: periodic resyncs and relists."""

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return resource_version_of(old) != resource_version_of(new)

    def delete(self, obj: Any) -> bool:
        return True


class GenerationChanged:
    """Lets updates through only when ``metadata.generation`` changed (spec changes).

    *Caveat*: kinds without a generation (ConfigMaps, ...) never pass an update.
    """

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return generation_of(old) != generation_of(new)

    def delete(self, obj: Any) -> bool:
        return True
