"""The pods a Job makes, as ``manageJob`` builds them from its template (1.32).

Each is named ``<job>-`` plus a random suffix (Indexed: ``<job>-<index>-``, with the
``batch.kubernetes.io/job-completion-index`` annotation and label, ``hostname``
``<job>-<index>`` and ``JOB_COMPLETION_INDEX`` from that annotation), carries the
``batch.kubernetes.io/job-tracking`` finalizer, and under ``backoffLimitPerIndex`` the
failure counts of its index (``job_backoff``).

Entry points: ``job_pod(job, index, counts)``, ``last_failed_per_index(pods)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers import job_rules as rules
from kubeforge.apiserver.controllers.job_backoff import FAILURE_COUNT, IGNORED_COUNT, finished_time
from kubeforge.apiserver.controllers.replicaset import pod_from_template

__all__ = ["job_pod", "last_failed_per_index"]


def _index_env(index: int) -> dict[str, Any]:
    path = f"metadata.annotations['{rules.INDEX_ANNOTATION}']"
    return {
        "name": "JOB_COMPLETION_INDEX",
        "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": path}},
    }


def job_pod(
    job: dict[str, Any], index: int | None, counts: tuple[int, int] | None = None
) -> dict[str, Any]:
    """The pod for ``index`` (None: a NonIndexed Job); ``counts`` are the index's
    (failures, ignored failures) when the Job has ``backoffLimitPerIndex``."""
    name = job["metadata"]["name"]
    template = (job.get("spec") or {}).get("template") or {}
    prefix = name if index is None else f"{name}-{index}"
    pod = pod_from_template(job, template, prefix)
    meta = pod["metadata"]
    meta["finalizers"] = [*meta.get("finalizers", []), rules.TRACKING_FINALIZER]
    if index is None:
        return pod
    notes = meta.setdefault("annotations", {})
    notes[rules.INDEX_ANNOTATION] = str(index)
    meta["labels"][rules.INDEX_ANNOTATION] = str(index)
    if counts is not None:
        notes[FAILURE_COUNT] = str(counts[0])
        if counts[1]:
            notes[IGNORED_COUNT] = str(counts[1])
    pod["spec"]["hostname"] = prefix
    for container in pod["spec"].get("containers") or []:
        env = [e for e in container.get("env") or [] if e.get("name") != "JOB_COMPLETION_INDEX"]
        container["env"] = [*env, _index_env(index)]
    return pod


def last_failed_per_index(pods: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Each index's most recently failed pod: the one a replacement continues from."""
    latest: dict[int, dict[str, Any]] = {}
    for pod in pods:
        index = rules.pod_index(pod)
        if index is None or (pod.get("status") or {}).get("phase") != "Failed":
            continue
        known = latest.get(index)
        if known is None or finished_time(pod) >= finished_time(known):
            latest[index] = pod
    return latest
