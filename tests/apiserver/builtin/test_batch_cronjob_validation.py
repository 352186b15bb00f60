"""CronJobs refused and accepted as a 1.32 server does (``ValidateCronJobCreate`` /
``ValidateCronJobUpdate``): the schedule read by robfig/cron with its error text, the
TZ rules, ``timeZone``, the job template's rules, the 52-character name; over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from kf_http import Api

from kubeforge.apiserver.builtin.apps.workload import default_pod_template
from kubeforge.apiserver.builtin.batch.cronjob_rules import cronjob_errors
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy

CONTAINERS = [{"name": "main", "image": "busybox:1.36"}]
MERGE = "application/merge-patch+json"


@pytest.fixture
def api(storage_api: Api) -> Api:
    return storage_api


def cronjob(name: str, schedule: str = "0 3 * * *", **spec: Any) -> dict[str, Any]:
    job_spec = spec.pop("job", {})
    template = {"spec": {"containers": CONTAINERS, "restartPolicy": "Never"}}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {
            "schedule": schedule,
            "jobTemplate": {"spec": {"template": template, **job_spec}},
            **spec,
        },
    }


def _path(namespace: str) -> str:
    return f"/apis/batch/v1/namespaces/{namespace}/cronjobs"


async def _refusal(api: Api, namespace: str, body: dict[str, Any]) -> str:
    reply = await api.post(_path(namespace), body)
    assert reply.status == 422, reply.body
    assert reply.body["reason"] == "Invalid"
    return str(reply.body["message"])


@pytest.mark.parametrize(
    ("schedule", "detail"),
    [
        ("61 * * * *", "end of range (61) above maximum (59): 61"),
        ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        (
            "@every 5q",
            'failed to parse duration @every 5q: time: unknown unit "q" in duration "5q"',
        ),
        ("0 * * * * x", "expected exactly 5 fields, found 6: [0 * * * * x]"),
        ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
        ("@foo", "unrecognized descriptor: @foo"),
    ],
)
async def test_a_schedule_robfig_refuses_is_refused_in_its_words(
    api: Api, namespace: str, schedule: str, detail: str
) -> None:
    message = await _refusal(api, namespace, cronjob("bad", schedule))
    quoted = schedule.replace('"', '\\"')
    assert message == (
        f'CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "{quoted}": {detail}'
    )


@pytest.mark.parametrize(
    "schedule", ["@every 1h30m", "@midnight", "0 9 * * MON-FRI", "*/5 0-6 1,15 jan-jun ?"]
)
async def test_schedules_robfig_reads_are_accepted(api: Api, namespace: str, schedule: str) -> None:
    reply = await api.post(_path(namespace), cronjob("good", schedule))
    assert reply.status == 201, reply.body


async def test_a_zone_in_the_schedule_is_refused_and_a_bad_one_twice(
    api: Api, namespace: str
) -> None:
    message = await _refusal(api, namespace, cronjob("tz", "TZ=UTC 0 3 * * *"))
    assert message == (
        'CronJob.batch "tz" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": '
        "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
    )
    message = await _refusal(api, namespace, cronjob("tz", "CRON_TZ=Nowhere 0 3 * * *"))
    assert message == (
        'CronJob.batch "tz" is invalid: [spec.schedule: Invalid value: '
        '"CRON_TZ=Nowhere 0 3 * * *": provided bad location Nowhere: unknown time zone '
        'Nowhere, spec.schedule: Invalid value: "CRON_TZ=Nowhere 0 3 * * *": cannot use TZ '
        "or CRON_TZ in schedule, use timeZone field instead]"
    )


@pytest.mark.parametrize(
    ("zone", "details"),
    [
        ("", ["timeZone must be nil or non-empty string"]),
        ("Mars/Olympus", ["unknown time zone Mars/Olympus"]),
        ("../etc/passwd", ["unknown time zone ../etc/passwd"]),
        ("Europe/-Paris", ["unknown time zone Europe/-Paris"]),
        ("America/Argentina_Buenos_Aires", ["unknown time zone America/Argentina_Buenos_Aires"]),
        (
            "Local",
            [
                "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
            ],
        ),
        (
            "local",
            [
                "timeZone must be an explicit time zone as defined in "
                "https://www.iana.org/time-zones",
                "unknown time zone local",
            ],
        ),
    ],
)
async def test_a_time_zone_must_be_an_explicit_iana_name(
    api: Api, namespace: str, zone: str, details: list[str]
) -> None:
    reply = await api.post(_path(namespace), cronjob("zoned", timeZone=zone))
    assert reply.status == 422, reply.body
    causes = reply.body["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.timeZone"] * len(details)
    quoted = zone.replace('"', '\\"')
    assert [c["message"] for c in causes] == [f'Invalid value: "{quoted}": {d}' for d in details]


async def test_a_real_time_zone_is_kept(api: Api, namespace: str) -> None:
    reply = await api.post(_path(namespace), cronjob("zoned", timeZone="America/New_York"))
    assert reply.status == 201, reply.body
    assert reply.body["spec"]["timeZone"] == "America/New_York"


async def test_a_job_template_may_not_name_its_selector(api: Api, namespace: str) -> None:
    selector = {"matchLabels": {"app": "x"}}
    body = cronjob("picky", job={"selector": selector, "manualSelector": True})
    reply = await api.post(_path(namespace), body)
    assert reply.status == 422
    causes = [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]
    assert causes == [
        (
            "spec.jobTemplate.spec.selector",
            'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, '
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be "
            "auto-generated",
        ),
        (
            "spec.jobTemplate.spec.manualSelector",
            'Unsupported value: true: supported values: "nil", "false"',
        ),
    ]


async def test_a_job_template_follows_the_job_spec_rules(api: Api, namespace: str) -> None:
    body = cronjob("indexed", job={"completionMode": "Indexed", "backoffLimit": -1})
    reply = await api.post(_path(namespace), body)
    assert reply.status == 422
    causes = [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]
    assert causes == [
        (
            "spec.jobTemplate.spec.backoffLimit",
            "Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            "spec.jobTemplate.spec.completions",
            "Required value: when completion mode is Indexed",
        ),
    ]


async def test_concurrency_policy_empty_is_defaulted_and_unknown_refused(
    api: Api, namespace: str
) -> None:
    reply = await api.post(_path(namespace), cronjob("empty", concurrencyPolicy=""))
    assert reply.status == 201, reply.body
    assert reply.body["spec"]["concurrencyPolicy"] == "Allow"
    message = await _refusal(api, namespace, cronjob("odd", concurrencyPolicy="Sometimes"))
    assert message == (
        'CronJob.batch "odd" is invalid: spec.concurrencyPolicy: Unsupported value: '
        '"Sometimes": supported values: "Allow", "Forbid", "Replace"'
    )


async def test_the_name_limit_comes_last_and_only_on_create(api: Api, namespace: str) -> None:
    name = "n" * 53
    message = await _refusal(api, namespace, cronjob(name, "61 * * * *"))
    assert message.endswith(
        f'end of range (61) above maximum (59): 61, metadata.name: Invalid value: "{name}": '
        "must be no more than 52 characters]"
    )


async def test_an_update_is_checked_again_without_the_name_limit(api: Api, namespace: str) -> None:
    path = f"{_path(namespace)}/nightly"
    assert (await api.post(_path(namespace), cronjob("nightly"))).status == 201
    reply = await api.patch(path, {"spec": {"schedule": "0 0 * * 7"}}, MERGE)
    assert reply.status == 422
    assert reply.body["details"]["causes"][0]["message"] == (
        'Invalid value: "0 0 * * 7": end of range (7) above maximum (6): 7'
    )
    reply = await api.patch(path, {"spec": {"schedule": "0 0 * * 0"}}, MERGE)
    assert reply.status == 200, reply.body


def test_a_schedule_stored_with_a_zone_keeps_it_until_time_zone_is_set() -> None:
    # Not reachable over HTTP (a new schedule naming TZ is refused): ValidateCronJobUpdate's
    # allowTZInSchedule, taken from the stored schedule.
    pods = PodStrategy.__new__(PodStrategy)
    old = cronjob("legacy", "TZ=UTC 0 3 * * *", concurrencyPolicy="Allow")
    new = cronjob("legacy", "TZ=UTC 0 4 * * *", concurrencyPolicy="Allow")
    for body in (old, new):
        default_pod_template(body["spec"]["jobTemplate"]["spec"]["template"])
    assert [str(e) for e in cronjob_errors(pods, new, old)] == []
    new["spec"]["timeZone"] = "UTC"
    (error,) = cronjob_errors(pods, new, old)
    assert (error.field, error.detail) == (
        "spec.schedule",
        "cannot use both timeZone field and TZ or CRON_TZ in schedule",
    )


async def test_a_job_templates_failure_policy_patterns_are_defaulted(
    api: Api, namespace: str
) -> None:
    # SetObjectDefaults_CronJob reaches the template's patterns, not SetDefaults_Job's fields.
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    reply = await api.post(_path(namespace), cronjob("tolerant", job={"podFailurePolicy": policy}))
    assert reply.status == 201, reply.body
    job_spec = reply.body["spec"]["jobTemplate"]["spec"]
    pattern = job_spec["podFailurePolicy"]["rules"][0]["onPodConditions"][0]
    assert pattern == {"type": "DisruptionTarget", "status": "True"}
    assert "podReplacementPolicy" not in job_spec and "manualSelector" not in job_spec
