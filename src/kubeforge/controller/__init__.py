"""Connects cache events to a work queue and runs reconcilers. See ``Builder``.

May import ``reconcile``, ``cache``, ``workqueue`` and below.

- ``Builder(mgr).for_(T).owns(U).watches(V, fn).with_options(...).complete(reconcile)``
- ``Controller``: the queue, its workers and the retry policy.
- ``handler``: mappers from an object to ``Request``\\ s (``enqueue_object``,
  ``enqueue_owner``); ``predicate``: event filters.
"""

from kubeforge.controller.builder import Builder, ControllerHost
from kubeforge.controller.controller import Controller, ControllerOptions
from kubeforge.controller.handler import EnqueueHandler, Mapper, enqueue_object, enqueue_owner
from kubeforge.controller.predicate import GenerationChanged, Predicate, ResourceVersionChanged

__all__ = [
    "Builder",
    "Controller",
    "ControllerHost",
    "ControllerOptions",
    "EnqueueHandler",
    "GenerationChanged",
    "Mapper",
    "Predicate",
    "ResourceVersionChanged",
    "enqueue_object",
    "enqueue_owner",
]
