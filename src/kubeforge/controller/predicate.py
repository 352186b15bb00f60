"""Filters deciding which events reach a controller's queue. See ``Predicate``.

A predicate sees each event a source delivers and returns ``False`` to drop it
before any key is queued (controller-runtime's ``predicate`` package). Built-ins:

- ``ResourceVersionChanged``: drops resyncs and relist echoes (same resourceVersion).
- ``GenerationChanged``: only spec changes pass an update.
- ``LabelsChanged`` / ``AnnotationsChanged``: only updates that change those maps.
- ``LabelSelectorPredicate("app=web")``: only objects whose labels match.
- ``ObjectPredicate(fn)``: ``fn(obj)`` for every event (the new object on updates).
- ``PredicateFuncs(create=..., update=..., delete=...)``: one function per event; a
  missing one lets its events through.
- ``And``, ``Or``, ``Not`` combine any predicates; the built-ins also compose with
  ``&``, ``|`` and ``~``: ``GenerationChanged() | LabelsChanged()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kubeforge.core.objects import annotations_of, generation_of, labels_of, resource_version_of
from kubeforge.core.selectors import parse_label_selector

__all__ = [
    "And",
    "AnnotationsChanged",
    "GenerationChanged",
    "LabelSelectorPredicate",
    "LabelsChanged",
    "Not",
    "ObjectPredicate",
    "Or",
    "Predicate",
    "PredicateFuncs",
    "ResourceVersionChanged",
]


class Predicate(Protocol):
    """Per event kind: ``True`` lets the event through."""

    def create(self, obj: Any) -> bool: ...

    def update(self, old: Any, new: Any) -> bool: ...

    def delete(self, obj: Any) -> bool: ...


class _Composable:
    """``&``, ``|`` and ``~`` for the built-in predicates."""

    def __and__(self, other: Predicate) -> And:
        return And(self, other)  # type: ignore[arg-type]

    def __or__(self, other: Predicate) -> Or:
        return Or(self, other)  # type: ignore[arg-type]

    def __invert__(self) -> Not:
        return Not(self)  # type: ignore[arg-type]


class _UpdatesOnly(_Composable):
    """Creates and deletes pass; subclasses decide updates."""

    def create(self, obj: Any) -> bool:
        return True

    def delete(self, obj: Any) -> bool:
        return True


class ResourceVersionChanged(_UpdatesOnly):
    """Drops updates whose resourceVersion did not change: periodic resyncs and relists."""

    def update(self, old: Any, new: Any) -> bool:
        return resource_version_of(old) != resource_version_of(new)


class GenerationChanged(_UpdatesOnly):
    """Lets updates through only when ``metadata.generation`` changed (spec changes).

    *Caveat*: kinds without a generation (ConfigMaps, ...) never pass an update, and
    metadata-only changes (labels, finalizers) do not either.
    """

    def update(self, old: Any, new: Any) -> bool:
        return generation_of(old) != generation_of(new)


class LabelsChanged(_UpdatesOnly):
    """Lets updates through only when the labels differ."""

    def update(self, old: Any, new: Any) -> bool:
        return labels_of(old) != labels_of(new)


class AnnotationsChanged(_UpdatesOnly):
    """Lets updates through only when the annotations differ."""

    def update(self, old: Any, new: Any) -> bool:
        return annotations_of(old) != annotations_of(new)


class LabelSelectorPredicate(_Composable):
    """Only objects whose labels match ``selector`` (on updates: the new object)."""

    def __init__(self, selector: str) -> None:
        self.selector = parse_label_selector(selector)

    def create(self, obj: Any) -> bool:
        return self.selector.matches(labels_of(obj))

    def update(self, old: Any, new: Any) -> bool:
        return self.selector.matches(labels_of(new))

    def delete(self, obj: Any) -> bool:
        return self.selector.matches(labels_of(obj))


class ObjectPredicate(_Composable):
    """``test(obj)`` decides every event; updates test the new object."""

    def __init__(self, test: Callable[[Any], bool]) -> None:
        self.test = test

    def create(self, obj: Any) -> bool:
        return self.test(obj)

    def update(self, old: Any, new: Any) -> bool:
        return self.test(new)

    def delete(self, obj: Any) -> bool:
        return self.test(obj)


@dataclass(frozen=True, slots=True)
class PredicateFuncs(_Composable):
    """One function per event kind; a kind without one lets every event through."""

    create_fn: Callable[[Any], bool] | None = None
    update_fn: Callable[[Any, Any], bool] | None = None
    delete_fn: Callable[[Any], bool] | None = None

    def create(self, obj: Any) -> bool:
        return self.create_fn is None or self.create_fn(obj)

    def update(self, old: Any, new: Any) -> bool:
        return self.update_fn is None or self.update_fn(old, new)

    def delete(self, obj: Any) -> bool:
        return self.delete_fn is None or self.delete_fn(obj)


class And(_Composable):
    """Passes when every predicate passes (evaluated in order, stopping at the first no)."""

    def __init__(self, *predicates: Predicate) -> None:
        self.predicates = predicates

    def create(self, obj: Any) -> bool:
        return all(p.create(obj) for p in self.predicates)

    def update(self, old: Any, new: Any) -> bool:
        return all(p.update(old, new) for p in self.predicates)

    def delete(self, obj: Any) -> bool:
        return all(p.delete(obj) for p in self.predicates)


class Or(_Composable):
    """Passes when any predicate passes (evaluated in order, stopping at the first yes)."""

    def __init__(self, *predicates: Predicate) -> None:
        self.predicates = predicates

    def create(self, obj: Any) -> bool:
        return any(p.create(obj) for p in self.predicates)

    def update(self, old: Any, new: Any) -> bool:
        return any(p.update(old, new) for p in self.predicates)

    def delete(self, obj: Any) -> bool:
        return any(p.delete(obj) for p in self.predicates)


class Not(_Composable):
    """Passes exactly when ``predicate`` does not."""

    def __init__(self, predicate: Predicate) -> None:
        self.predicate = predicate

    def create(self, obj: Any) -> bool:
        return not self.predicate.create(obj)

    def update(self, old: Any, new: Any) -> bool:
        return not self.predicate.update(old, new)

    def delete(self, obj: Any) -> bool:
        return not self.predicate.delete(obj)
