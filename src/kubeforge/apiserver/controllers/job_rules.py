"""What the Job controller decides from its pods: indexes, policies and terminal reasons.

In the words of ``pkg/controller/job`` (1.32): completion indexes as interval strings
(``"0-2,4"``), ``podFailurePolicy`` rules (``FailJob``, ``Ignore``, ``Count``,
``FailIndex`` on exit codes or pod conditions), ``successPolicy`` rules
(``succeededIndexes`` / ``succeededCount``), and the reasons and messages of the
``SuccessCriteriaMet``/``Complete`` and ``FailureTarget``/``Failed`` conditions.

``backoffLimitPerIndex`` decides which indexes failed (``index_failed``) and whether
that fails the Job (``index_verdict``: ``MaxFailedIndexesExceeded``, ``FailedIndexes``);
``restartPolicy: OnFailure`` pods count their restarts against ``backoffLimit``.

Entry points: ``parse_indexes``, ``format_indexes``, ``pod_index``, ``failure_rule``,
``success_rule``, ``index_failed``, ``index_verdict``, ``past_restart_limit``, the
``REASONS`` table.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "INDEX_ANNOTATION",
    "REASONS",
    "condition",
    "counts_as_failure",
    "failure_rule",
    "format_indexes",
    "index_failed",
    "index_verdict",
    "parse_indexes",
    "past_restart_limit",
    "pod_index",
    "set_condition",
    "success_rule",
]

INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"

REASONS = {
    "CompletionsReached": "Reached expected number of succeeded pods",
    "BackoffLimitExceeded": "Job has reached the specified backoff limit",
    "DeadlineExceeded": "Job was active longer than specified deadline",
    "MaxFailedIndexesExceeded": "Job has exceeded the specified maximal number of failed indexes",
    "FailedIndexes": "Job has failed indexes",
}


def parse_indexes(text: Any) -> set[int]:
    out: set[int] = set()
    for part in str(text or "").split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            out.update(range(int(first), int(last or first) + 1))
        except ValueError:
            continue
    return out


def format_indexes(indexes: set[int]) -> str:
    """``0,1,2,4,6,7`` -> ``0-2,4,6,7``, as ``orderedIntervals.String`` writes
    ``completedIndexes`` and ``failedIndexes``: a run of two is a pair, not a range."""
    runs: list[list[int]] = []
    for index in sorted(indexes):
        if runs and runs[-1][1] == index - 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(str(a) if a == b else f"{a}{',' if b == a + 1 else '-'}{b}" for a, b in runs)


def pod_index(pod: dict[str, Any]) -> int | None:
    value = (pod["metadata"].get("annotations") or {}).get(INDEX_ANNOTATION)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _exit_codes(pod: dict[str, Any]) -> list[tuple[str, int]]:
    codes = []
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        terminated = (status.get("state") or {}).get("terminated") or (
            (status.get("lastState") or {}).get("terminated")
        )
        if terminated and terminated.get("exitCode"):
            codes.append((str(status.get("name")), int(terminated["exitCode"])))
    return codes


def failure_rule(job: dict[str, Any], pod: dict[str, Any]) -> tuple[str, str] | None:
    """``(action, message)`` of the first ``podFailurePolicy`` rule a failed pod matches."""
    policy = (job.get("spec") or {}).get("podFailurePolicy") or {}
    meta = pod["metadata"]
    who = f"{meta.get('namespace')}/{meta['name']}"
    for position, rule in enumerate(policy.get("rules") or []):
        action = str(rule.get("action"))
        on_codes = rule.get("onExitCodes")
        if on_codes:
            values = set(on_codes.get("values") or [])
            wanted_in = on_codes.get("operator") == "In"
            for container, code in _exit_codes(pod):
                if on_codes.get("containerName") not in (None, container):
                    continue
                if (code in values) == wanted_in:
                    return action, (
                        f"Container {container} for pod {who} failed with exit code {code} "
                        f"matching {action} rule at index {position}"
                    )
        for pattern in rule.get("onPodConditions") or []:
            for condition in (pod.get("status") or {}).get("conditions") or []:
                if condition.get("type") == pattern.get("type") and condition.get(
                    "status"
                ) == pattern.get("status", "True"):
                    return action, (
                        f"Pod {who} has condition {pattern.get('type')} matching {action} rule "
                        f"at index {position}"
                    )
    return None


def success_rule(job: dict[str, Any], succeeded: set[int]) -> int | None:
    """The position of the first ``successPolicy`` rule the succeeded indexes satisfy."""
    policy = (job.get("spec") or {}).get("successPolicy") or {}
    for position, rule in enumerate(policy.get("rules") or []):
        wanted = rule.get("succeededIndexes")
        pool = succeeded & parse_indexes(wanted) if wanted else succeeded
        count = rule.get("succeededCount")
        if wanted and count is None and parse_indexes(wanted) <= succeeded:
            return position
        if count is not None and len(pool) >= int(count):
            return position
    return None


def counts_as_failure(job: dict[str, Any], pod: dict[str, Any] | None) -> bool:
    """Whether a failed pod's failure counts (no ``Ignore`` rule matched it)."""
    if pod is None:
        return True
    matched = failure_rule(job, pod)
    return matched is None or matched[0] != "Ignore"


def index_failed(job: dict[str, Any], pod: dict[str, Any], matched: tuple[str, str] | None) -> bool:
    """``isIndexFailed``: a ``FailIndex`` rule matched, or the index's counted failures
    reached ``backoffLimitPerIndex`` (``matched`` is the pod's failure rule)."""
    limit = (job.get("spec") or {}).get("backoffLimitPerIndex")
    if limit is None:
        return False
    if matched is not None and matched[0] == "FailIndex":
        return True
    counted = matched is None or matched[0] != "Ignore"
    failures = (pod["metadata"].get("annotations") or {}).get(
        "batch.kubernetes.io/job-index-failure-count", "0"
    )
    try:
        return counted and int(failures) >= int(limit)
    except ValueError:
        return counted


def index_verdict(job: dict[str, Any], done: set[int], lost: set[int]) -> str | None:
    """The reason a ``backoffLimitPerIndex`` Job fails for its failed indexes, if it does."""
    spec = job.get("spec") or {}
    if spec.get("backoffLimitPerIndex") is None:
        return None
    most = spec.get("maxFailedIndexes")
    if most is not None and len(lost) > int(most):
        return "MaxFailedIndexesExceeded"
    if lost and len(lost) + len(done) >= int(spec.get("completions") or 0):
        return "FailedIndexes"
    return None


def past_restart_limit(job: dict[str, Any], active: list[dict[str, Any]]) -> bool:
    """``pastBackoffLimitOnFailure``: with ``restartPolicy: OnFailure`` the restarts of the
    running and pending pods reach ``backoffLimit`` (any restart, for a limit of 0)."""
    spec = job.get("spec") or {}
    if ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") != "OnFailure":
        return False
    restarts = sum(
        int(s.get("restartCount") or 0)
        for p in active
        if (p.get("status") or {}).get("phase", "Pending") in ("Pending", "Running")
        for field in ("initContainerStatuses", "containerStatuses")
        for s in (p.get("status") or {}).get(field) or []
    )
    limit = int(spec.get("backoffLimit", 6))
    return restarts > 0 if limit == 0 else restarts >= limit


def condition(status: dict[str, Any], kind: str) -> dict[str, Any]:
    """The Job condition of type ``kind`` ({} if none)."""
    for found in status.get("conditions") or []:
        if found.get("type") == kind:
            return dict(found)
    return {}


def set_condition(
    status: dict[str, Any],
    kind: str,
    reason: str,
    message: str,
    now: str,
    *,
    state: str = "True",
) -> None:
    """Set a Job condition; one of the same status and reason stays as it is."""
    current = condition(status, kind)
    if current.get("status") == state and current.get("reason") == reason:
        return
    new = {
        "type": kind,
        "status": state,
        "lastProbeTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }
    others = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    status["conditions"] = [*others, new]
