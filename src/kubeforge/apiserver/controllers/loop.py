"""``StorageLoop``: the skeleton of a control loop that runs inside the server.

It wakes on storage events that matter to it (``wants``), and however many
arrive, runs one ``reconcile()`` pass later: never from inside the storage
listener, so it never writes in the middle of another write.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["StorageLoop"]


class StorageLoop:
    """Subclasses implement ``wants(event)`` and ``reconcile()``; ``delay`` coalesces bursts."""

    delay: float = 0.0

    def __init__(self, engine: Engine, registry: Registry) -> None:
        self._engine = engine
        self._registry = registry
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = False
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self._engine.storage.subscribe(self._on_event)
        self._schedule()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def wants(self, event: Event) -> bool:
        raise NotImplementedError

    def reconcile(self) -> None:
        raise NotImplementedError

    def _on_event(self, event: Event) -> None:
        if self.wants(event):
            self._schedule()

    def _schedule(self) -> None:
        if self._pending or self._loop is None:
            return
        self._pending = True
        self._loop.call_later(self.delay, self._pass)

    def _pass(self) -> None:
        self._pending = False
        self.reconcile()
