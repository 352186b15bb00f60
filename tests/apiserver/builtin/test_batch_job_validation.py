"""Jobs refused and accepted on create as a 1.32 server does (``ValidateJob``): the
generated selector's labels, the spec's rules in ``validateJobSpec``'s order and words
(completion mode, per-index backoff, pod failure and success policies, pod replacement
policy, ``managedBy``, restart policy), an Indexed Job's pod hostnames; over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from kf_http import Api

CONTAINERS = [{"name": "main", "image": "busybox:1.36"}]


@pytest.fixture
def api(storage_api: Api) -> Api:
    return storage_api


def job(name: str, restart: str = "Never", **spec: Any) -> dict[str, Any]:
    template = {"spec": {"containers": CONTAINERS, "restartPolicy": restart}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": template, "suspend": True, **spec},
    }


async def causes(api: Api, namespace: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """The refusal's causes as (field, message), in the server's order."""
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)
    assert reply.status == 422, reply.body
    assert reply.body["reason"] == "Invalid"
    return [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]


async def test_defaults_include_manual_selector_false(api: Api, namespace: str) -> None:
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", job("plain"))
    assert reply.status == 201, reply.body
    assert reply.body["spec"]["manualSelector"] is False


async def test_a_template_label_that_contradicts_the_generated_one_is_named(
    api: Api, namespace: str
) -> None:
    body = job("named")
    body["spec"]["template"]["metadata"] = {"labels": {"job-name": "other"}}
    found = await causes(api, namespace, body)
    assert found[0][0] == "spec.template.metadata.labels[job-name]"
    assert found[0][1].startswith('Invalid value: map[string]string{"batch.kubernetes.io/')
    assert found[0][1].endswith('"job-name":"other"}: must be \'named\'')


async def test_completion_mode_and_indexed_limits(api: Api, namespace: str) -> None:
    assert await causes(api, namespace, job("mode", completionMode="Sometimes")) == [
        (
            "spec.completionMode",
            'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"',
        )
    ]
    body = job("wide", completionMode="Indexed", parallelism=100_001)
    assert await causes(api, namespace, body) == [
        ("spec.completions", "Required value: when completion mode is Indexed"),
        (
            "spec.parallelism",
            "Invalid value: 100001: must be less than or equal to 100000 when completion "
            "mode is Indexed",
        ),
    ]


async def test_per_index_backoff_needs_indexed_and_bounds(api: Api, namespace: str) -> None:
    body = job("flat", backoffLimitPerIndex=1, maxFailedIndexes=1)
    assert await causes(api, namespace, body) == [
        ("spec.backoffLimitPerIndex", "Invalid value: 1: requires indexed completion mode"),
        ("spec.maxFailedIndexes", "Invalid value: 1: requires indexed completion mode"),
    ]
    body = job("lone", completionMode="Indexed", completions=2, maxFailedIndexes=3)
    assert await causes(api, namespace, body) == [
        ("spec.backoffLimitPerIndex", "Required value: when maxFailedIndexes is specified"),
        ("spec.maxFailedIndexes", "Invalid value: 3: must be less than or equal to completions"),
    ]
    big = "when completions are above 100000 and used with backoff limit per index"
    body = job(
        "big",
        completionMode="Indexed",
        completions=100_001,
        parallelism=10_001,
        backoffLimitPerIndex=1,
    )
    assert await causes(api, namespace, body) == [
        (
            "spec.maxFailedIndexes",
            "Required value: must be specified when completions is above 100000",
        ),
        ("spec.parallelism", f"Invalid value: 10001: must be less than or equal to 10000 {big}"),
    ]


async def test_counts_are_non_negative(api: Api, namespace: str) -> None:
    body = job("negative", ttlSecondsAfterFinished=-1, activeDeadlineSeconds=-5)
    assert await causes(api, namespace, body) == [
        ("spec.activeDeadlineSeconds", "Invalid value: -5: must be greater than or equal to 0"),
        ("spec.ttlSecondsAfterFinished", "Invalid value: -1: must be greater than or equal to 0"),
    ]


async def test_pod_failure_policy_rules(api: Api, namespace: str) -> None:
    rules = [
        {"action": "", "onExitCodes": {"operator": "In", "values": [2, 1, 1, 0]}},
        {"action": "FailIndex", "onExitCodes": {"containerName": "nope", "values": [1]}},
        {"action": "Explode", "onPodConditions": [{"type": "bad type!"}]},
        {"action": "Ignore"},
        {
            "action": "Count",
            "onExitCodes": {"operator": "NotIn", "values": [1]},
            "onPodConditions": [{"type": "DisruptionTarget"}],
        },
    ]
    body = job(
        "policy", podFailurePolicy={"rules": rules}, podReplacementPolicy="TerminatingOrFailed"
    )
    at = "spec.podFailurePolicy.rules"
    codes = "[]int32{2, 1, 1, 0}"
    assert await causes(api, namespace, body) == [
        (
            f"{at}[0].action",
            'Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
        ),
        (f"{at}[0].onExitCodes.values[2]", "Duplicate value: 1"),
        (f"{at}[0].onExitCodes.values[3]", "Invalid value: 0: must not be 0 for the In operator"),
        (f"{at}[0].onExitCodes.values", f"Invalid value: {codes}: must be ordered"),
        (
            f"{at}[1].action",
            'Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
        ),
        (f"{at}[1].onExitCodes.operator", 'Required value: valid values: ["In" "NotIn"]'),
        (
            f"{at}[1].onExitCodes.containerName",
            'Invalid value: "nope": must be one of the container or initContainer names in '
            "the pod template",
        ),
        (
            f"{at}[2].action",
            'Unsupported value: "Explode": supported values: "Count", "FailIndex", "FailJob", '
            '"Ignore"',
        ),
        (
            f"{at}[2].onPodConditions[0].type",
            'Invalid value: "bad type!": name part must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            f"{at}[3]",
            "Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
        ),
        (
            f"{at}[4]",
            "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
        ),
        (
            "spec.podReplacementPolicy",
            'Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
        ),
    ]


async def test_a_pod_failure_policy_needs_restart_never_and_defaults_statuses(
    api: Api, namespace: str
) -> None:
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    body = job("restarts", restart="OnFailure", podFailurePolicy=policy)
    assert await causes(api, namespace, body) == [
        (
            "spec.template.spec.restartPolicy",
            'Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is '
            "specified",
        )
    ]
    reply = await api.post(
        f"/apis/batch/v1/namespaces/{namespace}/jobs", job("ok", podFailurePolicy=policy)
    )
    assert reply.status == 201, reply.body
    rule = reply.body["spec"]["podFailurePolicy"]["rules"][0]
    assert rule["onPodConditions"] == [{"type": "DisruptionTarget", "status": "True"}]
    assert reply.body["spec"]["podReplacementPolicy"] == "Failed"


async def test_a_restart_policy_other_than_the_two_is_unsupported(api: Api, namespace: str) -> None:
    found = await causes(api, namespace, job("always", restart="Always"))
    assert found == [
        ("spec.template.spec.restartPolicy", 'Required value: valid values: "OnFailure", "Never"')
    ]


async def test_success_policy_rules(api: Api, namespace: str) -> None:
    flat = job("flat", successPolicy={"rules": [{"succeededCount": 1}]})
    assert await causes(api, namespace, flat) == [
        (
            "spec.successPolicy",
            'Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode',
        )
    ]
    rules = [
        {},
        {"succeededIndexes": "3-1"},
        {"succeededIndexes": "0,9"},
        {"succeededIndexes": "0-1", "succeededCount": 6},
    ]
    body = job("indexed", completionMode="Indexed", completions=5, successPolicy={"rules": rules})
    at = "spec.successPolicy.rules"
    assert await causes(api, namespace, body) == [
        (
            f"{at}[0]",
            "Required value: at least one of succeededCount or succeededIndexes must be specified",
        ),
        (
            f"{at}[1].succeededIndexes",
            'Invalid value: "3-1": error parsing succeededIndexes: non-increasing order, '
            "previous: 3, current: 1",
        ),
        (
            f"{at}[2].succeededIndexes",
            'Invalid value: "0,9": error parsing succeededIndexes: too large index: "9"',
        ),
        (
            f"{at}[3].succeededCount",
            "Invalid value: 6: must be less than or equal to 5 (the number of specified "
            "completions)",
        ),
        (
            f"{at}[3].succeededCount",
            "Invalid value: 6: must be less than or equal to 2 (the number of indexes in the "
            "specified succeededIndexes field)",
        ),
    ]
    empty = job("empty", completionMode="Indexed", completions=5, successPolicy={"rules": []})
    assert await causes(api, namespace, empty) == [
        (
            f"{at}",
            "Required value: at least one rules must be specified when the successPolicy is "
            "specified",
        )
    ]


@pytest.mark.parametrize(
    ("managed_by", "message"),
    [
        ("foo", 'Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")'),
        (
            "Bad_Host/x",
            'Invalid value: "Bad_Host": a lowercase RFC 1123 subdomain must consist of lower '
            "case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
        ("example.com/" + "x" * 60, "Too long: may not be more than 63 bytes"),
    ],
)
async def test_managed_by_is_a_short_domain_prefixed_path(
    api: Api, namespace: str, managed_by: str, message: str
) -> None:
    found = await causes(api, namespace, job("managed", managedBy=managed_by))
    assert found == [("spec.managedBy", message)]


async def test_an_indexed_jobs_last_hostname_must_be_a_dns_label(api: Api, namespace: str) -> None:
    body = job("a" * 60, completionMode="Indexed", completions=1000)
    assert await causes(api, namespace, body) == [
        (
            "metadata.name",
            f'Invalid value: "{"a" * 60}": will not able to create pod with invalid DNS '
            f"label: {'a' * 60}-999",
        )
    ]
    reply = await api.post(
        f"/apis/batch/v1/namespaces/{namespace}/jobs",
        job("a" * 59, completionMode="Indexed", completions=10),
    )
    assert reply.status == 201, reply.body


async def test_a_job_or_cronjob_without_a_spec_is_refused_field_by_field(
    api: Api, namespace: str
) -> None:
    # Go decodes a missing spec as the empty struct, defaults it, then names what is missing.
    bare = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bare"}}
    assert await causes(api, namespace, bare) == [
        ("spec.template.spec.containers", "Required value"),
        ("spec.template.spec.restartPolicy", 'Required value: valid values: "OnFailure", "Never"'),
    ]
    bare = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "bare"}}
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/cronjobs", bare)
    assert reply.status == 422
    assert [c["field"] for c in reply.body["details"]["causes"]] == [
        "spec.schedule",
        "spec.jobTemplate.spec.template.spec.containers",
        "spec.jobTemplate.spec.template.spec.restartPolicy",
    ]
