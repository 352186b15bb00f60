"""The Job controller's back-off between replacement pods (``backoff_utils.go``, 1.32).

After failures a Job waits ``base * 2^(n-1)`` seconds (capped at 6 minutes) from its
last failure before it creates a pod again, ``n`` being the failures since its last
success: ``BackoffStore`` keeps that record per Job, in memory as the real controller
does (a restarted controller starts from none). ``base`` is Go's
``DefaultJobPodFailureBackOff`` (10 s), set by the server's ``--job-pod-failure-backoff``.
With ``backoffLimitPerIndex`` each index backs off alone, counting the failures its
pods carry in ``batch.kubernetes.io/job-index-failure-count`` (and
``job-index-ignored-failure-count``).

Entry points: ``BackoffStore``, ``remaining``, ``finished_time``, ``index_counts``,
``index_wait``.

>>> remaining(3, 100.0, 10.0, 105.0)
35.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.ranking import parse_time

__all__ = [
    "DEFAULT_BACKOFF",
    "FAILURE_COUNT",
    "IGNORED_COUNT",
    "MAX_BACKOFF",
    "BackoffStore",
    "Record",
    "finished_time",
    "index_counts",
    "index_wait",
    "remaining",
]

DEFAULT_BACKOFF = 10.0
MAX_BACKOFF = 360.0
FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
IGNORED_COUNT = "batch.kubernetes.io/job-index-ignored-failure-count"


def remaining(failures: int, last_failure: float | None, base: float, now: float) -> float:
    """``getRemainingTimeForFailuresCount``: seconds still to wait (0: create now)."""
    if failures == 0 or last_failure is None:
        return 0.0
    delay = base
    for _ in range(1, failures):
        delay *= 2
        if delay >= MAX_BACKOFF:
            delay = MAX_BACKOFF
            break
    return max(delay - (now - last_failure), 0.0)


def finished_time(pod: dict[str, Any]) -> float:
    """``getFinishedTime``: the last container end, else the time the pod stopped being
    ready, else its deletion, else its creation."""
    status = pod.get("status") or {}
    ends = [
        parse_time(((s.get("state") or {}).get("terminated") or {}).get("finishedAt"))
        for s in status.get("containerStatuses") or []
    ]
    known = [t for t in ends if t is not None]
    if known:
        return max(known)
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") == "False":
            since = parse_time(condition.get("lastTransitionTime"))
            if since is not None:
                return since
    meta = pod["metadata"]
    return (
        parse_time(meta.get("deletionTimestamp"))
        or parse_time(meta.get("creationTimestamp"))
        or 0.0
    )


@dataclass(frozen=True)
class Record:
    failures: int = 0
    last_failure: float | None = None


class BackoffStore:
    """``backoffStore``: each Job's failures since its last success (by uid)."""

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}

    def record(self, uid: str) -> Record:
        return self._records.get(uid, Record())

    def forget(self, uid: str) -> None:
        self._records.pop(uid, None)

    def update(
        self, uid: str, succeeded: list[dict[str, Any]], failed: list[dict[str, Any]]
    ) -> Record:
        """``newBackoffRecord``: fold in the pods that ended since the last sync."""
        old = self._records.get(uid, Record())
        failed_at = sorted(finished_time(p) for p in failed)
        if not succeeded:
            record = Record(old.failures + len(failed_at), failed_at[-1]) if failed_at else old
        else:
            last_success = max(finished_time(p) for p in succeeded)
            after = [t for t in failed_at if t > last_success]
            record = Record(len(after), after[-1] if after else None)
        self._records[uid] = record
        return record


def _count(pod: dict[str, Any], annotation: str) -> int:
    try:
        return max(int((pod["metadata"].get("annotations") or {}).get(annotation, 0)), 0)
    except ValueError:
        return 0


def index_counts(replaced: dict[str, Any] | None, counted: bool) -> tuple[int, int]:
    """``getNewIndexFailureCounts``: the (failures, ignored failures) a replacement for
    ``replaced`` carries; ``counted`` says whether its failure counts (pod failure policy)."""
    if replaced is None:
        return 0, 0
    failures, ignored = _count(replaced, FAILURE_COUNT), _count(replaced, IGNORED_COUNT)
    return (failures + 1, ignored) if counted else (failures, ignored + 1)


def index_failures(pod: dict[str, Any]) -> int:
    """How many earlier pods of the pod's index failed (its own failure not included)."""
    return _count(pod, FAILURE_COUNT)


def index_wait(last_failed: dict[str, Any] | None, base: float, now: float) -> float:
    """``getRemainingTimePerIndex``: the back-off of an index whose last pod failed."""
    if last_failed is None:
        return 0.0
    failures = _count(last_failed, FAILURE_COUNT) + _count(last_failed, IGNORED_COUNT) + 1
    return remaining(failures, finished_time(last_failed), base, now)
