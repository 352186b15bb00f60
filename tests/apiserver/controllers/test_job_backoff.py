"""The Job controller after pod failures, as 1.32's: the back-off between replacement pods
(``--job-pod-failure-backoff``, doubling), ``backoffLimitPerIndex`` with the index failure
counts, ``status.failedIndexes``, ``maxFailedIndexes``, the ``FailIndex`` rule, and the
Failed reasons with their messages."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Any

import pytest
from kf_http import Api, open_api
from kf_plane import events_for, until

from kubeforge.apiserver.controllers import job_rules
from kubeforge.testing import LocalApiServer

BASE = 1.0  # the server's first back-off, in seconds


@pytest.fixture(scope="module")
def backoff_server() -> Iterator[LocalApiServer]:
    with LocalApiServer(extra_args=("--job-pod-failure-backoff", str(BASE))) as server:
        yield server


@pytest.fixture
async def api(backoff_server: LocalApiServer) -> AsyncIterator[Api]:
    session = await open_api(backoff_server)
    async with session:
        yield Api(backoff_server, session)


def _job(name: str, annotations: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            **spec,
            "template": {
                "metadata": {"annotations": annotations},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox:1.36"}],
                },
            },
        },
    }


def _seconds(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _failed_at(pod: dict[str, Any]) -> float:
    (status,) = pod["status"]["containerStatuses"]
    return _seconds(status["state"]["terminated"]["finishedAt"])


def _conditions(job: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c["type"], c["reason"], c["message"]) for c in job["status"]["conditions"]]


async def _pods(api: Api, namespace: str, job: str) -> list[dict[str, Any]]:
    reply = await api.get(f"/api/v1/namespaces/{namespace}/pods", labelSelector=f"job-name={job}")
    return sorted(reply.body["items"], key=lambda p: p["metadata"]["creationTimestamp"])


def _failed(job: dict[str, Any]) -> bool:
    return any(c["type"] == "Failed" for c in job["status"].get("conditions") or [])


async def test_replacements_wait_a_doubling_back_off_after_each_failure(
    api: Api, namespace: str
) -> None:
    jobs = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    await api.post(jobs, _job("flaky", {"kubeforge.dev/behavior": "fail"}, backoffLimit=2))
    job = await until(api, f"{jobs}/flaky", _failed)
    message = "Job has reached the specified backoff limit"
    assert _conditions(job) == [
        ("FailureTarget", "BackoffLimitExceeded", message),
        ("Failed", "BackoffLimitExceeded", message),
    ]
    assert (job["status"]["failed"], job["status"]["ready"], job["status"]["terminating"]) == (
        3,
        0,
        0,
    )
    pods = await _pods(api, namespace, "flaky")
    assert len(pods) == 3
    # Timestamps have whole seconds, so a gap of at least n seconds shows as >= n.
    for number, (failed, replacement) in enumerate(itertools.pairwise(pods)):
        waited = _seconds(replacement["metadata"]["creationTimestamp"]) - _failed_at(failed)
        assert waited >= BASE * 2**number
    warnings = [(e["reason"], e["message"]) for e in await events_for(api, namespace, "flaky")]
    assert ("BackoffLimitExceeded", message) in warnings


async def test_each_index_has_its_own_backoff_limit(api: Api, namespace: str) -> None:
    jobs = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    body = _job(
        "per-index",
        {"kubeforge.dev/behavior": "fail"},
        completions=3,
        parallelism=3,
        completionMode="Indexed",
        backoffLimitPerIndex=1,
    )
    await api.post(jobs, body)
    job = await until(api, f"{jobs}/per-index", _failed)
    assert job["spec"]["backoffLimit"] == 2147483647
    assert job["status"]["failedIndexes"] == "0-2"
    assert job["status"]["failed"] == 6
    assert "completedIndexes" not in job["status"]
    assert _conditions(job)[-1] == ("Failed", "FailedIndexes", "Job has failed indexes")
    counts: dict[str, list[str]] = {}
    for pod in await _pods(api, namespace, "per-index"):
        notes = pod["metadata"]["annotations"]
        index = notes["batch.kubernetes.io/job-completion-index"]
        counts.setdefault(index, []).append(notes["batch.kubernetes.io/job-index-failure-count"])
    assert {i: sorted(c) for i, c in counts.items()} == {i: ["0", "1"] for i in "012"}


async def test_more_failed_indexes_than_allowed_fail_the_job(api: Api, namespace: str) -> None:
    jobs = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    body = _job(
        "too-many",
        {"kubeforge.dev/behavior": "fail"},
        completions=4,
        parallelism=2,
        completionMode="Indexed",
        backoffLimitPerIndex=0,
        maxFailedIndexes=1,
    )
    await api.post(jobs, body)
    job = await until(api, f"{jobs}/too-many", _failed)
    message = "Job has exceeded the specified maximal number of failed indexes"
    assert _conditions(job) == [
        ("FailureTarget", "MaxFailedIndexesExceeded", message),
        ("Failed", "MaxFailedIndexesExceeded", message),
    ]
    # which indexes failed first depends on when each pod ended; more than one did
    failed = job_rules.parse_indexes(job["status"]["failedIndexes"])
    assert len(failed) > 1
    assert job_rules.format_indexes(failed) == job["status"]["failedIndexes"]


async def test_a_fail_index_rule_fails_the_index_at_once(api: Api, namespace: str) -> None:
    jobs = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    rule = {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [42]}}
    body = _job(
        "fail-index",
        {"kubeforge.dev/exit-code": "42"},
        completions=2,
        parallelism=2,
        completionMode="Indexed",
        backoffLimitPerIndex=5,
        podFailurePolicy={"rules": [rule]},
    )
    await api.post(jobs, body)
    job = await until(api, f"{jobs}/fail-index", _failed)
    assert (job["status"]["failedIndexes"], job["status"]["failed"]) == ("0,1", 2)
    assert _conditions(job)[-1] == ("Failed", "FailedIndexes", "Job has failed indexes")


async def test_an_indexed_job_without_a_per_index_limit_has_no_failed_indexes(
    api: Api, namespace: str
) -> None:
    jobs = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    body = _job("plain", {}, completions=2, parallelism=2, completionMode="Indexed")
    await api.post(jobs, body)
    job = await until(
        api,
        f"{jobs}/plain",
        lambda j: any(c["type"] == "Complete" for c in j["status"].get("conditions") or []),
    )
    assert job["status"]["completedIndexes"] == "0,1"
    assert "failedIndexes" not in job["status"]
