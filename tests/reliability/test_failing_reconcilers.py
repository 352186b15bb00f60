"""A reconciler that keeps failing for some keys: those back off exponentially, the rest flow.

A manager against the local server reconciles ConfigMaps; every ``bad-*`` key
raises. The attempt times of a bad key are compared with each other (ratios,
never against a wall-clock bound): the gaps grow as the per-key limiter doubles
them. Good keys are reconciled once and never requeued, a good key added while
the bad ones are failing is still handled, every failure is counted in
``controller_runtime_reconcile_errors_total``, and the manager keeps running.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import defaultdict
from typing import Any

from kubeforge import Builder, Request, Result
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.runtime import Manager
from kubeforge.workqueue import ItemExponentialFailureRateLimiter
from reliability.kf_faults import eventually
from watch.kf_server import ROOT_CA, configmap, fresh_namespace

BASE_DELAY = 0.01  # the limiter's first delay; it doubles per failure of the same key
ATTEMPTS = 7  # failures of each bad key to observe: gaps of 10, 20, ... 320 ms


class DependencyDown(Exception):
    """What the reconciler raises for a bad key (an error it did not plan for)."""


async def test_failing_keys_back_off_exponentially_while_other_keys_are_unaffected(
    kube_apiserver: Any,
) -> None:
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        namespace = await fresh_namespace(client, "backoff")
        configmaps = client.api(ConfigMap, namespace=namespace)
        for name in ("good-0", "good-1", "good-2", "bad-0", "bad-1"):
            await configmaps.create(configmap(name, namespace))

        loop = asyncio.get_running_loop()
        attempts: dict[str, list[float]] = defaultdict(list)

        async def reconcile(request: Request) -> Result:
            attempts[request.name].append(loop.time())
            if request.name.startswith("bad-"):
                raise DependencyDown(f"cannot reach the backend for {request.name}")
            return Result()

        manager = Manager(load_config(kube_apiserver.kubeconfig))
        controller = (
            Builder(manager)
            .named("flaky")
            .for_(ConfigMap, namespace=namespace)
            .with_options(
                max_concurrent_reconciles=2,
                rate_limiter=ItemExponentialFailureRateLimiter(BASE_DELAY, 60.0),
            )
            .complete(reconcile)
        )
        running = asyncio.create_task(manager.run())
        try:

            async def enough_failures() -> list[str]:
                return [
                    f"{name}: {len(attempts[name])} attempts"
                    for name in ("bad-0", "bad-1")
                    if len(attempts[name]) < ATTEMPTS
                ]

            await eventually(enough_failures, "bad keys retried")
            await configmaps.create(configmap("good-late", namespace))

            async def late_key_handled() -> list[str]:
                return [] if attempts["good-late"] else ["good-late not reconciled yet"]

            await eventually(late_key_handled, "a key added while others fail")
            assert not running.done()

            for name in ("bad-0", "bad-1"):
                times = attempts[name][:ATTEMPTS]
                gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
                # Doubling delays: the last gap (~32 x base) outweighs the first two together,
                # and the gaps' second half outweighs their first half.
                assert gaps[-1] > gaps[0] + gaps[1], gaps
                half = len(gaps) // 2
                assert sum(gaps[half:]) > 2 * sum(gaps[:half]), gaps
                assert controller.queue.num_requeues(Request(namespace, name)) >= ATTEMPTS - 1
            # The namespace's kube-root-ca.crt is a ConfigMap like the good ones.
            for name in ("good-0", "good-1", "good-2", "good-late", ROOT_CA):
                assert len(attempts[name]) == 1, (name, attempts[name])
                assert controller.queue.num_requeues(Request(namespace, name)) == 0

            failures = sum(len(attempts[name]) for name in ("bad-0", "bad-1"))
            errors_total = manager.metrics.registry.get_sample_value(
                "controller_runtime_reconcile_errors_total", {"controller": "flaky"}
            )
            # A failure may be counted a moment before the next attempt is recorded.
            assert errors_total is not None
            assert failures - 2 <= errors_total <= failures
            successes = manager.metrics.registry.get_sample_value(
                "controller_runtime_reconcile_total", {"controller": "flaky", "result": "success"}
            )
            assert successes == 5
        finally:
            manager.stop()
            await running
