"""Jobs through the real kubectl, with what a 1.32 cluster shows.

Pods of a Job exit 0 after the server's ``--job-pod-run-time`` unless their template's
``kubeforge.dev/`` annotations say otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _conditions(job: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c["type"], c["reason"], c["message"]) for c in job["status"].get("conditions") or []]


def _events(kubectl: Kubectl, name: str) -> list[tuple[str, str]]:
    return [(e["reason"], e["message"]) for e in kubectl.events("Job", name)]


def _apply(kubectl: Kubectl, manifest: str) -> None:
    kubectl.run("apply", "-f", "-", stdin=manifest)


def test_create_job_completes_and_wait_for_complete_returns(kubectl: Kubectl) -> None:
    kubectl.run("create", "job", "once", "--image=busybox:1.36", "--", "true")
    waited = kubectl.run("wait", "--for=condition=complete", "job/once", "--timeout=60s")
    assert waited.strip() == "job.batch/once condition met"
    job = kubectl.json("job", "once")
    status = job["status"]
    assert status["succeeded"] == 1
    assert "active" not in status and "failed" not in status
    assert status["ready"] == 0 and status["terminating"] == 0
    assert status["uncountedTerminatedPods"] == {}
    assert status["startTime"] and status["completionTime"]
    assert _conditions(job) == [
        ("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"),
        ("Complete", "CompletionsReached", "Reached expected number of succeeded pods"),
    ]
    (pod,) = kubectl.json("pods", "-l", "job-name=once")["items"]
    assert pod["status"]["phase"] == "Succeeded"
    assert pod["metadata"]["generateName"] == "once-"
    assert "finalizers" not in pod["metadata"]  # job-tracking came off once counted
    assert pod["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "once"
    assert _events(kubectl, "once") == [
        ("SuccessfulCreate", f"Created pod: {pod['metadata']['name']}"),
        ("Completed", "Job completed"),
    ]
    row = kubectl.run("get", "job", "once").splitlines()[1].split()
    assert row[:3] == ["once", "Complete", "1/1"]


PARALLEL = """
apiVersion: batch/v1
kind: Job
metadata: {name: many}
spec:
  completions: 4
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox:1.36}]
"""


def test_completions_are_counted_over_parallel_pods(kubectl: Kubectl) -> None:
    _apply(kubectl, PARALLEL)
    kubectl.run("wait", "--for=condition=complete", "job/many", "--timeout=60s")
    pods = kubectl.json("pods", "-l", "job-name=many")["items"]
    assert len(pods) == 4
    assert kubectl.json("job", "many")["status"]["succeeded"] == 4
    created = [m for r, m in _events(kubectl, "many") if r == "SuccessfulCreate"]
    assert len(created) == 4


FAILING = """
apiVersion: batch/v1
kind: Job
metadata: {name: doomed}
spec:
  backoffLimit: 2
  template:
    metadata:
      annotations: {kubeforge.dev/behavior: fail}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox:1.36}]
"""


def test_a_failing_job_fails_after_its_backoff_limit(kubectl: Kubectl) -> None:
    _apply(kubectl, FAILING)
    waited = kubectl.run("wait", "--for=condition=failed", "job/doomed", "--timeout=60s")
    assert waited.strip() == "job.batch/doomed condition met"
    job = kubectl.json("job", "doomed")
    assert job["status"]["failed"] == 3  # the first try and two retries
    assert _conditions(job) == [
        ("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
        ("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
    ]
    assert ("BackoffLimitExceeded", "Job has reached the specified backoff limit") in _events(
        kubectl, "doomed"
    )
    pods = kubectl.json("pods", "-l", "job-name=doomed")["items"]
    assert [p["status"]["phase"] for p in pods] == ["Failed"] * 3


INDEXED = """
apiVersion: batch/v1
kind: Job
metadata: {name: indexed}
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox:1.36}]
"""


def test_an_indexed_job_runs_one_pod_per_index(kubectl: Kubectl) -> None:
    _apply(kubectl, INDEXED)
    kubectl.run("wait", "--for=condition=complete", "job/indexed", "--timeout=60s")
    assert kubectl.json("job", "indexed")["status"]["completedIndexes"] == "0-2"
    pods = kubectl.json("pods", "-l", "job-name=indexed")["items"]
    by_index = {
        p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]: p for p in pods
    }
    assert sorted(by_index) == ["0", "1", "2"]
    for index, pod in by_index.items():
        assert pod["metadata"]["name"].startswith(f"indexed-{index}-")
        assert pod["spec"]["hostname"] == f"indexed-{index}"
        env = pod["spec"]["containers"][0]["env"]
        assert env[0]["name"] == "JOB_COMPLETION_INDEX"


POLICY = """
apiVersion: batch/v1
kind: Job
metadata: {name: policed}
spec:
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: main, operator: In, values: [42]}
  template:
    metadata:
      annotations: {kubeforge.dev/exit-code: "42"}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox:1.36}]
"""


def test_a_pod_failure_policy_fails_the_job_at_once(kubectl: Kubectl) -> None:
    _apply(kubectl, POLICY)
    kubectl.run("wait", "--for=condition=failed", "job/policed", "--timeout=60s")
    job = kubectl.json("job", "policed")
    (pod,) = kubectl.json("pods", "-l", "job-name=policed")["items"]
    message = (
        f"Container main for pod {pod['metadata']['namespace']}/{pod['metadata']['name']} "
        "failed with exit code 42 matching FailJob rule at index 0"
    )
    assert _conditions(job)[-1] == ("Failed", "PodFailurePolicy", message)
    assert job["status"]["failed"] == 1


DEADLINE = """
apiVersion: batch/v1
kind: Job
metadata: {name: slow}
spec:
  activeDeadlineSeconds: 1
  template:
    metadata:
      annotations: {kubeforge.dev/exit-after: "3600"}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox:1.36}]
"""


def test_active_deadline_seconds_fails_a_job_and_stops_its_pods(kubectl: Kubectl) -> None:
    _apply(kubectl, DEADLINE)
    kubectl.run("wait", "--for=condition=failed", "job/slow", "--timeout=60s")
    job = kubectl.json("job", "slow")
    assert _conditions(job)[-1] == (
        "Failed",
        "DeadlineExceeded",
        "Job was active longer than specified deadline",
    )
    assert "active" not in job["status"]
    kubectl.until(("pods", "-l", "job-name=slow"), lambda b: not b["items"])


def test_a_suspended_job_runs_nothing_until_resumed(kubectl: Kubectl) -> None:
    _apply(
        kubectl,
        PARALLEL.replace("name: many", "name: paused").replace(
            "spec:\n  completions", "spec:\n  suspend: true\n  completions"
        ),
    )
    suspended = kubectl.until(
        ("job", "paused"),
        lambda j: any(c["type"] == "Suspended" for c in j["status"].get("conditions") or []),
    )
    assert _conditions(suspended) == [("Suspended", "JobSuspended", "Job suspended")]
    assert not kubectl.json("pods", "-l", "job-name=paused")["items"]
    kubectl.run("patch", "job/paused", "--type=merge", "-p", '{"spec":{"suspend":false}}')
    kubectl.run("wait", "--for=condition=complete", "job/paused", "--timeout=60s")
    reasons = [r for r, _ in _events(kubectl, "paused")]
    assert reasons[:2] == ["Suspended", "Resumed"]
