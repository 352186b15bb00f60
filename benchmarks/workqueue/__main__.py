"""Run the workqueue throughput benchmark: ``python -m benchmarks.workqueue [--items N]``.

Each workload counts every ``add``, ``get`` and ``done`` call as one operation
(``put``/``get``/``task_done`` for the ``asyncio.Queue`` baseline) and reports the
best of a few rounds, since the first round also warms up the interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable, Coroutine
from typing import Any

from kubeforge.core.refs import ObjectKey
from kubeforge.workqueue import DelayingQueue, RateLimitingQueue, ShutDown, WorkQueue

Workload = Callable[[list[ObjectKey]], Coroutine[Any, Any, int]]

_BATCH = 256  # keys a producer adds between two turns of the consumers


async def _drain(queue: WorkQueue[ObjectKey]) -> int:
    ops = 0
    while len(queue):
        key = await queue.get()
        queue.done(key)
        ops += 2
    return ops


async def single_consumer(keys: list[ObjectKey]) -> int:
    """Add a batch (with duplicates merged), then get/done everything queued; repeat."""
    queue: WorkQueue[ObjectKey] = WorkQueue()
    ops = 0
    for start in range(0, len(keys), _BATCH):
        for key in keys[start : start + _BATCH]:
            queue.add(key)
        ops += min(_BATCH, len(keys) - start)
        ops += await _drain(queue)
    return ops


async def concurrent_workers(keys: list[ObjectKey], workers: int = 4) -> int:
    """One producer and ``workers`` consumers that yield once per key, as real workers do."""
    queue: WorkQueue[ObjectKey] = WorkQueue()
    handled = 0

    async def worker() -> None:
        nonlocal handled
        while True:
            try:
                key = await queue.get()
            except ShutDown:
                return
            await asyncio.sleep(0)  # a reconcile always awaits something
            queue.done(key)
            handled += 2

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    for start in range(0, len(keys), _BATCH):
        for key in keys[start : start + _BATCH]:
            queue.add(key)
        await asyncio.sleep(0)
    queue.shut_down()  # keys still queued are handed out; then every worker sees ShutDown
    await asyncio.gather(*tasks)
    return len(keys) + handled


async def rate_limited_retries(keys: list[ObjectKey]) -> int:
    """Fail every key once through ``add_rate_limited`` (0 s delay), then ``forget`` it."""
    queue: RateLimitingQueue[ObjectKey] = RateLimitingQueue(_ZeroLimiter())
    ops = 0
    for start in range(0, len(keys), _BATCH):
        batch = keys[start : start + _BATCH]
        for key in batch:
            queue.add(key)
        ops += len(batch)
        while len(queue):
            key = await queue.get()
            if queue.num_requeues(key) == 0:
                queue.add_rate_limited(key)
                ops += 1
            else:
                queue.forget(key)
            queue.done(key)
            ops += 2
    return ops


class _ZeroLimiter:
    """Counts failures like the default limiter but never delays: measures the queue alone."""

    def __init__(self) -> None:
        self._failures: dict[ObjectKey, int] = {}

    def when(self, item: ObjectKey) -> float:
        self._failures[item] = self._failures.get(item, 0) + 1
        return 0.0

    def forget(self, item: ObjectKey) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: ObjectKey) -> int:
        return self._failures.get(item, 0)


async def delayed_adds(keys: list[ObjectKey]) -> int:
    """``add_after`` every key with a delay of up to 2 ms on the real clock, then drain."""
    queue: DelayingQueue[ObjectKey] = DelayingQueue()
    rng = random.Random(7)
    for key in keys:
        queue.add_after(key, rng.random() * 0.002)
    ops = len(keys)
    while queue.waiting:
        ops += await _drain(queue)
        await asyncio.sleep(0)
    return ops + await _drain(queue)


async def asyncio_queue_workers(keys: list[ObjectKey], workers: int = 4) -> int:
    """``concurrent_workers`` through ``asyncio.Queue``: every key is handled, no merging."""
    queue: asyncio.Queue[ObjectKey] = asyncio.Queue()

    async def worker() -> None:
        while True:
            await queue.get()
            await asyncio.sleep(0)
            queue.task_done()

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    for start in range(0, len(keys), _BATCH):
        for key in keys[start : start + _BATCH]:
            queue.put_nowait(key)
        await asyncio.sleep(0)
    await queue.join()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return 3 * len(keys)


async def asyncio_queue_baseline(keys: list[ObjectKey]) -> int:
    """The same batches through ``asyncio.Queue``: no merging, so it does more gets."""
    queue: asyncio.Queue[ObjectKey] = asyncio.Queue()
    ops = 0
    for start in range(0, len(keys), _BATCH):
        for key in keys[start : start + _BATCH]:
            queue.put_nowait(key)
            ops += 1
        while not queue.empty():
            await queue.get()
            queue.task_done()
            ops += 2
    return ops


def _measure(workload: Workload, keys: list[ObjectKey], rounds: int) -> float:
    best = 0.0
    for _ in range(rounds):
        started = time.perf_counter()
        ops = asyncio.run(workload(keys))
        best = max(best, ops / (time.perf_counter() - started))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=200_000, help="keys added per round")
    parser.add_argument("--distinct", type=int, default=5_000, help="distinct keys among them")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(42)
    pool = [ObjectKey("default", f"pod-{i}") for i in range(args.distinct)]
    keys = [rng.choice(pool) for _ in range(args.items)]

    print(f"{args.items:,} adds of {args.distinct:,} distinct keys, best of {args.rounds}")
    print(f"{'workload':<24} {'kubeforge ops/s':>16} {'asyncio.Queue ops/s':>20} {'ratio':>7}")
    single = _measure(asyncio_queue_baseline, keys, args.rounds)
    workers = _measure(asyncio_queue_workers, keys, args.rounds)
    for name, workload, baseline in [
        ("single consumer", single_consumer, single),
        ("4 concurrent workers", concurrent_workers, workers),
        ("rate-limited retries", rate_limited_retries, single),
        ("delayed adds (<= 2 ms)", delayed_adds, single),
    ]:
        rate = _measure(workload, keys, args.rounds)
        print(f"{name:<24} {rate:>16,.0f} {baseline:>20,.0f} {rate / baseline:>6.2f}x")


if __name__ == "__main__":
    main()
