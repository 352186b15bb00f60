"""The events a ``watcher()`` yields: ``Init``, ``InitApply``, ``InitDone``, ``Apply``, ``Delete``.

The list/relist boundary is explicit (the kube-rs model): every (re)list is
announced by ``Init``, streams its objects as ``InitApply`` and ends with
``InitDone``. A consumer that keeps a cache buffers the ``InitApply`` objects and
swaps them in on ``InitDone``, so readers never see a half-listed cache and
objects that vanished while the watch was broken simply drop out (no tombstones).
After ``InitDone`` every change arrives as ``Apply`` (created or modified) or
``Delete`` (its last state).

``Init`` may arrive again before ``InitDone`` when a paginated list failed half
way: the consumer then throws its buffer away and starts over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

from kubeforge.core.resource import Resource

__all__ = ["Apply", "Delete", "Event", "Init", "InitApply", "InitDone", "T"]

T = TypeVar("T", bound=Resource | dict[str, Any])
"""An object type the watcher can carry: a typed ``Resource`` or a dynamic ``dict``."""


@dataclass(frozen=True, slots=True)
class Init:
    """A (re)list starts: begin a fresh buffer."""


@dataclass(frozen=True, slots=True)
class InitApply(Generic[T]):
    """One object of the current (re)list."""

    object: T


@dataclass(frozen=True, slots=True)
class InitDone:
    """The (re)list is complete: the buffer is now the whole truth."""

    resource_version: str = ""


@dataclass(frozen=True, slots=True)
class Apply(Generic[T]):
    """The object was created or modified (watch ``ADDED`` / ``MODIFIED``)."""

    object: T


@dataclass(frozen=True, slots=True)
class Delete(Generic[T]):
    """The object was deleted; ``object`` is its last state (watch ``DELETED``)."""

    object: T


Event: TypeAlias = Init | InitApply[T] | InitDone | Apply[T] | Delete[T]
"""Everything ``watcher()`` yields; match on the class."""
