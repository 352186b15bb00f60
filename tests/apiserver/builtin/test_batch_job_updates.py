"""Job updates and ``/status`` writes judged as a 1.32 server judges them
(``ValidateJobSpecUpdate``, ``ValidateJobUpdateStatus`` with the options
``getStatusValidationOptions`` turns on): what may change, what may not, and the status
transitions a Job controller (the built-in one or another ``managedBy``) may write."""

from __future__ import annotations

from typing import Any

import pytest
from kf_http import Api
from test_batch_job_validation import job

MERGE = "application/merge-patch+json"
NOW, LATER = "2024-05-01T10:00:00Z", "2024-05-01T10:05:00Z"


@pytest.fixture
def api(storage_api: Api) -> Api:
    return storage_api


async def create(api: Api, namespace: str, body: dict[str, Any]) -> str:
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)
    assert reply.status == 201, reply.body
    return f"/apis/batch/v1/namespaces/{namespace}/jobs/{body['metadata']['name']}"


def refusal(reply: Any) -> list[tuple[str, str]]:
    assert reply.status == 422, reply.body
    return [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]


async def write_status(api: Api, path: str, **status: Any) -> Any:
    body = (await api.get(path)).body
    body["status"] = status
    return await api.put(f"{path}/status", body)


def condition(kind: str) -> dict[str, str]:
    return {"type": kind, "status": "True", "lastTransitionTime": NOW}


async def test_completions_change_only_for_indexed_jobs_and_with_parallelism(
    api: Api, namespace: str
) -> None:
    flat = await create(api, namespace, job("flat", completions=2))
    reply = await api.patch(flat, {"spec": {"completions": 3}}, MERGE)
    assert refusal(reply) == [("spec.completions", "Invalid value: 3: field is immutable")]
    indexed = await create(
        api, namespace, job("indexed", completionMode="Indexed", completions=2, parallelism=2)
    )
    reply = await api.patch(indexed, {"spec": {"completions": 4}}, MERGE)
    assert refusal(reply) == [
        (
            "spec.completions",
            "Invalid value: 4: can only be modified in tandem with spec.parallelism",
        )
    ]
    reply = await api.patch(indexed, {"spec": {"completions": 4, "parallelism": 4}}, MERGE)
    assert reply.status == 200, reply.body


async def test_the_selector_and_later_fields_are_immutable(api: Api, namespace: str) -> None:
    body = job("manual", manualSelector=True, selector={"matchLabels": {"app": "x"}})
    body["spec"]["template"]["metadata"] = {"labels": {"app": "x", "tier": "a"}}
    path = await create(api, namespace, body)
    patch = {
        "spec": {
            "selector": {"matchLabels": {"app": "x", "tier": "a"}},
            "managedBy": "example.com/queue",
            "completionMode": "Indexed",
        }
    }
    assert refusal(await api.patch(path, patch, MERGE)) == [
        (
            "spec.selector",
            'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x", '
            '"tier":"a"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
        ),
        ("spec.completionMode", 'Invalid value: "Indexed": field is immutable'),
        ("spec.managedBy", 'Invalid value: "example.com/queue": field is immutable'),
    ]


async def test_a_suspended_job_that_never_started_may_move_its_pods_only(
    api: Api, namespace: str
) -> None:
    path = await create(api, namespace, job("waiting"))
    tolerations = [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    directives = {"nodeSelector": {"disk": "ssd"}, "tolerations": tolerations}
    patch = {"spec": {"template": {"metadata": {"annotations": {"a": "b"}}, "spec": directives}}}
    assert (await api.patch(path, patch, MERGE)).status == 200
    image = {"spec": {"template": {"spec": {"activeDeadlineSeconds": 5}}}}
    (cause,) = refusal(await api.patch(path, image, MERGE))
    assert cause[0] == "spec.template" and cause[1].endswith(": field is immutable")
    assert (await write_status(api, path, startTime=NOW)).status == 200
    moved = {"spec": {"template": {"spec": {"nodeSelector": {"disk": "hdd"}}}}}
    (cause,) = refusal(await api.patch(path, moved, MERGE))  # it has started once
    assert cause[0] == "spec.template"


async def test_a_complete_job_needs_its_interim_condition_and_times(
    api: Api, namespace: str
) -> None:
    path = await create(api, namespace, job("done"))
    reply = await write_status(api, path, conditions=[condition("Complete")], succeeded=1)
    assert refusal(reply) == [
        ("status.completionTime", "Required value: completionTime is required for Complete jobs"),
        (
            "status.conditions",
            "Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true "
            "condition",
        ),
        ("status.startTime", "Required value: startTime is required for finished job"),
    ]
    whole = {
        "conditions": [condition("SuccessCriteriaMet"), condition("Complete")],
        "startTime": NOW,
        "completionTime": LATER,
        "succeeded": 1,
    }
    assert (await write_status(api, path, **whole)).status == 200
    reply = await write_status(
        api, path, **{**whole, "conditions": [condition("SuccessCriteriaMet")]}
    )
    assert refusal(reply) == [
        (
            "status.completionTime",
            "Invalid value: 2024-05-01 10:05:00 +0000 UTC: cannot set completionTime when "
            "there is no Complete=True condition",
        ),
        ("status.conditions", "Invalid value: cannot disable the terminal Complete=True condition"),
    ]
    reply = await write_status(
        api, path, **{**whole, "succeeded": 0, "completionTime": "2024-05-01T10:06:00Z"}
    )
    assert refusal(reply) == [
        ("status.succeeded", "Invalid value: 0: cannot decrease the succeeded counter"),
        (
            "status.completionTime",
            "Invalid value: 2024-05-01 10:06:00 +0000 UTC: completionTime cannot be mutated",
        ),
    ]


async def test_a_failed_job_needs_failure_target_and_no_pods_left(api: Api, namespace: str) -> None:
    path = await create(api, namespace, job("lost"))
    reply = await write_status(
        api,
        path,
        conditions=[condition("Failed")],
        startTime=NOW,
        active=1,
        ready=2,
        terminating=1,
    )
    assert refusal(reply) == [
        (
            "status.conditions",
            "Invalid value: cannot set Failed=True condition without the FailureTarget=true "
            "condition",
        ),
        ("status.active", "Invalid value: 1: active>0 is invalid for finished job"),
        ("status.terminating", "Invalid value: 1: terminating>0 is invalid for finished job"),
        ("status.ready", "Invalid value: 2: cannot set more ready pods than active"),
    ]
    failed = [condition("FailureTarget"), condition("Failed")]
    assert (await write_status(api, path, conditions=failed, startTime=NOW, failed=2)).status == 200
    reply = await write_status(api, path, conditions=failed, startTime=NOW, failed=1)
    assert refusal(reply) == [
        ("status.failed", "Invalid value: 1: cannot decrease the failed counter")
    ]


async def test_counts_uncounted_pods_and_index_lists(api: Api, namespace: str) -> None:
    path = await create(api, namespace, job("counted", completions=3))
    uncounted = {"succeeded": ["a", ""], "failed": ["a"]}
    reply = await write_status(
        api,
        path,
        active=-1,
        uncountedTerminatedPods=uncounted,
        completedIndexes="1",
        failedIndexes="0",
    )
    assert refusal(reply) == [
        ("status.active", "Invalid value: -1: must be greater than or equal to 0"),
        ("status.uncountedTerminatedPods.succeeded[1]", 'Invalid value: "": must not be empty'),
        ("status.uncountedTerminatedPods.failed[0]", 'Duplicate value: "a"'),
        (
            "status.completedIndexes",
            'Invalid value: "1": cannot set non-empty completedIndexes when non-indexed '
            "completion mode",
        ),
        (
            "status.failedIndexes",
            'Invalid value: "0": cannot set non-null failedIndexes when backoffLimitPerIndex is '
            "null",
        ),
    ]
    indexed = job("indexes", completionMode="Indexed", completions=4, backoffLimitPerIndex=1)
    path = await create(api, namespace, indexed)
    reply = await write_status(api, path, completedIndexes="2-1", failedIndexes="1,3-2")
    assert refusal(reply) == [
        (
            "status.completedIndexes",
            'Invalid value: "2-1": error parsing completedIndexes: non-increasing order, '
            "previous: 2, current: 1",
        ),
        (
            "status.failedIndexes",
            'Invalid value: "1,3-2": error parsing failedIndexes: non-increasing order, '
            "previous: 3, current: 2",
        ),
    ]
    reply = await write_status(api, path, completedIndexes="0-2", failedIndexes="2")
    assert refusal(reply) == [
        (
            "status.failedIndexes",
            'Invalid value: "2": failedIndexes and completedIndexes overlap at index: 2',
        )
    ]
    assert (await write_status(api, path, completedIndexes="0-1", failedIndexes="3")).status == 200


async def test_success_criteria_and_time_transitions(api: Api, namespace: str) -> None:
    policy = {"rules": [{"succeededCount": 1}]}
    path = await create(
        api, namespace, job("met", completionMode="Indexed", completions=2, successPolicy=policy)
    )
    reply = await write_status(
        api,
        path,
        conditions=[
            condition("SuccessCriteriaMet"),
            condition("FailureTarget"),
            condition("Failed"),
        ],
        startTime=LATER,
        completionTime=NOW,
    )
    assert refusal(reply) == [
        (
            "status.completionTime",
            "Invalid value: 2024-05-01 10:00:00 +0000 UTC: cannot set completionTime when there "
            "is no Complete=True condition",
        ),
        (
            "status.completionTime",
            "Invalid value: 2024-05-01 10:00:00 +0000 UTC: completionTime cannot be set before "
            "startTime",
        ),
        (
            "status.conditions",
            "Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions",
        ),
        (
            "status.conditions",
            "Invalid value: cannot set SuccessCriteriaMet=True and FailureTarget=true conditions",
        ),
    ]
    started = await write_status(
        api, path, conditions=[condition("SuccessCriteriaMet")], startTime=NOW
    )
    assert started.status == 200, started.body
    reply = await write_status(api, path, startTime=LATER)
    assert refusal(reply) == [
        (
            "status.conditions",
            "Invalid value: cannot disable the SuccessCriteriaMet=True condition",
        ),
    ]
    # The Job is suspended: its start time may move (the controller resets it on suspend).
    moved = await write_status(
        api, path, conditions=[condition("SuccessCriteriaMet")], startTime=LATER
    )
    assert moved.status == 200, moved.body
    await api.patch(path, {"spec": {"suspend": False}}, MERGE)
    reply = await write_status(api, path, conditions=[condition("SuccessCriteriaMet")])
    assert refusal(reply) == [
        ("status.startTime", "Required value: startTime cannot be removed for unsuspended job")
    ]


async def test_complete_with_a_success_policy_needs_success_criteria_met(
    api: Api, namespace: str
) -> None:
    policy = {"rules": [{"succeededCount": 1}]}
    path = await create(
        api, namespace, job("policy", completionMode="Indexed", completions=2, successPolicy=policy)
    )
    reply = await write_status(
        api,
        path,
        conditions=[condition("FailureTarget"), condition("Complete"), condition("Failed")],
        startTime=NOW,
        completionTime=LATER,
    )
    assert refusal(reply) == [
        ("status.conditions", "Invalid value: cannot set Complete=True and Failed=true conditions"),
        (
            "status.conditions",
            "Invalid value: cannot set Complete=True and FailureTarget=true conditions",
        ),
        (
            "status.conditions",
            "Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true "
            "condition",
        ),
        (
            "status.conditions",
            "Invalid value: cannot set Complete=True for Job with SuccessPolicy unless "
            "SuccessCriteriaMet=True",
        ),
    ]


async def test_a_complete_jobs_other_status_fields_are_still_written(
    api: Api, namespace: str
) -> None:
    path = await create(api, namespace, job("legacy", completionMode="Indexed", completions=1))
    done = {"conditions": [condition("Complete")], "startTime": NOW, "completionTime": LATER}
    reply = await write_status(api, path, **done)
    assert [c[0] for c in refusal(reply)] == ["status.conditions"]  # SuccessCriteriaMet first
    whole = {**done, "conditions": [condition("SuccessCriteriaMet"), condition("Complete")]}
    assert (await write_status(api, path, **whole)).status == 200
    # Unrelated fields may still be written: the rules run only when their fields change.
    assert (await write_status(api, path, **whole, succeeded=1)).status == 200


async def test_list_limits(api: Api, namespace: str) -> None:
    rule = {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": list(range(1, 257))}}
    patterns = [{"type": f"C{i}", "status": "True"} for i in range(21)]
    rules = [rule, {"action": "Ignore", "onPodConditions": patterns}] + [
        {"action": "Ignore", "onPodConditions": [{"type": "X"}]}
    ] * 19
    reply = await api.post(
        f"/apis/batch/v1/namespaces/{namespace}/jobs",
        job("many", podFailurePolicy={"rules": rules}),
    )
    assert refusal(reply) == [
        ("spec.podFailurePolicy.rules", "Too many: 21: must have at most 20 items"),
        (
            "spec.podFailurePolicy.rules[0].onExitCodes.values",
            "Too many: 256: must have at most 255 items",
        ),
        (
            "spec.podFailurePolicy.rules[1].onPodConditions",
            "Too many: 21: must have at most 20 items",
        ),
    ]
    long = ",".join(str(i) for i in range(0, 40000, 2))
    body = job(
        "long",
        completionMode="Indexed",
        completions=100,
        successPolicy={"rules": [{"succeededIndexes": long}]},
    )
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)
    causes = refusal(reply)
    assert causes[0] == (
        "spec.successPolicy.rules[0].succeededIndexes",
        "Too long: may not be more than 65536 bytes",
    )
    assert causes[1][1].endswith('error parsing succeededIndexes: too large index: "100"')
