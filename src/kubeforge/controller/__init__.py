"""Connects cache events to a work queue and runs reconcilers. See ``Builder``.

May import ``reconcile``, ``cache``, ``workqueue``, ``client`` and below.

- ``Builder(mgr).for_(T).owns(U).watches(V, fn).with_options(...).complete(reconcile)``
- ``Controller``: the queue, its workers and the retry policy.
- ``handler``: mappers from an object to ``Request``\\ s (``enqueue_object``,
  ``enqueue_owner``); ``predicate``: event filters and their combinators.
- ``finalizer``: cleanup before deletion; ``ownerrefs``: owner and controller
  references; ``events``: ``EventRecorder`` (client-go's aggregating recorder).
"""

from typing import TYPE_CHECKING

from kubeforge.controller.builder import Builder, ControllerHost
from kubeforge.controller.controller import Controller, ControllerOptions
from kubeforge.controller.finalizer import (
    add_finalizer,
    finalizer,
    has_finalizer,
    remove_finalizer,
)
from kubeforge.controller.handler import EnqueueHandler, Mapper, enqueue_object, enqueue_owner
from kubeforge.controller.ownerrefs import (
    AlreadyOwnedError,
    controller_of,
    has_owner_reference,
    remove_owner_reference,
    set_controller_reference,
    set_owner_reference,
)
from kubeforge.controller.predicate import (
    And,
    AnnotationsChanged,
    GenerationChanged,
    LabelsChanged,
    LabelSelectorPredicate,
    Not,
    ObjectPredicate,
    Or,
    Predicate,
    PredicateFuncs,
    ResourceVersionChanged,
)

if TYPE_CHECKING:
    from kubeforge.controller.events import EventRecorder


def __getattr__(name: str) -> object:
    # EventRecorder and its correlator load on first use (PEP 562): a controller that
    # records no Events never needs them (the manager's event_recorder() loads them).
    if name == "EventRecorder":
        from kubeforge.controller.events import EventRecorder

        return EventRecorder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AlreadyOwnedError",
    "And",
    "AnnotationsChanged",
    "Builder",
    "Controller",
    "ControllerHost",
    "ControllerOptions",
    "EnqueueHandler",
    "EventRecorder",
    "GenerationChanged",
    "LabelSelectorPredicate",
    "LabelsChanged",
    "Mapper",
    "Not",
    "ObjectPredicate",
    "Or",
    "Predicate",
    "PredicateFuncs",
    "ResourceVersionChanged",
    "add_finalizer",
    "controller_of",
    "enqueue_object",
    "enqueue_owner",
    "finalizer",
    "has_finalizer",
    "has_owner_reference",
    "remove_finalizer",
    "remove_owner_reference",
    "set_controller_reference",
    "set_owner_reference",
]
