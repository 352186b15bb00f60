"""What the Job controller decides from its pods: indexes, policies and terminal reasons.

In the words of ``pkg/controller/job`` (1.32): completion indexes as interval strings
(``"0-2,4"``), ``podFailurePolicy`` rules (``FailJob``, ``Ignore``, ``Count``,
``FailIndex`` on exit codes or pod conditions), ``successPolicy`` rules
(``succeededIndexes`` / ``succeededCount``), and the reasons and messages of the
``SuccessCriteriaMet``/``Complete`` and ``FailureTarget``/``Failed`` conditions.

Entry points: ``parse_indexes``, ``format_indexes``, ``pod_index``, ``failure_rule``,
``success_rule``, the ``REASONS`` table.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "INDEX_ANNOTATION",
    "REASONS",
    "failure_rule",
    "format_indexes",
    "parse_indexes",
    "pod_index",
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
    """``0,1,2,4`` -> ``0-2,4``, as ``completedIndexes`` is written."""
    runs: list[list[int]] = []
    for index in sorted(indexes):
        if runs and runs[-1][1] == index - 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(f"{a}-{b}" if a != b else str(a) for a, b in runs)


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
