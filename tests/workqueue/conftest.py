"""Fixtures for the workqueue tests: a fake clock and a way to let woken tasks run."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from kubeforge.core.clock import FakeClock

Settle = Callable[[], Awaitable[None]]


async def _settle() -> None:
    # Every wake-up in the queue is one call_soon hop; a few loop turns run them all.
    for _ in range(8):
        await asyncio.sleep(0)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def settle() -> Settle:
    """Let every task that is ready run until it blocks again (no real time passes)."""
    return _settle
