"""``run_eagerly``: start a coroutine at once and only make it a task if it must wait.

A controller's sync is a coroutine so that a write admission webhooks must see can
wait for them without blocking the event loop. Most syncs never wait (no webhook or
policy is interested in their writes): run as a task, each would still cost a task and
a turn of the loop. ``run_eagerly`` runs the coroutine in the caller until it finishes
(returning its value, or raising) or first waits on a future (returning a task that
carries on from there): what Python 3.12's eager task factory does, on 3.11.

>>> async def add(a: int, b: int) -> int:
...     return a + b
>>> run_eagerly(add(1, 2))
3
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_eagerly"]

T = TypeVar("T")


def run_eagerly(coro: Coroutine[Any, Any, T]) -> T | asyncio.Task[T]:
    """``coro``'s value if it finishes without waiting, else a task finishing it."""
    try:
        waiting_on = coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    return asyncio.ensure_future(_carry_on(coro, waiting_on))


async def _carry_on(coro: Coroutine[Any, Any, T], waiting_on: Any) -> T:
    """Drive ``coro`` as a task would: wait for what it yielded, then resume it (the
    coroutine reads the future's outcome itself, so it is not consumed here)."""
    while True:
        if waiting_on is None:  # a bare yield (``asyncio.sleep(0)``)
            await asyncio.sleep(0)
        else:
            waiting_on._asyncio_future_blocking = False
            with contextlib.suppress(BaseException):  # the coroutine sees it on resuming
                await waiting_on
        try:
            waiting_on = coro.send(None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
