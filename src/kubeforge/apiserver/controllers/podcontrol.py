"""Creating a controller's pods as ``RealPodControl`` and ``slowStartBatch`` do (1.32).

``create_pod`` writes one pod and the owner's Event about it: ``SuccessfulCreate`` /
``Created pod: <name>``, or, when the server refuses it (admission, validation, quota),
the Warning ``FailedCreate`` / ``Error creating: <the server's message>`` — except when
the namespace is terminating, where the real recorder stays quiet. ``slow_start`` makes
``count`` creates in batches of 1, 2, 4, ... and stops after the first batch with a
refusal, so a template every create fails costs one attempt per sync, not ``count``.

A sync that met a refusal is tried again as a workqueue's rate limiter allows
(``Retries``: 5 ms, doubling per failure, up to 1000 s). The creates are requests
(``requests.ControllerRequests``): the admission webhooks and policies see them, and a
refusal of theirs is a ``FailedCreate`` like any other.

Entry points: ``create_pod(api, owner, pod, component)``, ``slow_start(count, create)``,
``Retries``.

>>> async def create() -> None: ...
>>> from kubeforge.apiserver.controllers.eager import run_eagerly
>>> run_eagerly(slow_start(5, create))
(5, None)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError

__all__ = ["BURST_REPLICAS", "Retries", "create_pod", "slow_start", "terminating_namespace"]

BURST_REPLICAS = 500
"""``BurstReplicas``: the most pods a ReplicaSet creates or deletes in one sync."""

_PODS = ("", "pods")
_RETRY_BASE = 0.005
_RETRY_CAP = 1000.0


class Retries:
    """``ItemExponentialFailureRateLimiter``'s delays, per key."""

    def __init__(self, cap: float = _RETRY_CAP) -> None:
        self._failures: dict[object, int] = {}
        self._cap = cap

    def failed(self, key: object) -> float:
        """One more failure of ``key``: seconds before its next try."""
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        return float(min(_RETRY_BASE * 2.0 ** (failures - 1), self._cap))

    def forget(self, key: object) -> None:
        self._failures.pop(key, None)


def terminating_namespace(error: StatusError) -> bool:
    """``HasStatusCause(err, NamespaceTerminatingCause)``."""
    causes = (error.status.get("details") or {}).get("causes") or []
    return any(cause.get("reason") == "NamespaceTerminating" for cause in causes)


async def create_pod(
    api: ControllerRequests, owner: dict[str, Any], pod: dict[str, Any], component: str
) -> dict[str, Any]:
    """Create ``pod`` for ``owner`` and record the Event; a refusal is re-raised."""
    namespace = owner["metadata"].get("namespace") or ""
    cluster = api.cluster
    try:
        created = await api.create(_PODS, namespace, pod)
    except StatusError as error:
        if not terminating_namespace(error):
            message = f"Error creating: {error}"
            cluster.record(owner, "Warning", "FailedCreate", message, component=component)
        raise
    message = f"Created pod: {created['metadata']['name']}"
    cluster.record(owner, "Normal", "SuccessfulCreate", message, component=component)
    return created


async def slow_start(
    count: int, create: Callable[[], Awaitable[object]]
) -> tuple[int, StatusError | None]:
    """Call ``create`` up to ``count`` times in doubling batches; ``(successes, first
    refusal)``. A batch runs whole, one create after another (the real one runs it in
    parallel); after a batch with a refusal the rest are skipped."""
    successes, attempted, batch = 0, 0, 1
    refusal: StatusError | None = None
    while attempted < count and refusal is None:
        size = min(batch, count - attempted)
        for _ in range(size):
            try:
                await create()
            except StatusError as error:
                refusal = refusal or error
            else:
                successes += 1
        attempted += size
        batch *= 2
    return successes, refusal
